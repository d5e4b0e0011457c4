"""The project's fixed words: failure layers (in triage order), severities, verdicts."""

from enum import StrEnum


class Layer(StrEnum):
    """Where a multi-GPU deployment breaks, in the order an operator should look."""

    VISIBILITY = "visibility"
    COMMUNICATION = "communication"
    PARTITIONING = "partitioning"
    RESOURCES = "resources"
    VERSIONS = "versions"
    NETWORK = "network"
    OTHER = "other"

    @property
    def triage_rank(self) -> int:
        return list(Layer).index(self)


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)


class Verdict(StrEnum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"


class ExitCode:
    CLEAN = 0
    FINDINGS = 1
    OPERATIONAL_ERROR = 2
