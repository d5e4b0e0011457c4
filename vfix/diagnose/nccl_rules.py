"""Causes read off the NCCL_DEBUG=INFO summary rather than off one line.

- One address on two hosts: ranks of different hosts (their NCCL prefixes name them) that
  bootstrap from the same address use an address private to each container (Docker's bridge
  gives every node's first container 172.17.0.2), which no other node reaches.
- A host-only interface: NCCL picks every interface that is up, skipping only `lo` and
  `docker*` by default; on hosts with containers it can choose a veth/bridge/CNI interface or a
  link-local address (IPv6 fe80::, IPv4 169.254.x.x as on EKS's pod-identity link: only valid on
  one link), and ranks on other nodes never connect.
- NCCL version drift: ranks that load different NCCL releases (one node's wheel or libnccl2
  differs) must not share a communicator; NCCL 2.x refuses or hangs, often with a misleading
  error far from the cause.
- Ranks that set NCCL_PROTO or NCCL_ALGO differently: NCCL does not check that the ranks of a
  communicator agree, so their first collective hangs or fails with a size mismatch.
- Ranks that drifted apart: when a collective timed out, torch's flight recorder prints each
  rank's last completed collective; ranks two or more apart did not run the same collectives.
- An HCA list naming a device NCCL did not use: NCCL_IB_HCA entries that match none of the
  devices NCCL lists under "NET/IB : Using" (a typo such as mxl5_11, an HCA this node lacks) are
  dropped without a warning, and the GPUs meant for that rail share another.
- Sockets beside a working fabric: NCCL connected ranks of different nodes over TCP sockets
  while the log also shows an RDMA port up (ibstat, ibv_devinfo): IB was disabled by a setting
  (NCCL_IB_DISABLE in an image, a module, /etc/nccl.conf), or the container lacks the RDMA
  devices or the net plugin. Nothing fails; collectives run at a fraction of the fabric's speed.
- A slow rail: NCCL reports one IB device of a host at half the rate of its fastest or less
  ("speed=100000" beside "speed=400000"): that port trained at fewer lanes or a lower speed
  (a cable, a switch port) and every ring through it runs at its rate. Reported even when
  nothing failed.
- Two ranks on one GPU: two ranks of one communicator on the same host report the same GPU
  bus id in their "Init START" lines; NCCL refuses that ("Duplicate GPU detected").
Each is reported first when the run failed or hung between ranks; sockets beside a working
fabric also when nothing failed.
"""

from __future__ import annotations

import re

from vfix.diagnose.model import Candidate, Evidence

# Interfaces that exist only on this host: container veths, bridges, CNI/overlay devices.
_HOST_ONLY_NAME = re.compile(
    r"^(veth|docker|br-|virbr|cni|flannel|cali|lxc|tun|tap|vxlan|weave|kube|podman|cilium)")
_LINK_LOCAL = re.compile(r":fe80:|^fe80:|:169\.254\.", re.IGNORECASE)
INTERFACE_CONFIDENCE = 0.7
DRIFT_CONFIDENCE = 0.75
DUPLICATE_CONFIDENCE = 0.8
SETTINGS_CONFIDENCE = 0.75
HCA_LIST_CONFIDENCE = 0.75
SOCKETS_CONFIDENCE = 0.6


def _cause(signature: str, root_cause: str, evidence: tuple[Evidence, ...], confidence: float,
           *, explanation: str, fix: str, role: str | None, check: str,
           layer: str = "communication") -> Candidate:
    """A cause read off the summary, citing `evidence` (most are communication's)."""
    return Candidate.rule_cause(signature, layer, root_cause, confidence, evidence,
                                explanation=explanation, fix=fix, role=role, check=check)


def host_only(device: str) -> bool:
    """'veth7:fe80::14ad%veth7' or 'docker0:172.17.0.1' -> True; 'ens5:10.0.0.2' -> False."""
    name, _, address = device.partition(":")
    return bool(_HOST_ONLY_NAME.match(name) or _LINK_LOCAL.search(":" + address))


def interface_candidate(evidence: Evidence, devices: tuple[str, ...]) -> Candidate:
    chosen = ", ".join(devices)
    return _cause(
        "nccl-host-only-interface", "socket_ifname_wrong", (evidence,), INTERFACE_CONFIDENCE,
        explanation=f"NCCL bootstraps/sends over {chosen}: a container, bridge or link-local "
                    "interface that ranks on other nodes cannot reach, so connections between "
                    "nodes fail or hang.",
        fix="Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to the routable cluster "
            "interface, e.g. NCCL_SOCKET_IFNAME=ens5 or =^veth,docker,lo.",
        role="nccl_env",
        check="ip -br addr on every node: which interface carries the cluster network")


def shared_address_candidate(first: Evidence, second: Evidence, device: str) -> Candidate:
    return _cause(
        "nccl-address-shared-by-hosts", "socket_ifname_wrong", (first, second),
        INTERFACE_CONFIDENCE,
        explanation=f"Ranks on two different hosts use the same address, {device}, for NCCL: an "
                    "address each container or pod has for itself (a Docker bridge, a NAT'd "
                    "network), not one the other node can reach, so connections between nodes "
                    "fail or reach the wrong peer.",
        fix="Give the ranks the node's routable network (docker run --network=host, "
            "hostNetwork or a secondary RDMA/host network for the pods) and set "
            "NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to that interface.",
        role="nccl_env",
        check="ip -br addr inside each container: each node's ranks need an address the "
              "other nodes can reach")


def unmatched_hca_candidate(evidence: Evidence, names: tuple[str, ...]) -> Candidate:
    missing = ", ".join(names)
    return _cause(
        "nccl-hca-list-names-missing-device", "ib_hca_unusable", (evidence,), HCA_LIST_CONFIDENCE,
        explanation=f"NCCL_IB_HCA names {missing}, which matches none of the devices NCCL "
                    "went on to use: NCCL drops such an entry without a warning, so that rail "
                    "carries no traffic and the GPUs meant for it share another NIC (slower "
                    "collectives, or a failure where the rail was needed).",
        fix=f"Correct {missing} in NCCL_IB_HCA to an HCA this node has (ibv_devinfo -l), "
            "or drop the variable and let NCCL choose.",
        role="nccl_env",
        check="ibv_devinfo -l on each node against NCCL_IB_HCA; the NET/IB : Using line "
              "should list one device per rail")


def staged_through_host_candidate(note: Evidence) -> Candidate:
    return _cause(
        "nccl-gdr-module-missing", "ib_memory_registration_failed", (note,), SOCKETS_CONFIDENCE,
        explanation="NCCL's IB transport found no way to register GPU memory with the HCA "
                    "(neither the nvidia-peermem module nor DMA-BUF support), so GPU Direct "
                    "RDMA is off: every transfer between nodes is staged through host memory. "
                    "Nothing fails, but collectives across nodes run well below the fabric's "
                    "bandwidth (channels 'via NET/IB' without '/GDRDMA').",
        fix="Load nvidia-peermem (modprobe nvidia-peermem; the GPU Operator's driver.rdma "
            "setting), or use a kernel and driver with DMA-BUF (open kernel modules, Linux "
            "5.12+); then check for 'via NET/IB/0/GDRDMA' in NCCL_DEBUG=INFO.",
        role=None,
        check="lsmod | grep -E 'nvidia_peermem|nv_peer_mem'; NCCL_DEBUG=INFO channels show "
              "/GDRDMA")


def sockets_beside_rdma_candidate(sockets: Evidence, device: Evidence,
                                  verbs_missing: Evidence | None) -> Candidate:
    if verbs_missing is not None:
        return _cause(
            "nccl-sockets-beside-rdma", "rdma_device_missing", (sockets, verbs_missing, device),
            SOCKETS_CONFIDENCE,
            explanation="NCCL could not load the verbs library (libibverbs) and carried the "
                        "traffic between nodes over TCP sockets, although this log shows an "
                        "RDMA device there: the image or container lacks rdma-core. Nothing "
                        "fails, but collectives run at a fraction of the fabric's bandwidth.",
            fix="Install rdma-core (libibverbs and the NIC's provider) in the image, or point "
                "NCCL_IBVERBS_LIB at a copy that exists; then check for 'Using network IB' in "
                "NCCL_DEBUG=INFO.",
            role="nccl_env",
            check="ldconfig -p | grep ibverbs and ls /etc/libibverbs.d inside the container")
    return _cause(
        "nccl-sockets-beside-rdma", "ib_unavailable", (sockets, device), SOCKETS_CONFIDENCE,
        explanation="NCCL carried the traffic between nodes over TCP sockets although this "
                    "log shows an RDMA port up: the fabric went unused. IB was disabled by a "
                    "setting (NCCL_IB_DISABLE=1 from an image, a module or /etc/nccl.conf), or "
                    "the process could not reach the HCAs (no /dev/infiniband in the "
                    "container, a missing net plugin: on HPE Slingshot, aws-ofi-nccl for "
                    "libfabric's cxi provider). Nothing fails, but collectives run at a "
                    "fraction of the fabric's bandwidth.",
        fix="Find and remove what disables IB (env | grep NCCL_; /etc/nccl.conf; the "
            "image's and modules' environment), give containers the RDMA devices, "
            "then check for 'Using network IB' and 'via NET/IB' in NCCL_DEBUG=INFO.",
        role="nccl_env",
        check="NCCL_DEBUG=INFO: the NET/IB lines before 'Using network Socket'; env | grep "
              "NCCL_IB on every node; ls /dev/infiniband in the container")


def slow_rail_candidate(evidence: Evidence, device: str, speed: int, fastest: int) -> Candidate:
    return _cause(
        "nccl-slow-rail", "ib_hca_unusable", (evidence,), HCA_LIST_CONFIDENCE,
        explanation=f"NCCL reports {device} at {speed // 1000} Gb/s while this host's fastest "
                    f"port ran at {fastest // 1000} Gb/s: that port trained at fewer lanes or "
                    "a lower speed (a cable, a switch port, auto-negotiation), and every ring "
                    "through it runs at its rate, so collectives are slower on every node.",
        fix=f"Check and reseat or replace the cable of {device}, and the switch port "
            "(mlxlink -d <hca> for width and speed, ibstat's Rate, ethtool's Speed for "
            "RoCE); until then leave it out with NCCL_IB_HCA.",
        role=None,
        check=f"ibstat {device} (Rate); mlxlink -d {device}; iblinkinfo for 'Could be'")


def version_drift_candidate(versions: dict[str, Evidence]) -> Candidate:
    names = ", ".join(versions)
    return _cause(
        "nccl-version-drift", "nccl_version_drift", tuple(versions.values()), DRIFT_CONFIDENCE,
        layer="versions",
        explanation=f"The ranks of this run load different NCCL releases ({names}): every "
                    "rank of a communicator must run the same NCCL, or setup fails or hangs.",
        fix="Install the same NCCL on every node (the same torch wheel / "
            "nvidia-nccl-cu* version, or the same libnccl2); `vfix audit` reports the "
            "drift and the versions role pins it.",
        role="versions",
        check="vfix gather, then vfix audit: its version-drift finding lists the NCCL "
              "each node loads")


def duplicate_gpu_candidate(first: Evidence, second: Evidence) -> Candidate:
    return _cause(
        "nccl-duplicate-gpu", "duplicate_gpu_assignment", (first, second), DUPLICATE_CONFIDENCE,
        layer="visibility",
        explanation="Two ranks of one communicator start on the same GPU of the same host (the "
                    "same busId in their Init START lines): NCCL needs one GPU per rank.",
        fix="Give every rank its own GPU: set the device from LOCAL_RANK "
            "(torch.cuda.set_device), and check CUDA_VISIBLE_DEVICES / the GPUs the "
            "container or pod gets per rank.",
        role=None,
        check="the cudaDev/busId of each rank's Init START line; nvidia-smi -L in each "
              "rank's environment")


def differing_settings_candidate(settings: dict[str, Evidence]) -> Candidate:
    names = ", ".join(settings)
    return _cause(
        "nccl-settings-differ", "collective_mismatch", tuple(settings.values()),
        SETTINGS_CONFIDENCE,
        explanation=f"The ranks of this run set NCCL's protocol or algorithm differently "
                    f"({names}): every rank of a communicator must use the same, or their "
                    "collectives do not line up and hang or fail.",
        fix="Give every rank and node the same NCCL_PROTO / NCCL_ALGO (or unset them "
            "everywhere); the nccl_env role writes one NCCL environment for the fleet.",
        role="nccl_env",
        check="env | grep -E 'NCCL_(PROTO|ALGO)' on every node and in every container")


def _mismatch_candidate(signature: str, evidence: tuple[Evidence, Evidence], explanation: str,
                        same: str, check_next: str) -> Candidate:
    """Ranks that ran different collectives, as two of their lines show."""
    return _cause(
        signature, "collective_mismatch", evidence, SETTINGS_CONFIDENCE,
        explanation=explanation,
        fix="Rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: torch then names the first "
            f"collective that differs between ranks. {same}",
        role=None,
        check=check_next)


def uneven_progress_candidate(behind: Evidence, ahead: Evidence) -> Candidate:
    return _mismatch_candidate(
        "nccl-ranks-drifted-apart", (behind, ahead),
        "When the collective timed out, one rank had completed at least two more collectives "
        "than another: their collectives completed without each other, so the ranks did not run "
        "the same operations or sizes (a send/recv shape that differs, a collective some ranks "
        "skip). A rank that died or stalled leaves its peers waiting at the same collective "
        "instead.",
        "Make every rank call the same collectives, with the same shapes and dtypes, in the same "
        "order.",
        "each rank's 'Last enqueued / last completed NCCL work' line and the flight recorder "
        "dump: the operation and sizes where the ranks part")


def different_collectives_candidate(first: Evidence, second: Evidence) -> Candidate:
    return _mismatch_candidate(
        "nccl-ranks-ran-different-collectives", (first, second),
        "Two ranks of one process group timed out at the same collective sequence number in "
        "different operations, or in one of different sizes: their programs issued different "
        "collectives there (a branch some ranks take, graphs compiled differently on each "
        "rank, an uneven last batch), so each waits for a partner that never comes.",
        "Make every rank issue the same collectives in the same order and sizes (the same model "
        "config, the same compiled graph, no rank-dependent branch around a collective, "
        "drop_last or padding for the last batch).",
        "each rank's watchdog line: SeqNum, OpType and NumelIn where they part; the flight "
        "recorder dump")
