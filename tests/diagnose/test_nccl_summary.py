"""The NCCL_DEBUG=INFO summary on real captures and on NCCL's own line formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from vfix.diagnose import diagnose_paths, diagnose_text
from vfix.diagnose.nccl import transport_of

LOGS = Path(__file__).resolve().parent.parent / "data" / "logs"


def test_real_h200_single_gpu_run() -> None:
    result = diagnose_paths([LOGS / "heldout" / "h200-nccl-allreduce-debug-ok.log"])[0]
    summary = result.nccl
    assert summary is not None
    assert summary.version == "2.28.9+cuda13.0"
    assert summary.cuda_driver == "13000"
    assert summary.ib_found is False
    assert summary.interfaces == ("eth0:192.0.2.2",)
    assert summary.network == "Socket"
    assert (summary.ranks_started, summary.ranks_completed) == (1, 1)
    assert summary.last_line is not None and summary.last_line.line == 115
    assert "Closing env plugin" in summary.last_line.text


def test_transports_per_channel_and_where_the_log_stops() -> None:
    result = diagnose_paths([LOGS / "dev" / "dynamo-1408-shm-tp2.log"])[0]
    summary = result.nccl
    assert summary is not None
    assert summary.transports == {"P2P/IPC": 4}
    assert summary.channels == {"00": ["P2P/IPC"], "01": ["P2P/IPC"]}
    assert summary.last_line is not None and summary.last_line.line == 15
    assert summary.warnings and "failed to extend" in summary.warnings[0].text


def test_multi_node_ib_run() -> None:
    log = "\n".join([
        "node1:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
        "node1:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
        "node1:10:20 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO];"
        " OOB eth0:10.0.0.1<0>",
        "node1:10:20 [0] NCCL INFO Using network IB",
        "node1:10:20 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 1000 - Init START",
        "node1:10:20 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
        "node1:10:20 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA",
        "node1:10:20 [0] NCCL INFO Channel 01/0 : 3[1] -> 0[0] [receive] via NET/IB/1",
        "node1:10:20 [0] NCCL INFO Channel 01 : 0[1000] -> 1[2000] via SHM/direct/direct",
        "node1:10:20 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE",
    ])
    summary = diagnose_text(log).nccl
    assert summary is not None
    assert summary.ib_found is True
    assert summary.ib_devices == ("mlx5_0:1/IB", "mlx5_1:1/RoCE")
    assert summary.network == "IB"
    assert summary.transports == {"NET/IB": 2, "P2P/CUMEM": 1, "SHM": 1}
    assert summary.channels == {"00": ["NET/IB", "P2P/CUMEM"], "01": ["NET/IB", "SHM"]}
    assert summary.interfaces == ("eth0:10.0.0.1",)
    assert (summary.ranks_started, summary.ranks_completed) == (1, 1)


@pytest.mark.parametrize(("via", "transport"), [
    ("P2P/IPC", "P2P/IPC"), ("P2P/IPC/read", "P2P/IPC"), ("P2P/direct pointer", "P2P/direct"),
    ("SHM/direct/direct", "SHM"), ("NET/Socket/0", "NET/Socket"), ("NET/IB/0/GDRDMA", "NET/IB"),
    ("direct shared memory", "SHM"),
])
def test_transport_names(via: str, transport: str) -> None:
    assert transport_of(via) == transport


def test_no_nccl_lines_no_summary() -> None:
    assert diagnose_text("just a line\n").nccl is None


def test_sockets_in_a_communicator_of_several_nodes_beside_verbs_devices_leave_the_fabric() -> None:
    log = ("gb-r01-c01:71204:71204 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
           "gb-r01-c01:71204:71288 [0] NCCL INFO Using network Socket\n"
           "gb-r01-c01:71204:71288 [0] NCCL INFO comm 0x5d8e1f40 rank 0 nRanks 144 nNodes 36 "
           "localRanks 4 localRank 0 MNNVL 1\n"
           "$ ls /dev/infiniband\n"
           "issm0  rdma_cm  umad0  uverbs0  uverbs1\n")
    result = diagnose_text(log)
    assert (result.layer, result.root_cause) == ("communication", "ib_unavailable")
    one_node = log.replace("nRanks 144 nNodes 36", "nRanks 4 nNodes 1")
    assert diagnose_text(one_node).root_cause == "none"
