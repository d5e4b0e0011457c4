"""What preflight concludes: one verdict per check, with its layer, reason and source."""

from __future__ import annotations

from dataclasses import dataclass, field

from vfix.vocabulary import ExitCode, Layer, Verdict


@dataclass(frozen=True)
class CheckResult:
    check: str  # e.g. "tp-attention-heads"
    layer: Layer
    verdict: Verdict
    reason: str  # one line for the operator
    source: str = ""  # the vLLM file/function (or data table row) the rule comes from
    host: str | None = None  # None: about the model or the whole deployment

    def as_dict(self) -> dict[str, object]:
        return {"check": self.check, "layer": self.layer.value, "verdict": self.verdict.value,
                "reason": self.reason, "source": self.source, "host": self.host}


@dataclass(frozen=True)
class Skipped:
    """A check that could not run, and why (usually: no facts for it)."""

    check: str
    reason: str


@dataclass(frozen=True)
class Suggestion:
    """The `vllm serve` command line and environment preflight expects to work."""

    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def command_line(self) -> str:
        from shlex import join

        prefix = " ".join(f"{k}={v}" for k, v in self.env.items())
        return f"{prefix} {join(self.argv)}".strip()


@dataclass(frozen=True)
class PreflightReport:
    model: str
    results: tuple[CheckResult, ...]
    skipped: tuple[Skipped, ...]
    suggestion: Suggestion
    estimates: dict[str, object] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        verdicts = {r.verdict for r in self.results}
        if Verdict.FAIL in verdicts:
            return Verdict.FAIL
        return Verdict.WARN if Verdict.WARN in verdicts else Verdict.PASS

    @property
    def exit_code(self) -> int:
        return ExitCode.FINDINGS if self.verdict is Verdict.FAIL else ExitCode.CLEAN

    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.verdict is Verdict.FAIL]

    def result(self, check: str) -> CheckResult:
        """The (first) result of `check`; KeyError when it did not run."""
        for entry in self.results:
            if entry.check == check:
                return entry
        raise KeyError(check)

    def as_dict(self) -> dict[str, object]:
        return {
            "model": self.model,
            "verdict": self.verdict.value,
            "results": [r.as_dict() for r in sorted(self.results, key=_triage_order)],
            "skipped": [{"check": s.check, "reason": s.reason} for s in self.skipped],
            "estimates": self.estimates,
            "suggestion": {"command": list(self.suggestion.argv), "env": self.suggestion.env,
                           "command_line": self.suggestion.command_line,
                           "notes": list(self.suggestion.notes)},
        }


def _triage_order(result: CheckResult) -> tuple[int, str]:
    return (result.layer.triage_rank, result.check)


def sorted_results(results: tuple[CheckResult, ...]) -> list[CheckResult]:
    return sorted(results, key=_triage_order)
