"""Failure logs -> layer, root cause, evidence lines, fix.

Public API (frozen results, see vfix.diagnose.model and result.schema.json):
    diagnose_text(text, name="-") -> Diagnosis
    diagnose_paths(paths) -> tuple[Diagnosis, ...]
    diagnose_stream(binary_stream, name="-") -> Diagnosis
"""

from vfix.diagnose.engine import diagnose_paths, diagnose_stream, diagnose_text
from vfix.diagnose.model import Candidate, Diagnosis, Evidence, FixStep, NcclSummary, Status

__all__ = [
    "Candidate",
    "Diagnosis",
    "Evidence",
    "FixStep",
    "NcclSummary",
    "Status",
    "diagnose_paths",
    "diagnose_stream",
    "diagnose_text",
]
