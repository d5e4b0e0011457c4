from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from vfix.checks.base import Check, Subject, cite, gpu_label
from vfix.facts.model import Gpu
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


def is_idle(gpu: Gpu) -> bool:
    return any("idle" in reason.lower() for reason in gpu.throttle_reasons)


def link_evidence(gpu: Gpu) -> list[Evidence]:
    return [
        cite(
            gpu.sources,
            ("pcie_gen_current", "pcie_gen_max", "pcie_width_current", "pcie_width_max"),
            "nvidia-smi -q (GPU Link Info)",
            f"gen {gpu.pcie_gen_current}/{gpu.pcie_gen_max}, "
            f"width x{gpu.pcie_width_current}/x{gpu.pcie_width_max}",
        )
    ]


class PcieLink(Check):
    """Every GPU's PCIe link runs at its maximum width, and at its maximum generation under load."""

    id = "pcie-link"
    layer = Layer.COMMUNICATION
    severity = Severity.WARNING
    tags = ("gpu", "pci")
    remediation = Remediation.by_hand(
        "A link trained below its width is a seating, riser or slot problem: reseat the GPU or "
        "riser, check the BIOS slot settings (bifurcation, gen), compare "
        "`nvidia-smi -q -d PCI` under load, and move or RMA the card if it persists."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        flag_idle_gen = bool(subject.settings.value("flag_gen_when_idle", False))
        for gpu in subject.facts.gpus:
            found = partial(self.finding, subject, evidence=link_evidence(gpu))
            width, width_max = gpu.pcie_width_current, gpu.pcie_width_max
            if width is not None and width_max is not None and width < width_max:
                yield found(f"{gpu_label(gpu)} PCIe link is x{width}, the GPU supports "
                            f"x{width_max}", sub="width", expected=f"x{width_max}",
                            observed=f"x{width}")
            gen, gen_max = gpu.pcie_gen_current, gpu.pcie_gen_max
            if gen is None or gen_max is None or gen >= gen_max:
                continue
            if is_idle(gpu) and not flag_idle_gen:
                continue  # idle GPUs downtrain their link to save power: expected
            yield found(f"{gpu_label(gpu)} PCIe link is gen{gen} while busy, max gen{gen_max}",
                        sub="gen", expected=f"gen{gen_max}", observed=f"gen{gen}")
