from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

MISMATCH_TEXT = "version mismatch"


class DriverMismatch(Check):
    """The loaded NVIDIA kernel module matches the userspace driver (no reboot pending)."""

    id = "driver-mismatch"
    layer = Layer.VERSIONS
    severity = Severity.ERROR
    tags = ("driver",)
    # Reloading the modules loads the installed driver's module (the role refuses while any
    # process holds a GPU); a reboot does the same where the modules cannot be unloaded.
    remediation = Remediation(role="gpu_recovery", vars={"gpu_recovery_action": "reload"})

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        versions = subject.facts.versions
        module, userspace = versions.kernel_module, versions.nvml_driver
        if module and userspace and module != userspace:
            yield self.finding(
                subject,
                f"kernel module {module} differs from userspace driver {userspace}: reboot pending",
                sub="mismatch",
                expected=module,
                observed=userspace,
                evidence=[
                    cite(versions.sources, "kernel_module", "/proc/driver/nvidia/version", module),
                    cite(versions.sources, "nvml_driver", "nvidia-smi", userspace),
                ],
            )
            return
        nvml_errors = [e for e in subject.facts.errors if MISMATCH_TEXT in e.reason.lower()]
        if nvml_errors:
            yield self.finding(
                subject,
                "NVML refuses to start: driver/library version mismatch (reboot pending)",
                sub="mismatch",
                expected=module or "matching driver",
                observed="NVML: Driver/library version mismatch",
                evidence=[Evidence(source=e.section, lines=[e.reason]) for e in nvml_errors],
            )
