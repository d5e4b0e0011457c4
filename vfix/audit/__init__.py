"""The audit: facts + policy -> findings, majority-baseline drift, per-node verdicts.

`vfix.audit.engine.audit` is the entry point; `vfix.audit.drift` holds the drift keys and
the majority split, shared by the drift checks and the HTML drift matrix.
"""
