from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


class Nofile(Check):
    """The open-files limit (soft and hard) is high enough for vLLM, Ray and NCCL."""

    id = "nofile"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("limits",)
    remediation = Remediation(role="limits")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        ulimits = subject.facts.system.ulimits
        files = subject.facts.system.limits_files
        # What the limits files configure, next to what the login really got.
        configured = [
            Evidence(source=path, lines=[line for line in lines if "nofile" in line.lower()])
            for path, lines in files.items()
            if any("nofile" in line.lower() for line in lines)
        ]
        for which, observed in (("soft", ulimits.nofile_soft), ("hard", ulimits.nofile_hard)):
            matcher = subject.settings.matcher(which, "ge")
            if observed is None or observed < 0 or matcher.test(observed):
                continue  # None/-1: unlimited or not observed
            message = f"nofile {which} limit is {observed}, policy wants {matcher.describe()}"
            set_in = [path for path, value in configured_nofile(files, which)
                      if matcher.test(value)]
            if set_in:
                # Fixed on disk but not in effect: a re-audit right after `vfix fix` says so.
                message += (f"; {', '.join(set_in)} already set enough, but this login does "
                            "not get it (it started before the change, or sshd/PAM does not "
                            "apply pam_limits; services need systemd's DefaultLimitNOFILE)")
            yield self.finding(
                subject,
                message,
                sub=which,
                expected=matcher.describe(),
                observed=observed,
                evidence=[
                    cite(
                        subject.facts.system.sources,
                        "nofile",
                        "/proc/self/limits (the probe's login)",
                        f"Max open files ({which}) {observed}",
                    ),
                    *configured,
                ],
                remediation=Remediation(
                    role="limits", vars={f"limits_nofile_{which}": matcher.expected}
                ),
            )


def configured_nofile(files: dict[str, list[str]], which: str) -> list[tuple[str, int]]:
    """(path, value) for each nofile limit the limits files set for everyone: pam_limits lines
    (`* soft nofile N`, `* - nofile N`) and systemd's `DefaultLimitNOFILE=SOFT[:HARD]`."""
    found = []
    for path, lines in files.items():
        for line in lines:
            fields = line.split()
            if len(fields) == 4 and fields[0] == "*" and fields[2] == "nofile" \
                    and fields[1] in (which, "-") and fields[3].isdigit():
                found.append((path, int(fields[3])))
            elif line.startswith("DefaultLimitNOFILE="):
                soft, _, hard = line.partition("=")[2].partition(":")
                value = hard if which == "hard" and hard else soft
                if value.strip().isdigit():
                    found.append((path, int(value)))
    return found
