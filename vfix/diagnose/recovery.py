"""Failures a run recovered from: a wait that ended, a restart it trained on after, requests
it served on after, an IB port that came back.

A log may hold failures and still tell of a healthy run: the startup of a deployment waits for
a peer, a daemon or a node (a Ray worker not up yet, a pod pending until the autoscaler adds a
node) and then serves; an elastic restart after a node was drained, or a job requeued and
resumed from its checkpoint, trains on; a server logs a bad request's traceback and answers the
next ones; an IB port goes down and NCCL sees it come back. What came after the failures says
so: the server became ready, the pod was placed, the port was active again, or the run logged
training steps (step counters beside a loss) or answered requests at the end of the log. The
last bytes of the input (`Scanner.tail`) are enough to find those, so this costs nothing while
the log is scanned. A cause (a broken library, a full disk, a slow link, a bad GPU) stays one
however the run went on with it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from vfix.diagnose.model import Candidate
from vfix.diagnose.shutdown import PORT_RECOVERED, Event, Lifecycle
from vfix.diagnose.suspicious import SuspiciousLines

# A training step with its loss, as trainers print it: "step 18201 | loss 1.397",
# " iteration    12490/   50000 | ... | lm loss: 2.1", "Epoch 12:  52%|...| 2601/5004 [...,
# loss=2.064]", verl's "step:1 - actor/pg_loss:0.003 - ...", mmengine's "Epoch(train)
# [23][4000/8556] ... loss: 4.1".
_STEP = re.compile(rb"(?i)\b(?:step|iteration|iter|global_step|epoch)\b(?:\(train\))?\W{0,8}\d"
                   rb"[^\n]{0,300}?(?:\b|_)loss\b"
                   # the loss first: Hugging Face Trainer's "{'loss': 1.4, ..., 'step': 50}"
                   rb"|\bloss\b[^\n]{0,300}?\b(?:step|epoch)\b\W{0,8}\d"
                   # verl's metrics, which may hold no loss: "step:40 - critic/score/mean:0.402"
                   rb"|\bstep:\d+ - \w+/[\w/@.-]+:-?\d"
                   # OpenRLHF's episodes, a bar of rollout-and-train steps: "Episode [1/1]:  10%|#
                   # | 12/120 [1:11:40<10:44:22, 358.06s/it]"
                   rb"|\bEpisode \[\d+/\d+\]: +\d+%\|[^|\n]*\| *[1-9]\d*/\d+ \[")


# A request a server answered, as servers log them: an access log's status ('"POST
# /v1/completions HTTP/1.1" 200'), vLLM's and SGLang's periodic throughput while tokens are
# generated, a request id with its status ("req-0030 200").
_SERVED = re.compile(rb'HTTP/[\d.]+" 200\b|Avg generation throughput: (?!0\.0 )\d'
                     rb"|gen throughput \(token/s\): (?!0\.00)\d|\breq(?:uest)?[-_#]?\w* 200\b")


class Progress(NamedTuple):
    """Lines near the end of the input that show a run going on."""

    steps: list[int]  # training steps with their loss
    served: list[int]  # requests a server answered


def progress_lines(tail: bytes, last_line: int) -> Progress:
    """The line numbers of training steps and of served requests in `tail`, the input's end
    whose last line is `last_line` (a first line cut by the window is left out)."""
    lines = tail.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    first = last_line - len(lines) + 1
    steps, served = [], []
    for number, line in enumerate(lines[1:], start=first + 1):
        if _STEP.search(line):
            steps.append(number)
        if _SERVED.search(line):
            served.append(number)
    return Progress(steps, served)


# Causes that are a wait while a deployment starts: over once the server is ready (a driver not
# there yet too: the GPU Operator's validator retrying until the driver container is up; a server
# that then became ready on the GPUs found it); and those over once Kubernetes placed the pod that
# waited for GPUs, or that a Ray cluster waited for.
_WAITED_OUT = frozenset({"rendezvous_unreachable", "ray_cluster_incomplete", "mps_not_ready",
                         "imex_not_ready", "gpu_count_insufficient", "nvidia_driver_missing"})
_WAITED_FOR_NODES = frozenset({"gpu_count_insufficient", "ray_cluster_incomplete"})

_SERVED_AFTER = 2  # requests answered after the last failure, to show the server went on

# Steps logged after the last failure that show a run went on (one may be a step finished
# while a peer was failing).
_STEPS_AFTER = 2

# What NCCL rides out when the run trains on after it: a RoCE netdev's addresses changing
# (netplan apply, an IPv6 address added; fatal only if the GID index in use lost its GID), and
# an IB device its resiliency fails over from and recovers ("Device 1 marked as failed.
# Initiating recovery? Yes"), unless the recovery gave up (Event.PORT_LOST)
_RIDDEN_OUT = re.compile(r"\bNET/IB ?: \S+ GID table changed\b|\basync event ?: GID table change\b"
                         r"|\bDevice \d+ marked as failed\. Initiating recovery\? Yes\b")


def trained_on(steps: list[int], candidates: list[Candidate], lines: SuspiciousLines,
               lifecycle: Lifecycle) -> bool:
    """Whether the run logged training steps after everything that failed, and what failed was
    only a consequence (a peer's timeout, a restart) or a wait that ends: an elastic restart or
    a requeue it recovered from, or what NCCL rides out (`_RIDDEN_OUT`). A cause (a slow
    link, a bad GPU) stays one however long the run went on with it."""
    last = _last_failure(candidates, lines)
    return (last > 0 and sum(1 for line in steps if line > last) >= _STEPS_AFTER
            and all(c.kind == "consequence" or c.root_cause in _WAITED_OUT
                    or (all(_RIDDEN_OUT.search(e.text) for e in c.evidence)
                        and not lifecycle.first.get(Event.PORT_LOST))
                    for c in _failures(candidates)))


def served_on(lifecycle: Lifecycle, served: list[int], candidates: list[Candidate],
              lines: SuspiciousLines) -> bool:
    """Whether a server was up (ready or listening, or answering requests) before its first
    failure and went on answering requests after the last one, and what failed was only lines
    no signature knows (exceptions or errors): a bad request's traceback, a client that went
    away, one request's KV transfer lost while a prefill server restarted. A known failure (a
    CUDA error, a dead engine) stays one however the server went on. kubelet's probes and pulls
    while it started (`_OVER_ONCE_READY`) do not count as its first failure."""
    up = (lifecycle.first.get(Event.READY), lifecycle.first.get(Event.LISTENING))
    ready = min((line for line in up if line), default=0)
    over = _OVER_ONCE_READY if ready else None
    first, last = lines.earliest(but=over), _last_failure(candidates, lines, over)
    return (first is not None and lines.failed and not _failures(candidates)
            and (0 < ready < first.line or any(line < first.line for line in served))
            and sum(1 for line in served if line > last) >= _SERVED_AFTER)


# NCCL's IB async events ("Got async event : port error", "Got non-fatal async event: port
# error(10)") and its resiliency's failed device ("Device 1 marked as failed"), and the lines of
# a port coming back: up again, given its address by the subnet manager (a LID change, a client
# reregister), recovered by NCCL
_PORT_EVENT = re.compile(r"\bGot (?:non-fatal )?async (?:error )?event ?: "
                         r"|\bDevice \d+ marked as failed"
                         # a send over the port while it was down: retries exceeded (status 12)
                         r"|\bGot completion from peer .* status=(?:12\b|[\w ]+\(12\))")
_PORT_BACK = re.compile(r"\bevent ?: (?:port active|LID change|client reregist\w*)\b"
                        r"|\bas recovered\b|" + PORT_RECOVERED)


def port_came_back(lifecycle: Lifecycle, failing: list[Candidate],
                   lines: SuspiciousLines) -> bool:
    """Whether all that failed was NCCL's note of an IB port's async event and the port came up
    again after it: a link that flapped, not a broken HCA (NCCL carries on)."""
    active = lifecycle.last.get(Event.PORT_ACTIVE, 0)
    return (active > 0 and bool(failing) and not lines.raised
            and all(_PORT_EVENT.search(e.text) for c in failing for e in c.evidence)
            and _last_failure(failing, lines, _PORT_BACK) < active)


def served_past_ridden_out(lifecycle: Lifecycle, failing: list[Candidate],
                          lines: SuspiciousLines, served: list[int]) -> bool:
    """Whether all that failed was what NCCL rides out (`_RIDDEN_OUT`: a GID table change) and
    a server became ready or answered requests after it, nothing failing since. A run that
    stopped there may have lost its connections."""
    went_on = max([lifecycle.last.get(Event.READY, 0), *served])
    return (bool(failing) and not lines.raised and not lifecycle.first.get(Event.PORT_LOST)
            and all(_RIDDEN_OUT.search(e.text) for c in failing for e in c.evidence)
            and _last_failure(failing, lines) < went_on)


# a launcher that could not reach its nodes (pdsh's ssh refused): the job never ran there, so a
# process that then exits well (DeepSpeed's "Process 0 exits successfully") did not finish it
_NEVER_STARTED_THERE = frozenset({"launcher_ssh_failed"})


def waited_out(lifecycle: Lifecycle, candidates: list[Candidate], lines: SuspiciousLines,
               served: list[int]) -> bool:
    """Whether the run recovered before the log ended: torchrun's workers all succeeded after
    whatever failed, or the run only waited for something that then came (the server became
    ready, or answered requests, after a peer, daemon or node it waited for; Kubernetes placed
    the pod that waited for GPUs). The last time it became ready counts: a server may lose a
    node, wait and recover. `served`: the lines of requests answered at the log's end."""
    ready = lifecycle.last.get(Event.READY, 0)
    scheduled = lifecycle.last.get(Event.SCHEDULED, 0)
    started = lifecycle.last.get(Event.STARTED, 0)
    finished = lifecycle.first.get(Event.FINISHED, 0)
    completed = 0 if Event.JOB_FAILED in lifecycle.first else lifecycle.last.get(
        Event.JOB_COMPLETED, 0)
    answering = sorted(served)[-_SERVED_AFTER] if len(served) >= _SERVED_AFTER else 0
    return ((finished > 0 and 0 < _last_failure(candidates, lines) < finished
             and not any(c.root_cause in _NEVER_STARTED_THERE for c in _failures(candidates)))
            or (completed > 0 and lines.failed and 0 < _last_failure(candidates, lines) < completed)
            or (ready > 0
                and _waited_out_before(ready, _WAITED_OUT, candidates, lines, _OVER_ONCE_READY))
            or (answering > 0 and bool(_failures(candidates))  # a known wait, not any error
                and _waited_out_before(answering, _WAITED_OUT, candidates, lines))
            or (scheduled > 0
                and _waited_out_before(scheduled, _WAITED_FOR_NODES, candidates, lines))
            or (started > 0 and _set_up_before(started, candidates, lines)))


# kubelet's probe of a container still starting, and its pulls of the image: once the server is
# ready, the probe's failures were the start-up's length and the image was pulled in the end (a
# ticket pastes the pod's events after its log, whatever their time); a pod merely placed may
# still fail them
_OVER_ONCE_READY = re.compile(r"\bStartup probe failed: |\bFailed to pull image\b"
                              r"|\bErrImagePull\b|\bImagePullBackOff\b|\bBack-off pulling image\b")

# kubelet setting up a pod (its volumes, its sandbox, its DRA devices such as a ComputeDomain's
# IMEX channel) and pulling its image: once a container of the pod started, that was done
_OVER_ONCE_STARTED = re.compile(r"\bFailed to prepare dynamic resources: "
                                r"|\bMountVolume\.\w+ failed |\bUnable to attach or mount volumes: "
                                r"|\bFailed to create pod sandbox: |\bAttachVolume\.Attach failed "
                                r"|\bFailed to pull image\b|\bErrImagePull\b"
                                r"|\bBack-off pulling image\b")


def _set_up_before(started: int, candidates: list[Candidate], lines: SuspiciousLines) -> bool:
    """Whether all that failed was kubelet setting up a pod that then started a container
    (`started`): a device prepared late, a volume mounted on the second try."""
    latest = lines.latest()
    return (latest is not None and latest.line < started and not _failures(candidates)
            and lines.latest(but=_OVER_ONCE_STARTED) is None)


def _waited_out_before(line: int, waits: frozenset[str], candidates: list[Candidate],
                       lines: SuspiciousLines, passed: re.Pattern[str] | None = None) -> bool:
    """Whether everything that failed came before `line` (where the server became ready, or
    the pod was placed) and was one of `waits`, which end by themselves (a peer, daemon or node
    not up yet, a pod not yet placed), or a probe or a client that gave up early. A broken
    library, disk or GPU stays broken although the server started, and an exception or a crash
    is a process that died and was restarted. `passed`: failing lines that the event at `line`
    shows were over, wherever they stand."""
    failures = _failures(candidates)
    return ((lines.failed or bool(failures)) and not lines.raised_but(passed)
            and _last_failure(candidates, lines, passed) < line
            and all(c.root_cause in waits for c in failures))


def _failures(candidates: list[Candidate]) -> list[Candidate]:
    """The causes and consequences (not the hints)."""
    return [c for c in candidates if c.kind != "hint"]


def _last_failure(candidates: list[Candidate], lines: SuspiciousLines,
                  passed: re.Pattern[str] | None = None) -> int:
    """The line of the last failure: the latest failing line (not one `passed` finds) or the
    last line a cause or consequence cites; 0 when nothing failed."""
    latest = lines.latest(but=passed)
    return max([latest.line if latest else 0,
                *(c.evidence[-1].line for c in _failures(candidates))])
