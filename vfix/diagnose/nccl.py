"""Summarises NCCL_DEBUG=INFO output: version, transports per channel, IB, interfaces, stop point.

Formats follow NCCL's own INFO/WARN messages (src/init.cc, src/transport/*.cc,
src/misc/socket.cc, src/transport/net_ib.cc) from 2.10 to 2.28.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from vfix.diagnose.model import Evidence, NcclSummary
from vfix.diagnose.nccl_rules import host_only
from vfix.diagnose.sources import line_source

# Lines printed when communicators are torn down ("[Service thread] Connection closed by
# localRank N", "Abort COMPLETE" when a program exits without destroying them, torch's
# "destroy_process_group() was not called before program exit") or when nccl-tests finished
# its table: the run reached its end.
_ENDED = ("Connection closed by localRank", "Avg bus bandwidth", "Abort COMPLETE",
          "was not called before program exit")
# A progress bar still at 0% (vLLM "Processed prompts:   0%|"): the work is waiting.
_WAITING = " 0%|"
# Lines the summary reads; the scanner only hands over lines holding one of these.
KEYWORDS = (
    "NCCL version", "cudaDriverVersion", "NET/IB", "NET/Socket", "Bootstrap", "via ",
    "Using network", "NCCL WARN", "Init START", "Init COMPLETE", "Destroy COMPLETE", *_ENDED,
    _WAITING, "set by environment to", "retrying (", "last completed NCCL work",
    "Watchdog caught collective operation timeout", "NCCL_IB_HCA set", "State: Active",
    "PORT_ACTIVE", "uverbs", "libibverbs", " nNodes ",
)
_MAX_WARNINGS = 10
_MAX_RANKS = 100_000
_MAX_CHANNELS = 256
_MAX_VALUES = 8  # distinct values kept per key: NCCL releases, a setting's values, operations
_MAX_GROUPS = 64

# socketPollConnect retrying a peer ("connect to 10.0.0.1<4021> returned No route to host,
# retrying (3/34)"): the init is not silent, it is stuck on the network.
_CONNECT_RETRY = re.compile(r"onnect to \S+ returned .+, retrying \(")
_VERSION = re.compile(r"NCCL version (\S+)")
_RELEASE = re.compile(r"\d+\.\d+\.\d+")  # "2.28.9" of "2.28.9+cuda13.0" or torch's "2.28.9,"
_DRIVER = re.compile(r"cudaDriverVersion (\d+)")
_CHANNEL = re.compile(r"Channel (\d+)(?:/\d+)? ?: \d+\[[\w.]+\] -> \d+\[[\w.]+\].* via (.+)$")
_IB_NONE = re.compile(r"NET/IB ?: No device found")
_IB_USING = re.compile(r"NET/IB ?: Using (.*?);? ?OOB")
_IB_DEVICE = re.compile(r"\[\d+\]([\w.-]+:\d+/\w+)")
# NCCL 2.2x describing each IB device it opened, with the port's rate in Mb/s: "NET/IB: [6]
# mlx5_6:uverbs6:1/RoCE provider=Mlx5 speed=100000 context=0x.."; and a rate that changed
# later: "NET/IB : mlx5_4:1 speed change detected: 200000 -> 400000 Mbps"
_IB_SPEED = re.compile(r"NET/IB ?: \[\d+\] ([\w.-]+):\S*? .*\bspeed=(\d+)")
_IB_SPEED_CHANGE = re.compile(r"NET/IB ?: ([\w.-]+):\d+ speed change detected: (\d+) -> (\d+)")
_SOCKET_USING = re.compile(r"(?:NET/Socket|Bootstrap) ?: ?Using (.+)$")
_SOCKET_DEVICE = re.compile(r"(?:\[\d+\])?([\w.-]+:[\w.:%-]+)(?:<\d+>)?")
_NETWORK = re.compile(r"Using network (\w+)")
# NCCL could not load the verbs library: "Count not open libibverbs.so.1" (sic, ibvwrap.cc),
# "Failed to open libibverbs.so[.1]" (older releases)
_VERBS_MISSING = re.compile(r"(?:Count|Could) not open \S*libibverbs|Failed to open libibverbs")
# NCCL's IB transport finding neither nvidia-peermem nor DMA-BUF for GPU memory: "NET/IB : GPU
# Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)" (not paths.cc's "GPU Direct RDMA
# Disabled for GPU 1 / HCA 0 (distance 5 > 4)", a topology choice)
_GDR_UNLOADED = re.compile(r"GPU Direct RDMA Disabled for HCA \d+ '[^']+' \(no module\)")
# An RDMA device there to use, as the fabric tools print it: ibstat's "State: Active" (not its
# "Physical state"), ibv_devinfo's "state: PORT_ACTIVE (4)", `ls /dev/infiniband` listing a
# verbs device ("issm0  rdma_cm  umad0  uverbs0")
_RDMA_PORT_UP = re.compile(
    r"(?<![Pp]hysical )\bState: Active\b|\bstate:\s+PORT_ACTIVE\b"
    r"|^\s*(?=.*\buverbs\d)(?:(?:issm|umad|uverbs)\d+|rdma_cm)(?:\s+(?:(?:issm|umad|uverbs)\d+|rdma_cm))*\s*$")
# HPE Slingshot's NICs as the kernel names them ("hsn0:10.150.2.201"): NCCL reaches them through
# libfabric's cxi provider (the aws-ofi-nccl plugin); sockets over them leave the fabric unused
_SLINGSHOT = re.compile(r"hsn\d+:")
# The process that wrote an NCCL line: host and pid of "host:pid:tid [0] NCCL INFO ..."
_PROCESS = re.compile(r"(?:^|[\s\]])([\w.-]+):(\d+):\d+ \[\d+\] NCCL ")
# Settings every rank of a communicator must share: "NCCL INFO NCCL_PROTO set by environment to LL"
# The HCAs the job asked for: "NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_3" (net_ib.cc), "NCCL_IB_HCA
# set by environment to =mlx5_0:1"
_HCA_LIST = re.compile(r"\bNCCL_IB_HCA set (?:by environment )?to (\S+?)\.?$")
_SHARED_SETTING = re.compile(r"\b(NCCL_PROTO|NCCL_ALGO) set by environment to (\S+?)\.?$")
_INIT = re.compile(r"rank (\d+) nranks (\d+).* Init (START|COMPLETE)")
# A communicator's size as init reports it: "comm 0x.. rank 0 nRanks 1 nNodes 1 localRanks 1 ...",
# "ncclCommInitRankConfig comm 0x.. rank 0 nranks 1 cudaDev 0 ..."
_SIZE = re.compile(r"\brank \d+ n[Rr]anks (\d+) (?:nNodes (\d+)|cudaDev) ")
# Where a rank sits (with the host of its line's prefix): "host:pid:tid [0] NCCL INFO
# ncclCommInitRank comm 0x.. rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa.. -
# Init START" (and "- Init COMPLETE")
_PLACEMENT = re.compile(r"\bbusId (\w+) commId (\w+)")
# torch's flight recorder when a collective timed out, per rank and process group: "[PG ID 0 PG
# GUID 0(default_pg) Rank 1] Received a dump signal ... Last enqueued NCCL work: 4, last
# completed NCCL work: 3."
_PROGRESS = re.compile(r"(?i)last completed NCCL work: (\d+)")
_PROGRESS_RANK = re.compile(r"(?:PG GUID (\S+?)(?:\(\w*\))? )?Rank (\d+)\]")
# torch's watchdog naming the collective each rank timed out in: "[PG ID 0 PG GUID 0(default_pg)
# Rank 8] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1288,
# OpType=_REDUCE_SCATTER_BASE, NumelIn=88080384, ..."
_TIMED_OUT = re.compile(r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), "
                        r"OpType=(\w+)(?:, NumelIn=(\d+))?")
# Operations whose input has the same size on every rank (an all-reduce, an all-gather's shard):
# not all-to-all's uneven splits, a gather's or scatter's root, or a send and its receive.
_SIZE_VARIES = frozenset(("SEND", "RECV", "ALLTOALL", "ALLTOALL_BASE", "GATHER", "SCATTER",
                          "_ALLGATHER_BASE_COALESCED"))
# the halves of one point-to-point transfer, as the watchdog names them
_P2P_HALF = {"SEND": "P2P", "RECV": "P2P"}


def transport_of(via: str) -> str:
    """'NET/IB/0/GDRDMA' -> 'NET/IB', 'P2P/IPC/read' -> 'P2P/IPC', 'SHM/direct/direct' -> 'SHM'."""
    parts = via.strip().split("/")
    head = parts[0]
    if head == "NET" and len(parts) > 1:
        return f"NET/{parts[1]}"
    if head == "P2P" and len(parts) > 1:
        return f"P2P/{parts[1].split()[0]}"
    if head.startswith("direct shared memory"):
        return "SHM"
    return head.split()[0] if head else "unknown"


# What one NCCL line says: ("warn", None), ("retry", None), ("channel", (channel, transport)),
# ("start", (rank, where, process)), ("complete", (rank, where, process)), ("destroy", None),
# ("version", v), ("driver", v), ("ib_none", None), ("ib_using", devices),
# ("interfaces", devices), ("setting", (name, value, process)),
# ("progress", (process group, rank, completed)), ("timed_out", (process group, sequence number,
# operation)), ("hca_list", NCCL_IB_HCA's value), ("ib_speed", (host, device, the rate before
# a change or 0, Mb/s)), ("network", (name, host)), ("verbs_missing", None), ("gdr_unloaded", None),
# ("rdma_port_up", None: a fabric tool's line, not NCCL's) or ("other", None). `where`: host,
# busId and commId, or None; `process`: "host:pid", or None.
Event = tuple[str, Any]
# The events whose line number and text the summary keeps: a WARN, a stuck progress bar, an
# interface choice, a version banner, a protocol setting, a rank's Init START, its progress, a
# timed-out operation. Counting lines for every NCCL INFO line would cost more than the rest of
# their handling.
QUOTED_EVENTS = frozenset(("warn", "waiting", "interfaces", "version", "setting", "start",
                           "complete", "progress", "timed_out", "hca_list", "network",
                           "rdma_port_up", "ib_speed", "verbs_missing", "gdr_unloaded"))


def parse(text: str) -> Event | None:
    """What an NCCL line says (None for a line without "NCCL" or an end marker); pure, so
    cacheable."""
    if any(marker in text for marker in _ENDED):
        return "destroy", None
    if _WAITING in text:
        return "waiting", None
    if "NCCL" not in text:
        return ("rdma_port_up", None) if _RDMA_PORT_UP.search(text) else None
    if "NCCL WARN" in text:
        return "warn", None
    if (found := _PROGRESS.search(text)) and (rank := _PROGRESS_RANK.search(text)):
        return "progress", (rank.group(1) or "", int(rank.group(2)), int(found.group(1)))
    if (found := _TIMED_OUT.search(text)) and (rank := _PROGRESS_RANK.search(text)):
        operation, size = found.group(2), found.group(3)
        if size is not None and operation not in _SIZE_VARIES:
            operation = f"{operation} of {size} elements"
        return "timed_out", (rank.group(1) or "", int(found.group(1)), operation)
    if _CONNECT_RETRY.search(text):
        return "retry", None
    if found := _CHANNEL.search(text):
        return "channel", (found.group(1).zfill(2), transport_of(found.group(2)))
    if "Destroy COMPLETE" in text:
        return "destroy", None
    if found := _INIT.search(text):
        writer = _PROCESS.search(text)
        placement = _PLACEMENT.search(text)
        where = (f"{writer.group(1)} {' '.join(placement.groups())}"
                 if writer and placement else None)
        placed = (int(found.group(1)), where, _process(writer), int(found.group(2)))
        return ("complete" if found.group(3) == "COMPLETE" else "start"), placed
    if found := _SIZE.search(text):
        return "size", (int(found.group(1)), int(found.group(2) or 0))
    if found := _VERSION.search(text):
        return "version", found.group(1)
    if found := _DRIVER.search(text):
        return "driver", found.group(1)
    if _IB_NONE.search(text):
        return "ib_none", None
    if _GDR_UNLOADED.search(text):
        return "gdr_unloaded", None
    if found := _IB_SPEED.search(text):
        writer = _PROCESS.search(text)
        return "ib_speed", (writer.group(1) if writer else "", found.group(1), 0,
                            int(found.group(2)))
    if found := _IB_SPEED_CHANGE.search(text):
        writer = _PROCESS.search(text)
        return "ib_speed", (writer.group(1) if writer else "", found.group(1),
                            int(found.group(2)), int(found.group(3)))
    if found := _IB_USING.search(text):
        devices = tuple(_IB_DEVICE.findall(found.group(1)))
        return ("ib_using", devices) if devices else ("other", None)
    if found := _SOCKET_USING.search(text):
        writer = _PROCESS.search(text)
        return "interfaces", (tuple(_SOCKET_DEVICE.findall(found.group(1))[:8]),
                              writer.group(1) if writer else None)
    if found := _NETWORK.search(text):
        writer = _PROCESS.search(text)
        return "network", (found.group(1), writer.group(1) if writer else "")
    if _VERBS_MISSING.search(text):
        return "verbs_missing", None
    if found := _HCA_LIST.search(text):
        return "hca_list", found.group(1)
    if found := _SHARED_SETTING.search(text):
        return "setting", (found.group(1), found.group(2).lower(), _process(_PROCESS.search(text)))
    return "other", None


def _process(writer: re.Match[str] | None) -> str | None:
    return f"{writer.group(1)}:{writer.group(2)}" if writer else None


class NcclAccumulator:
    """Fed one matching line at a time; bounded memory whatever the log's size."""

    def __init__(self) -> None:
        self.seen = False
        self.version: str | None = None
        self.cuda_driver: str | None = None
        self.ib_found: bool | None = None
        self.ib_devices: dict[str, None] = {}
        self.interfaces: dict[str, None] = {}
        self.network: str | None = None
        self.transports: Counter[str] = Counter()
        self.channels: dict[str, set[str]] = {}
        self.started: set[int] = set()
        self.completed: set[int] = set()
        self.communicator_size = 0  # the largest communicator init reported (0: none reported)
        self.communicator_nodes = 0  # the most nodes a communicator spans, as init reported
        self.version_lines = 0  # "NCCL version" lines: one per process that set up a communicator
        self.destroyed = False  # a communicator was torn down: the run got to its end
        self.waiting_line = 0  # the last line showing work stuck at 0% (0: none)
        self.sockets_chosen: Evidence | None = None  # the first "Using network Socket" line
        self._socket_hosts: set[str] = set()  # the hosts whose ranks chose sockets
        self.verbs_missing: Evidence | None = None  # NCCL's first "Count not open libibverbs"
        self.gdr_unloaded: Evidence | None = None  # NCCL: no GPU Direct RDMA module
        # host -> IB device -> its port's rate in Mb/s (the latest NCCL reported) and that line;
        # host -> the fastest rate any of its ports had
        self.ib_speeds: dict[str, dict[str, tuple[int, Evidence]]] = {}
        self._fastest_ib: dict[str, int] = {}
        self.rdma_port_up: Evidence | None = None  # the first fabric tool's line of a port up
        self.slingshot: Evidence | None = None  # NCCL's first line choosing an hsn interface
        # The first Bootstrap/NET/Socket line choosing a host-only interface, and those devices.
        self.host_only: tuple[Evidence, tuple[str, ...]] | None = None
        # address -> the host that first chose it, and that line
        self._address_hosts: dict[str, tuple[str, Evidence]] = {}
        # Two hosts choosing one address: both lines and the device.
        self.shared_address: tuple[Evidence, Evidence, str] | None = None
        self.hca_list: tuple[str, Evidence] | None = None  # NCCL_IB_HCA as first printed
        self.versions: dict[str, Evidence] = {}  # each NCCL release ("2.28.9"): its first line
        # host, GPU bus id and communicator -> the first rank placed there, and its line
        self.placements: dict[str, tuple[int, Evidence]] = {}
        # Two ranks, one GPU: where, the two ranks, their Init START lines.
        self._duplicate: tuple[str, int, int, Evidence, Evidence] | None = None
        self._completed_at: set[tuple[int, str]] = set()  # (rank, where) past Init COMPLETE
        self.warnings: list[Evidence] = []
        self.retried = False  # a rank retried connecting to a peer
        # NCCL_PROTO / NCCL_ALGO -> each value ranks set it to: its first line; and the
        # processes that printed it (NCCL prints a setting once per process, during init)
        self.settings: dict[str, dict[str, Evidence]] = {}
        self._set_by: dict[str, set[str]] = {}
        self._started_at: dict[str, Evidence] = {}  # process -> its first Init START line
        # processes past Init COMPLETE: the first such line of each
        self._completed_procs: dict[str, Evidence] = {}
        # process group -> rank -> the last collective it completed, and that line
        self.progress: dict[str, dict[int, tuple[int, Evidence]]] = {}
        # (process group, sequence number) -> each operation ranks timed out in there: its line
        self.timed_out: dict[tuple[str, int], dict[str, Evidence]] = {}

    def add(self, line: int, text: str, event: Event | None) -> None:
        """Records one line already read by `parse` (a repeated line is parsed once); `line`
        is only used for "warn", "waiting", "interfaces", "version", "setting", "start",
        "progress" and "timed_out" events."""
        if event is None:
            return
        kind, value = event
        if kind == "waiting":  # not an NCCL line: does not make a summary on its own
            self.waiting_line = line
            return
        if kind == "rdma_port_up":  # nor is this
            self.rdma_port_up = self.rdma_port_up or Evidence(line, text, line_source(text))
            return
        self.seen = True
        if kind == "retry":
            self.retried = True
        elif kind == "warn":
            if len(self.warnings) < _MAX_WARNINGS:
                self.warnings.append(Evidence(line, text, line_source(text)))
        elif kind == "channel":
            channel, transport = value
            self.transports[transport] += 1
            if channel in self.channels or len(self.channels) < _MAX_CHANNELS:
                self.channels.setdefault(channel, set()).add(transport)
        elif kind == "size":
            ranks, nodes = value
            self.communicator_size = max(self.communicator_size, ranks)
            self.communicator_nodes = max(self.communicator_nodes, nodes)
        elif kind == "start":
            rank, where, process, size = value
            self.communicator_size = max(self.communicator_size, size)
            if len(self.started) < _MAX_RANKS:
                self.started.add(rank)
            if process and process not in self._started_at and len(self._started_at) < _MAX_RANKS:
                self._started_at[process] = Evidence(line, text, line_source(text))
            if where is not None and self._duplicate is None:
                self._place(rank, where, Evidence(line, text, line_source(text)))
        elif kind == "complete":
            rank, where, process, size = value
            self.communicator_size = max(self.communicator_size, size)
            if len(self.completed) < _MAX_RANKS:
                self.completed.add(rank)
            if where is not None and len(self._completed_at) < _MAX_RANKS:
                self._completed_at.add((rank, where))
            if process and len(self._completed_procs) < _MAX_RANKS:
                self._completed_procs.setdefault(process, Evidence(line, text, line_source(text)))
        elif kind == "destroy":
            self.destroyed = True
        elif kind == "version":
            self.version = self.version or value
            self.version_lines += 1
            release = found.group(0) if (found := _RELEASE.match(value)) else value
            if release not in self.versions and len(self.versions) < _MAX_VALUES:
                self.versions[release] = Evidence(line, text, line_source(text))
        elif kind == "driver":
            self.cuda_driver = self.cuda_driver or value
        elif kind == "ib_none":
            self.ib_found = bool(self.ib_devices)
        elif kind == "ib_using":
            self.ib_found = True
            self.ib_devices.update(dict.fromkeys(value))
        elif kind == "interfaces":
            devices, host = value
            self.interfaces.update(dict.fromkeys(devices))
            if self.slingshot is None and any(_SLINGSHOT.match(device) for device in devices):
                self.slingshot = Evidence(line, text, line_source(text))
            if self.host_only is None and (suspects := tuple(filter(host_only, devices))):
                self.host_only = Evidence(line, text, line_source(text)), suspects
            if host is not None and self.shared_address is None:
                self._note_addresses(host, devices, Evidence(line, text, line_source(text)))
        elif kind == "network":
            self.network, host = value
            if self.network == "Socket":
                self.sockets_chosen = self.sockets_chosen or Evidence(line, text, line_source(text))
                if host and len(self._socket_hosts) < _MAX_RANKS:
                    self._socket_hosts.add(host)
        elif kind == "verbs_missing":
            self.verbs_missing = self.verbs_missing or Evidence(line, text, line_source(text))
        elif kind == "gdr_unloaded":
            self.gdr_unloaded = self.gdr_unloaded or Evidence(line, text, line_source(text))
        elif kind == "ib_speed":
            host, device, before, speed = value
            if host not in self.ib_speeds and len(self.ib_speeds) >= _MAX_RANKS:
                return
            devices = self.ib_speeds.setdefault(host, {})
            if device in devices or len(devices) < _MAX_CHANNELS:
                devices[device] = speed, Evidence(line, text, line_source(text))
                self._fastest_ib[host] = max(self._fastest_ib.get(host, 0), before, speed)
        elif kind == "hca_list":
            self.hca_list = self.hca_list or (value, Evidence(line, text, line_source(text)))
        elif kind == "setting":
            name, setting, process = value
            values = self.settings.setdefault(name, {})
            if setting not in values and len(values) < _MAX_VALUES:
                values[setting] = Evidence(line, text, line_source(text))
            processes = self._set_by.setdefault(name, set())
            if process and len(processes) < _MAX_RANKS:
                processes.add(process)
        elif kind == "timed_out":
            group, sequence, operation = value
            key = (group, sequence)
            if key in self.timed_out or len(self.timed_out) < _MAX_GROUPS:
                operations = self.timed_out.setdefault(key, {})
                if operation not in operations and len(operations) < _MAX_VALUES:
                    operations[operation] = Evidence(line, text, line_source(text))
        elif kind == "progress":
            group, rank, completed = value
            if group in self.progress or len(self.progress) < _MAX_GROUPS:
                ranks = self.progress.setdefault(group, {})
                if rank in ranks or len(ranks) < _MAX_RANKS:
                    ranks[rank] = completed, Evidence(line, text, line_source(text))

    def _note_addresses(self, host: str, devices: tuple[str, ...], evidence: Evidence) -> None:
        """Remembers which host chose each address; two hosts choosing one address share an
        address that is each one's own (a container's bridge or NAT network), not the node's."""
        for device in devices:
            address = device.partition(":")[2]
            first = self._address_hosts.get(address)
            if first is None:
                if address and len(self._address_hosts) < _MAX_RANKS:
                    self._address_hosts[address] = host, evidence
            elif first[0] != host:
                self.shared_address = first[1], evidence, device
                return

    def _place(self, rank: int, where: str, evidence: Evidence) -> None:
        first = self.placements.get(where)
        if first is None:
            if len(self.placements) < _MAX_RANKS:
                self.placements[where] = rank, evidence
        elif first[0] != rank:
            self._duplicate = where, first[0], rank, first[1], evidence

    @property
    def unmatched_hcas(self) -> tuple[Evidence, tuple[str, ...]] | None:
        """The line setting NCCL_IB_HCA and the devices it names that match none NCCL went on
        to use (a typo, a port of another link layer, an HCA this node does not have): NCCL
        skips those silently, and that rail goes unused. An entry is a prefix of device names
        ("mlx5" takes every mlx5_*) unless the list starts with "="; a list starting with "^"
        excludes, and tells nothing."""
        if self.hca_list is None or not self.ib_devices:
            return None
        value, evidence = self.hca_list
        if value.startswith("^"):
            return None
        exact = value.startswith("=")
        used = {device.partition(":")[0] for device in self.ib_devices}
        names = [entry.partition(":")[0] for entry in value.lstrip("=").split(",")]
        unmatched = tuple(name for name in names if name and not any(
            device == name if exact else device.startswith(name) for device in used))
        return (evidence, unmatched) if unmatched else None

    @property
    def sockets_beside_rdma(self) -> tuple[Evidence, Evidence] | None:
        """NCCL's choice of TCP sockets and a fabric tool's line of an RDMA device that is there
        (or NCCL's own sockets over HPE Slingshot's hsn NICs, a fabric it reaches only through
        the aws-ofi-nccl plugin), when ranks talked across nodes over the sockets (channels via
        NET/Socket, ranks of two hosts choosing sockets, a communicator of several nodes): the
        node has a fabric that NCCL left unused (IB disabled by a setting, no verbs library or
        RDMA devices in the container, no net plugin). The job runs, many times slower."""
        across_nodes = (self.transports["NET/Socket"] or len(self._socket_hosts) > 1
                        or self.communicator_nodes > 1)
        fabric = self.rdma_port_up or self.slingshot
        if self.sockets_chosen and fabric and across_nodes:
            return self.sockets_chosen, fabric
        return None

    @property
    def staged_through_host(self) -> Evidence | None:
        """NCCL's note that GPU Direct RDMA is off for lack of a module, when ranks talked over
        IB (channels via NET/IB): every transfer between nodes is staged through host memory."""
        return self.gdr_unloaded if self.transports["NET/IB"] else None

    @property
    def slow_rail(self) -> tuple[Evidence, str, int, int] | None:
        """A host's IB device whose port runs at half the fastest rate of the host's ports or
        less (a link trained at fewer lanes or a lower speed, or one that shifted down while the
        job ran), as NCCL last reported it: its line, the device, its rate and the fastest
        rate, in Mb/s. Rings through it run at its rate."""
        for host, devices in self.ib_speeds.items():
            fastest = self._fastest_ib[host]
            for device, (speed, evidence) in devices.items():
                if 0 < speed * 2 <= fastest:
                    return evidence, device, speed, fastest
        return None

    @property
    def alone(self) -> bool:
        """Whether the log is one process whose communicators have one rank: nobody to wait for."""
        return self.communicator_size == 1 and self.version_lines <= 1

    @property
    def differing_settings(self) -> dict[str, Evidence]:
        """Where ranks set NCCL_PROTO / NCCL_ALGO differently: the first line of each value, and
        the Init START (else Init COMPLETE) line of a process that completed init without
        printing the setting (its environment left it unset)."""
        differing: dict[str, Evidence] = {}
        for name, values in self.settings.items():
            unset = sorted(self._completed_procs.keys() - self._set_by[name])
            if len(values) > 1 or unset:
                differing.update((f"{name}={setting}", line) for setting, line in values.items())
            if unset:
                differing[f"{name} unset"] = (self._started_at.get(unset[0])
                                              or self._completed_procs[unset[0]])
        return differing

    @property
    def duplicate(self) -> tuple[Evidence, Evidence] | None:
        """The Init START lines of two ranks placed on one GPU of one host. NCCL checks for
        that in init and fails with a WARN "Duplicate GPU detected" (a signature of its own):
        ranks that got past Init COMPLETE there, or an init that NCCL failed with another WARN
        or that retried connecting to a peer, were not a duplicate to NCCL (different hosts to
        it: NCCL_HOSTID, containers sharing a GPU under their own host names). What is left: a
        run that stopped in init silently."""
        if self._duplicate is None or self.warnings or self.retried:
            return None
        where, first_rank, second_rank, first, second = self._duplicate
        if {(first_rank, where), (second_rank, where)} <= self._completed_at:
            return None
        return first, second

    @property
    def uneven_progress(self) -> tuple[Evidence, Evidence] | None:
        """The flight-recorder lines of two ranks of one process group when one completed at
        least two more collectives than the other before the timeout. Matching collectives
        complete together on every rank (one may lag the other by the one in flight), so
        ranks that drifted further apart ran different collectives or sizes; a rank that
        stalled or died stops completing with its peers, not behind them."""
        for ranks in self.progress.values():
            if len(ranks) < 2:
                continue
            behind = min(ranks.values(), key=lambda progress: progress[0])
            ahead = max(ranks.values(), key=lambda progress: progress[0])
            if ahead[0] - behind[0] >= 2:
                return behind[1], ahead[1]
        return None

    @property
    def first_timed_out(self) -> int:
        """The lowest sequence number a watchdog timed out at (0: none timed out)."""
        return min((sequence for _, sequence in self.timed_out), default=0)

    @property
    def different_collectives(self) -> tuple[Evidence, Evidence] | None:
        """The watchdog lines of two ranks of one process group that timed out at the same
        sequence number in different operations (one in a reduce-scatter, another in an
        all-gather) or in one of different sizes (an uneven last batch): the ranks' programs
        issued different collectives. A send and a receive are the two halves of one
        point-to-point transfer (pipeline stages), not a mismatch."""
        for operations in self.timed_out.values():
            kinds = {_P2P_HALF.get(operation, operation) for operation in operations}
            if len(kinds) > 1:
                first, second = list(operations.values())[:2]
                return first, second
        return None

    def summary(self, last_line: tuple[int, str] | None) -> NcclSummary | None:
        if not self.seen:
            return None
        last = None
        if last_line:
            last = Evidence(last_line[0], last_line[1], line_source(last_line[1]))
        return NcclSummary(
            version=self.version,
            cuda_driver=self.cuda_driver,
            ib_found=self.ib_found,
            ib_devices=tuple(self.ib_devices),
            interfaces=tuple(self.interfaces),
            network=self.network,
            transports=dict(sorted(self.transports.items())),
            channels={c: sorted(t) for c, t in sorted(self.channels.items())},
            ranks_started=len(self.started),
            ranks_completed=len(self.completed),
            communicator_size=self.communicator_size,
            warnings=tuple(self.warnings),
            last_line=last,
        )
