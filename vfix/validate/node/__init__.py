"""Scripts that run on the nodes (copied there by the validation roles).

They depend on the standard library (plus torch for the all-reduce benchmark, pynvml when
importable) and never import vfix: vfix is not installed on nodes.
"""
