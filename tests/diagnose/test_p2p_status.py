"""GPU pairs without peer-to-peer access, read from nvidia-smi topo -p2p: the run copies through
host memory and is slower, not failed. The NVLink, atomics and prop matrices read NS on every
PCIe machine, and GeForce cards have no P2P by design."""

from __future__ import annotations

from vfix.diagnose import diagnose_text

LEGEND = ("\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n  CNS  = Chipset not supported\n"
          "  GNS  = GPU not supported\n  TNS  = Topology not supported\n  NS   = Not supported\n"
          "  U    = Unknown\n")


def matrix(capability: str, status: str, gpus: int = 4) -> str:
    """The matrix nvidia-smi topo -p2p prints, every pair reading `status`."""
    header = " \t" + "".join(f"GPU{n}\t" for n in range(gpus)) + "\n"
    rows = "".join(f" GPU{row}\t" + "".join("X\t" if row == column else f"{status}\t"
                                            for column in range(gpus)) + "\n"
                   for row in range(gpus))
    return f"$ nvidia-smi topo -p2p {capability}\n{header}{rows}{LEGEND}"


def test_a_vm_without_p2p_between_its_gpus() -> None:
    result = diagnose_text(matrix("r", "CNS"))
    assert result.root_cause == "p2p_unsupported_or_blocked"
    assert result.candidates[0].signature == "p2p-matrix-blocked"
    assert "(CNS)" in result.candidates[0].explanation
    assert diagnose_text(matrix("w", "NS", gpus=2)).root_cause == "p2p_unsupported_or_blocked"


def test_a_matrix_pasted_without_its_command_counts() -> None:
    log = matrix("r", "TNS").split("\n", 1)[1]
    assert diagnose_text(log).root_cause == "p2p_unsupported_or_blocked"


def test_every_pair_ok_is_healthy() -> None:
    assert diagnose_text(matrix("r", "OK")).root_cause == "none"


def test_no_nvlink_or_atomics_on_pcie_is_not_a_fault() -> None:
    assert diagnose_text(matrix("n", "NS")).root_cause == "none"
    assert diagnose_text(matrix("a", "NS")).root_cause == "none"
    # the read matrix after them still counts
    log = matrix("n", "NS") + matrix("r", "CNS")
    assert diagnose_text(log).root_cause == "p2p_unsupported_or_blocked"


def test_geforce_cards_have_no_p2p_by_design() -> None:
    log = "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-5b1c0e2a)\n" + matrix("r", "CNS", gpus=2)
    assert diagnose_text(log).root_cause == "none"


TOPO_NVLINK = ("        GPU0    GPU1    GPU2    GPU3\n"
               "GPU0     X      NV18    NV18    NV18\n"
               "GPU1    NV18     X      NV18    NV18\n")
TOPO_PCIE = ("        GPU0    GPU1\n"
             "GPU0     X      PHB\n"
             "GPU1    PHB      X\n")
P2P_OFF = "host:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n"
STEPS = "iter: 19  total_loss: 58.21  time: 1.9441\niter: 39  total_loss: 51.77  time: 1.9388\n"


def test_p2p_turned_off_on_nvlink_gpus_slows_the_run() -> None:
    result = diagnose_text(P2P_OFF + STEPS + TOPO_NVLINK)
    assert result.root_cause == "p2p_unsupported_or_blocked"
    assert result.candidates[0].signature == "p2p-disabled-over-nvlink"
    assert result.candidates[0].evidence[0].line == 1


def test_p2p_turned_off_on_pcie_gpus_is_a_workaround_not_a_fault() -> None:
    assert diagnose_text(P2P_OFF + STEPS + TOPO_PCIE).root_cause == "none"
    assert diagnose_text(P2P_OFF.replace("to 1", "to 0") + STEPS + TOPO_NVLINK).root_cause == (
        "none")
