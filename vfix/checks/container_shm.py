from __future__ import annotations

import json
from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.policy.matchers import parse_quantity
from vfix.vocabulary import Layer, Severity

DOCKER_DEFAULT_SHM = 64 * 1024**2


class ContainerShm(Check):
    """Where Docker runs, containers get enough /dev/shm (or the host IPC namespace) by default."""

    id = "container-shm"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("docker", "shm")
    remediation = Remediation.by_hand(
        'Set "default-shm-size": "16G" (or "default-ipc-mode": "host") in /etc/docker/daemon.json '
        "and restart dockerd, or start vLLM containers with --ipc=host / --shm-size=16g."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        docker = subject.facts.system.docker
        if not docker.present or subject.facts.system.virtualization.container:
            return  # inside a container, the daemon (and its daemon.json) lives elsewhere
        daemon = docker.daemon_json or {}
        if str(daemon.get("default-ipc-mode", "")).lower() == "host":
            return
        try:
            size = parse_quantity(daemon.get("default-shm-size", DOCKER_DEFAULT_SHM))
        except ValueError:
            size = 0.0
        matcher = subject.settings.matcher("default_shm_size", "ge")
        if matcher.test(size):
            return
        yield self.finding(
            subject,
            f"containers get {size / 1024**2:.0f} MiB of /dev/shm by default: NCCL and vLLM with "
            "TP>1 fail ('unhandled system error', bus error) unless run with --ipc=host",
            sub="small-default",
            expected=matcher.describe(),
            observed=f"{size:.0f} bytes",
            evidence=[
                Evidence(
                    source="/etc/docker/daemon.json",
                    lines=[json.dumps(daemon) if daemon else "(absent: Docker's 64M)"],
                )
            ],
        )
