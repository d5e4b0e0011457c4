from __future__ import annotations

from collections.abc import Iterable, Sequence

from vfix.audit.drift import NCCL_ENV_OWNED, UNSET, split
from vfix.checks.base import Check, Subject
from vfix.facts.model import HostFacts
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

NCCL_CONF = "/etc/nccl.conf"


def nccl_setting(facts: HostFacts, name: str) -> tuple[str, str] | None:
    """(value, where) for an NCCL setting: the environment wins over /etc/nccl.conf, as in NCCL."""
    if name in facts.system.env:
        return facts.system.env[name], "environment"
    if name in facts.system.nccl_conf:
        return facts.system.nccl_conf[name], NCCL_CONF
    return None


class NcclEnv(Check):
    """No NCCL setting that cripples traffic is set; interface/HCA choices agree in a group."""

    id = "nccl-env"
    layer = Layer.COMMUNICATION
    severity = Severity.WARNING
    tags = ("nccl", "env")
    remediation = Remediation(role="nccl_env")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        for name, matcher in subject.settings.table("hazards").items():
            setting = nccl_setting(subject.facts, name)
            if setting is None or matcher.test(setting[0]):
                continue
            if name == "NCCL_IB_DISABLE" and not subject.facts.system.ib_devices:
                continue  # no HCA on this node: disabling IB changes nothing
            value, where = setting
            yield self.finding(
                subject,
                f"{name}={value} is set ({where}): {matcher.reason or 'a known hazard'}",
                sub="hazard",
                expected=f"{name} {matcher.describe()} or unset",
                observed=f"{name}={value}",
                evidence=[Evidence(source=where, lines=[f"{name}={value}"])],
                remediation=Remediation(role="nccl_env", vars={"nccl_env_remove": [name]})
                if where == NCCL_CONF
                else Remediation.by_hand(
                    f"Unset {name} where the serving processes get their environment "
                    "(systemd unit, container env, shell profile)."
                ),
            )

    def check_group(self, group: str, members: Sequence[Subject]) -> Iterable[Finding]:
        if len(members) < 2:
            return
        by_host = {m.host: m for m in members}
        for name in NCCL_ENV_OWNED:
            values = {m.host: (nccl_setting(m.facts, name) or (UNSET, ""))[0] for m in members}
            result = split(name, values)
            if result is None:
                continue
            for host, value in sorted(result.outliers.items()):
                yield self.finding(
                    by_host[host],
                    f"{name} is {value} here; group {group} majority is "
                    f"{result.describe_majority()}",
                    sub="differs",
                    expected=result.majority or "one value across the group",
                    observed=value,
                    evidence=[
                        Evidence(
                            source=f"environment / /etc/nccl.conf, group {group}",
                            lines=[f"{h}: {name}={v}" for h, v in sorted(values.items())],
                        )
                    ],
                    remediation=Remediation(
                        role="nccl_env", vars={"nccl_env_settings": {name: result.majority}}
                    )
                    if result.majority not in (None, UNSET)
                    else Remediation.by_hand(
                        f"Set {name} to the same value on every node of group {group}."
                    ),
                )
