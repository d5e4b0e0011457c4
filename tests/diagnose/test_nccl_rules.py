"""Causes read off the NCCL summary: a host-only interface, one address on two hosts, ranks on
different NCCL releases, ranks with different protocols, two ranks on one GPU, ranks whose
collectives drifted apart, traffic between nodes over sockets beside a working fabric."""

from __future__ import annotations

import pytest

from vfix.diagnose import diagnose_text
from vfix.diagnose.nccl_rules import host_only

SETUP = (
    "ip-1:14605:14673 [0] NCCL INFO Bootstrap : Using [0]ens5:172.31.0.137<0> "
    "[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>\n"
    "ip-1:14605:14673 [0] NCCL INFO NET/Socket : Using [0]ens5:172.31.0.137<0> "
    "[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>\n"
    "ip-1:14605:14673 [0] NCCL INFO Using network Socket\n"
    "ip-1:14605:14688 [0] NCCL INFO Channel 00/02 :    0   1\n"
)


@pytest.mark.parametrize(("device", "expected"), [
    ("veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783", True),
    ("docker0:172.17.0.1", True),
    ("cni0:10.244.0.1", True),
    ("eth0:fe80::1%eth0", True),
    ("pod-id-link0:169.254.170.23", True),
    ("ens5:172.31.0.137", False),
    ("ib0:10.0.0.1", False),
    ("bond0:192.168.1.2", False),
])
def test_host_only_interfaces(device: str, expected: bool) -> None:
    assert host_only(device) is expected


def test_a_hang_over_a_veth_interface_blames_the_interface() -> None:
    result = diagnose_text(SETUP)
    assert result.root_cause == "socket_ifname_wrong"
    assert result.candidates[0].evidence[0].line == 1
    assert "veth75fa783" in result.candidates[0].explanation
    assert {c.root_cause for c in result.candidates} >= {"p2p_unsupported_or_blocked"}


def test_a_socket_error_over_docker0_blames_the_interface() -> None:
    log = ("host:1:2 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1<0>\n"
           "RuntimeError: NCCL error: remote process exited or there was a network error\n")
    assert diagnose_text(log).root_cause == "socket_ifname_wrong"


_REFUSED = ("RuntimeError: NCCL error: remote process exited or there was a network error, "
            "ncclOsSocketStartConnect: connect to 172.17.0.2<43127> returned Connection refused\n")


def test_one_address_on_two_hosts_blames_the_interface() -> None:
    bootstrap = "{host}:41:41 [0] NCCL INFO Bootstrap: Using eth0:{address}<0>\n"
    shared = (bootstrap.format(host="7d41b0c2e5aa", address="172.17.0.2")
              + bootstrap.format(host="5f2c8e7a91d3", address="172.17.0.2"))
    result = diagnose_text(shared + _REFUSED)
    assert (result.root_cause, result.candidates[0].signature) == (
        "socket_ifname_wrong", "nccl-address-shared-by-hosts")
    assert [e.line for e in result.candidates[0].evidence] == [1, 2]
    # each host its own address, or one host's ranks repeating theirs: no such cause
    own = (bootstrap.format(host="gpu-a12", address="10.0.0.12")
           + bootstrap.format(host="gpu-a13", address="10.0.0.13"))
    same_host = shared.replace("5f2c8e7a91d3", "7d41b0c2e5aa")
    for log in (own, same_host):
        assert diagnose_text(log + _REFUSED).root_cause != "socket_ifname_wrong"


def test_a_healthy_run_over_veth_is_not_a_failure() -> None:
    log = SETUP + "ip-1:14605:14688 [0] NCCL INFO comm 0x1 rank 0 nranks 2 - Destroy COMPLETE\n"
    assert diagnose_text(log).root_cause == "none"


def test_a_failure_of_another_layer_keeps_its_cause() -> None:
    log = SETUP + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    assert diagnose_text(log).root_cause == "gpu_oom"


def test_routable_interfaces_leave_the_hang_to_p2p() -> None:
    log = SETUP.replace("[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>", "")
    assert diagnose_text(log).root_cause == "p2p_unsupported_or_blocked"


DRIFT = (
    "node1:1:1 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.30<0>\n"
    "NCCL version 2.14.3+cuda11.7\n"
    "node2:2:2 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.31<0>\n"
    "NCCL version 2.19.3+cuda12.3\n"
    "node2:2:3 [0] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 0 busId 30 - Init START\n"
)


def test_ranks_on_different_nccl_releases_fail_on_the_drift() -> None:
    result = diagnose_text(DRIFT + "RuntimeError: NCCL error: internal error\n")
    assert (result.layer, result.root_cause) == ("versions", "nccl_version_drift")
    top = result.candidates[0]
    assert [e.line for e in top.evidence] == [2, 4]
    assert "(2.14.3, 2.19.3)" in top.explanation


def test_a_hang_with_two_nccl_releases_is_the_drift() -> None:
    assert diagnose_text(DRIFT).root_cause == "nccl_version_drift"


def test_one_release_or_a_healthy_run_is_no_drift() -> None:
    # torch's error line names the release without the CUDA suffix: the same release
    same = DRIFT.replace("2.14.3+cuda11.7", "2.19.3+cuda12.3") + (
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:93, invalid usage"
        " (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n")
    assert diagnose_text(same).root_cause == "nccl_internal_error"
    ended = DRIFT + "node2:2:3 [0] NCCL INFO comm 0x1 rank 1 nranks 2 - Destroy COMPLETE\n"
    assert diagnose_text(ended).root_cause == "none"


PROTOCOLS = (
    "vm:2470:2470 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n"
    "vm:2197:2197 [0] NCCL INFO NCCL_PROTO set by environment to LL\n"
    "vm:2197:2197 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0\n"
)
INTERRUPTED = "(EngineCore pid=2226) KeyboardInterrupt\n"


def test_ranks_with_different_nccl_protocols_hang_on_the_mismatch() -> None:
    result = diagnose_text(PROTOCOLS + INTERRUPTED)
    assert (result.layer, result.root_cause) == ("communication", "collective_mismatch")
    top = result.candidates[0]
    assert [e.line for e in top.evidence] == [1, 2]
    assert "NCCL_PROTO=simple, NCCL_PROTO=ll" in top.explanation


def test_ranks_with_one_nccl_protocol_are_no_mismatch() -> None:
    same = PROTOCOLS.replace("to LL", "to Simple")
    assert diagnose_text(same + INTERRUPTED).root_cause != "collective_mismatch"
    ended = PROTOCOLS + "vm:2197:2197 [0] NCCL INFO comm 0x1 rank 1 nranks 2 - Destroy COMPLETE\n"
    assert diagnose_text(ended).root_cause == "none"


def _init(pid: int, rank: int, stage: str) -> str:
    return (f"vm:{pid}:{pid} [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank {rank} nranks 2 "
            f"cudaDev 0 busId 60 commId 0x50 - Init {stage}\n")


ONE_SIDED = (_init(668, 0, "START") + _init(669, 1, "START")
             + "vm:669:669 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n"
             + _init(669, 1, "COMPLETE") + _init(668, 0, "COMPLETE"))
TORCHRUN_INTERRUPTED = ("W1203 23:18:45.342000 530 torch/distributed/elastic/agent/server/"
                        "api.py:739] Received 2 death signal, shutting down workers\n")


def test_a_rank_without_the_protocol_its_peer_set_is_a_mismatch() -> None:
    result = diagnose_text(ONE_SIDED + TORCHRUN_INTERRUPTED)
    assert result.root_cause == "collective_mismatch"
    assert "NCCL_PROTO=simple, NCCL_PROTO unset" in result.candidates[0].explanation
    assert {e.line for e in result.candidates[0].evidence} == {1, 3}


def test_a_rank_whose_init_start_was_left_out_is_cited_by_its_init_complete() -> None:
    """A log grepped for the settings and Init COMPLETE (no START lines): the rank that did not
    print the setting is still one that left it unset."""
    grepped = ("vm:669:669 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n"
               + _init(669, 1, "COMPLETE") + _init(668, 0, "COMPLETE"))
    result = diagnose_text(grepped + TORCHRUN_INTERRUPTED)
    assert result.root_cause == "collective_mismatch"
    assert {e.line for e in result.candidates[0].evidence} == {1, 3}


def test_a_rank_that_never_completed_init_is_not_counted_as_unset() -> None:
    log = ONE_SIDED.replace(_init(668, 0, "COMPLETE"), "")
    assert diagnose_text(log + TORCHRUN_INTERRUPTED).root_cause != "collective_mismatch"


def _init_start(host: str, pid: int, rank: int, bus: str, comm: str = "0xaa9b") -> str:
    return (f"{host}:{pid}:{pid} [0] NCCL INFO ncclCommInitRank comm 0x1 rank {rank} nranks 2 "
            f"cudaDev 0 nvmlDev 0 busId {bus} commId {comm} - Init START\n")


def test_two_ranks_on_one_gpu_are_a_duplicate_assignment() -> None:
    log = _init_start("pod-0", 42, 0, "100000") + _init_start("pod-0", 43, 1, "100000")
    result = diagnose_text(log)
    assert result.root_cause == "duplicate_gpu_assignment"
    assert [e.line for e in result.candidates[0].evidence] == [1, 2]


@pytest.mark.parametrize("second", [
    _init_start("pod-0", 43, 1, "200000"),  # another GPU
    _init_start("pod-1", 43, 1, "100000"),  # another host
    _init_start("pod-0", 43, 1, "100000", comm="0xbeef"),  # another communicator
    _init_start("pod-0", 42, 0, "100000"),  # the same rank again
])
def test_ranks_on_their_own_gpus_are_not_duplicates(second: str) -> None:
    log = _init_start("pod-0", 42, 0, "100000") + second
    assert diagnose_text(log).root_cause != "duplicate_gpu_assignment"


def test_ranks_that_complete_init_on_one_gpu_are_not_duplicates() -> None:
    """NCCL refuses two ranks on one GPU of one host during init: both reaching Init COMPLETE
    means NCCL saw two hosts (NCCL_HOSTID, containers with their own host names). Only one
    completing is still a duplicate."""
    start = _init_start("vm", 42, 0, "60") + _init_start("vm", 43, 1, "60")
    complete = [_init_start("vm", 42, 0, "60").replace("START", "COMPLETE"),
                _init_start("vm", 43, 1, "60").replace("START", "COMPLETE")]
    assert diagnose_text(start + "".join(complete)).root_cause != "duplicate_gpu_assignment"
    assert diagnose_text(start + complete[0]).root_cause == "duplicate_gpu_assignment"


def test_ranks_on_one_gpu_whose_init_nccl_failed_otherwise_are_not_duplicates() -> None:
    """NCCL names a duplicate itself ("Duplicate GPU detected"): an init it failed with
    another WARN did not see one."""
    start = _init_start("vm", 42, 0, "60") + _init_start("vm", 43, 1, "60")
    warn = "vm:42:42 [0] graph/xml.cc:133 NCCL WARN XML Parse error : expecting '<', got ' '\n"
    failure = "RuntimeError: NCCL error: internal error - please report this issue\n"
    assert diagnose_text(start + warn + failure).root_cause == "nccl_topo_file_invalid"


def test_ranks_on_one_gpu_stuck_retrying_a_peer_are_stuck_on_the_network() -> None:
    """An init that stops while a rank retries connecting to its peer is not silent: the peer's
    address is unreachable from it, whatever the two ranks' GPUs."""
    start = _init_start("vm", 42, 0, "60") + _init_start("vm", 43, 1, "60")
    retries = "".join(f"vm:43:43 [0] NCCL INFO socketPollConnect: connect to 10.88.0.1<49519> "
                      f"returned No route to host, retrying ({n}/34) after sleep for {n}00 msec\n"
                      for n in range(1, 4))
    assert diagnose_text(start + retries).root_cause == "socket_ifname_wrong"


def _timeout(rank: int, enqueued: int, completed: int) -> str:
    return (f"[rank{rank}]:[E1204 12:17:02.974 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID "
            f"0(default_pg) Rank {rank}] Received a dump signal due to a collective timeout. "
            f"Last enqueued NCCL work: {enqueued}, last completed NCCL work: {completed}.\n")


WATCHDOG = ("[rank1]:[E1204 12:16:57.8 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=4, OpType=RECV, NumelIn=4194304, "
            "NumelOut=4194304, Timeout(ms)=20000) ran for 20093 milliseconds before timing out.\n")


def test_ranks_whose_completed_collectives_drift_apart_ran_different_ones() -> None:
    result = diagnose_text(WATCHDOG + _timeout(1, 4, 3) + _timeout(0, 6, 6))
    assert result.root_cause == "collective_mismatch"
    assert [e.line for e in result.candidates[0].evidence] == [2, 3]


@pytest.mark.parametrize(("behind", "ahead"), [(15, 15), (15, 16)])
def test_a_stalled_rank_leaves_its_peers_at_the_same_collective(behind: int, ahead: int) -> None:
    log = WATCHDOG + _timeout(1, 15, behind) + _timeout(0, 16, ahead)
    assert diagnose_text(log).root_cause == "nccl_timeout_rank_died"


def test_progress_of_different_process_groups_is_not_compared() -> None:
    log = WATCHDOG + _timeout(1, 4, 3) + _timeout(0, 9, 9).replace("GUID 0(", "GUID 5(")
    assert diagnose_text(log).root_cause == "nccl_timeout_rank_died"


def _watchdog(rank: int, sequence: int, operation: str, group: str = "0",
              size: int = 88080384) -> str:
    return (f"[rank{rank}]:[E730 02:22:05.1 ProcessGroupNCCL.cpp:702] [PG ID {group} PG GUID "
            f"{group}(default_pg) Rank {rank}] Watchdog caught collective operation timeout: "
            f"WorkNCCL(SeqNum={sequence}, OpType={operation}, NumelIn={size}, "
            f"NumelOut=5505024, Timeout(ms)=600000) ran for 600012 milliseconds before timing "
            f"out.\n")


def test_ranks_timed_out_in_different_operations_at_one_step_ran_different_collectives() -> None:
    log = _watchdog(8, 1288, "_REDUCE_SCATTER_BASE") + _watchdog(0, 1288, "ALLGATHER_BASE")
    result = diagnose_text(log)
    assert result.root_cause == "collective_mismatch"
    assert [e.line for e in result.candidates[0].evidence] == [1, 2]


def test_ranks_timed_out_in_one_operation_of_different_sizes_ran_different_collectives() -> None:
    # an uneven last batch: rank 3 gathers fewer elements than the others
    log = (_watchdog(0, 11347, "_ALLGATHER_BASE", size=262144)
           + _watchdog(3, 11347, "_ALLGATHER_BASE", size=217088))
    assert diagnose_text(log).root_cause == "collective_mismatch"


def test_all_to_all_inputs_may_differ_in_size() -> None:
    log = (_watchdog(0, 40, "ALLTOALL_BASE", size=262144)
           + _watchdog(3, 40, "ALLTOALL_BASE", size=217088))
    assert diagnose_text(log).root_cause == "nccl_timeout_rank_died"


@pytest.mark.parametrize("other", [
    _watchdog(0, 1288, "_REDUCE_SCATTER_BASE"),  # the same collective: a peer stalled or died
    _watchdog(0, 1290, "ALLGATHER_BASE"),  # another step
    _watchdog(0, 1288, "ALLGATHER_BASE", group="5"),  # another process group
])
def test_timeouts_in_one_collective_or_apart_are_the_timeout(other: str) -> None:
    log = _watchdog(8, 1288, "_REDUCE_SCATTER_BASE") + other
    assert diagnose_text(log).root_cause == "nccl_timeout_rank_died"


def test_a_send_and_its_receive_at_one_step_are_one_transfer() -> None:
    log = _watchdog(17, 611904, "SEND") + _watchdog(33, 611904, "RECV")
    assert diagnose_text(log).root_cause == "nccl_timeout_rank_died"


_IB_USING = ("h1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_10:1/IB "
             "[RO]; OOB bond0:10.90.12.12<0>\n")
_TRAINING = "step 10 | loss 2.31\nstep 20 | loss 2.29\n"


def test_an_hca_list_naming_a_device_nccl_did_not_use_leaves_a_rail_unused() -> None:
    log = ("h1:1:2 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_3,mlx5_10,mxl5_11\n"
           + _IB_USING + _TRAINING)
    result = diagnose_text(log)
    assert (result.root_cause, result.candidates[0].signature) == (
        "ib_hca_unusable", "nccl-hca-list-names-missing-device")
    assert "names mxl5_11," in result.candidates[0].explanation


@pytest.mark.parametrize("hca", [
    "mlx5_0,mlx5_3,mlx5_10",  # each used
    "mlx5",  # a prefix of them all
    "^mlx5_4",  # an exclusion names what is not used
    "=mlx5_0:1,mlx5_3:1,mlx5_10:1",  # exact names with their ports
])
def test_an_hca_list_nccl_used_whole_is_healthy(hca: str) -> None:
    log = f"h1:1:2 [0] NCCL INFO NCCL_IB_HCA set to {hca}\n" + _IB_USING + _TRAINING
    assert diagnose_text(log).root_cause == "none"


def test_an_exact_hca_list_does_not_match_by_prefix() -> None:
    log = "h1:1:2 [0] NCCL INFO NCCL_IB_HCA set to =mlx5_1\n" + _IB_USING + _TRAINING
    assert diagnose_text(log).root_cause == "ib_hca_unusable"


_OVER_SOCKETS = (  # two nodes of a finished nccl-tests run, NCCL_IB_DISABLE=1 from a module
    "r14-n03:201844:202101 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
    "r14-n03:201844:202101 [0] NCCL INFO NET/Socket : Using [0]bond0:10.14.3.3<0>\n"
    "r14-n03:201844:202101 [0] NCCL INFO Using network Socket\n"
    "r14-n03:201844:202118 [0] NCCL INFO Channel 00/0 : 9[1] -> 0[0] [receive] via NET/Socket/0\n"
    "# Avg bus bandwidth    : 5.13447\n"
)


def test_sockets_between_nodes_beside_an_active_rdma_port_leave_the_fabric_unused() -> None:
    ibstat = "CA 'mlx5_0'\tState: Active\tRate: 400\n"
    result = diagnose_text(_OVER_SOCKETS + "$ ibstat | paste - - -\n" + ibstat)
    assert (result.root_cause, result.candidates[0].signature) == (
        "ib_unavailable", "nccl-sockets-beside-rdma")
    assert [e.line for e in result.candidates[0].evidence] == [3, 7]


@pytest.mark.parametrize("fabric_line", [
    "",  # no fabric in the log: sockets may be all the cluster has
    "\t\tPhysical state: LinkUp\n",  # a port's cable, not the port being up
])
def test_sockets_between_nodes_alone_are_no_failure(fabric_line: str) -> None:
    assert diagnose_text(_OVER_SOCKETS + fabric_line).root_cause == "none"


def test_sockets_within_one_node_beside_an_active_rdma_port_are_no_failure() -> None:
    one_node = _OVER_SOCKETS.replace("via NET/Socket/0", "via P2P/CUMEM")
    assert diagnose_text(one_node + "\t\tstate:\t\t\tPORT_ACTIVE (4)\n").root_cause == "none"


_IB_DEVICE = ("r3-n02:40121:40311 [0] NCCL INFO NET/IB: [{i}] mlx5_{i}:uverbs{i}:1/RoCE "
              "provider=Mlx5 speed={speed} context=0x5609d91b7e50 pciPath=/sys/devices/x ar=0\n")


def test_one_nic_at_a_quarter_of_the_others_rate_is_a_slow_rail() -> None:
    speeds = [400000, 400000, 100000, 400000]
    log = "".join(_IB_DEVICE.format(i=i, speed=s) for i, s in enumerate(speeds))
    result = diagnose_text(log + "# Avg bus bandwidth    : 96.2\n")
    assert (result.root_cause, result.candidates[0].signature) == (
        "ib_hca_unusable", "nccl-slow-rail")
    assert result.candidates[0].evidence[0].line == 3
    assert "mlx5_2 at 100 Gb/s" in result.candidates[0].explanation


def test_a_port_whose_rate_came_back_up_is_no_slow_rail() -> None:
    log = (_IB_DEVICE.format(i=0, speed=400000) + _IB_DEVICE.format(i=1, speed=200000)
           + "r3-n02:40121:40311 [0] NCCL INFO NET/IB : mlx5_1:1 speed change detected: "
             "200000 -> 400000 Mbps\n")
    assert diagnose_text(log).root_cause == "none"


def test_a_port_that_shifted_down_while_the_job_ran_is_a_slow_rail() -> None:
    log = ("b200-r2-07:190640:190671 [7] NCCL INFO NET/IB : mlx5_7:1 speed change detected: "
           "400000 -> 200000 Mbps\n")
    assert diagnose_text(log).root_cause == "ib_hca_unusable"


def test_sockets_between_two_hosts_without_libibverbs_beside_rdma_devices_miss_rdma_core() -> None:
    log = ("head-7xk2p:3311:3502 [0] NCCL INFO Count not open libibverbs.so.1\n"
           "head-7xk2p:3311:3502 [0] NCCL INFO Using network Socket\n"
           "worker-4tq8m:2981:3170 [0] NCCL INFO Using network Socket\n"
           "$ ls /dev/infiniband\n"
           "issm0  issm1  rdma_cm  umad0  umad1  uverbs0  uverbs1\n")
    result = diagnose_text(log)
    assert (result.root_cause, result.candidates[0].signature) == (
        "rdma_device_missing", "nccl-sockets-beside-rdma")
    assert [e.line for e in result.candidates[0].evidence] == [2, 1, 5]


def test_a_verbs_provider_warning_names_why_the_fabric_went_unused() -> None:
    log = ("libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 8 (supports 1 to"
           " 7) for device /sys/class/infiniband/bnxt_re0\n" + _OVER_SOCKETS
           + "rdma_cm  uverbs0  uverbs1\n")
    assert diagnose_text(log).candidates[0].signature == "rdma-device-missing"


_GDR_OFF = ("gpu-h09:51022:51104 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
            "'mlx5_0' (no module)\n")
_OVER_IB = ("gpu-h09:51022:51110 [0] NCCL INFO Channel 00/0 : 9[1] -> 0[0] [receive] via NET/IB/0\n"
            "gpu-h09:51022:51022 [0] NCCL INFO comm 0x55d0 rank 0 nranks 16 cudaDev 0 busId 18000 "
            "- Destroy COMPLETE\n")  # the run reached its end: no hang


def test_ib_without_a_gpu_direct_module_stages_through_host_memory() -> None:
    result = diagnose_text(_GDR_OFF + _OVER_IB)
    assert (result.status.value, result.root_cause) == (
        "cause_found", "ib_memory_registration_failed")
    assert result.candidates[0].evidence[0].line == 1


@pytest.mark.parametrize("log", [
    _GDR_OFF,  # no channel between nodes over IB: nothing was staged
    # a topology choice for one GPU, not a missing module
    "h:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1 / HCA 0 (distance 5 > 4)\n" + _OVER_IB,
    _OVER_IB.replace("NET/IB/0", "NET/IB/0/GDRDMA"),
])
def test_gpu_direct_rdma_in_use_or_not_needed_is_no_slowdown(log: str) -> None:
    assert diagnose_text(log).status.value == "no_failure"


def test_sockets_over_slingshot_nics_leave_the_fabric_unused() -> None:
    log = ("nid001401:60214:60392 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. "
           "Using internal network plugin.\n"
           "nid001401:60214:60392 [0] NCCL INFO NET/IB : No device found.\n"
           "nid001401:60214:60392 [0] NCCL INFO NET/Socket : Using [0]hsn0:10.150.2.201<0> "
           "[1]hsn1:10.150.2.202<0>\n"
           "nid001401:60214:60392 [0] NCCL INFO Using network Socket\n"
           "nid001401:60214:60392 [0] NCCL INFO comm 0x7e1d3a0 rank 0 nRanks 16 nNodes 4 "
           "localRanks 4 localRank 0 MNNVL 0\n"
           "nid001401:60214:60214 [0] NCCL INFO comm 0x7e1d3a0 rank 0 nranks 16 cudaDev 0 "
           "busId 3000 - Destroy COMPLETE\n")
    assert diagnose_text(log).root_cause == "ib_unavailable"
    assert diagnose_text(log.replace("hsn", "eth")).status.value == "no_failure"
