"""A server's life in its log: launched, ready to serve, asked to stop (SIGTERM), interrupted
(SIGINT); a pod's placement on a node (what a pod pending for GPUs waited for); an IB port back
up.

Errors a server prints while it is being stopped are not a failure: vLLM 0.26 logs
EngineDeadError while it shuts down. A log whose first failing line comes after a SIGTERM is a
healthy run that was stopped (what orchestrators send to stop a service), and so is one
interrupted with Ctrl-C after the server said it was ready. A Ctrl-C before that is how people
end a run that hung: the run failed, and what it printed before the interrupt says why.
"""

from __future__ import annotations

import re
from enum import Enum


class Event(Enum):
    READY = "ready"
    LISTENING = "listening"  # a server about to answer (what it logs just before READY)
    SCHEDULED = "scheduled"  # Kubernetes placed a pod on a node
    STARTED = "started"  # kubelet started a container of a pod (its volumes and devices ready)
    FINISHED = "finished"  # a launcher saw its workers succeed (torchrun, DeepSpeed), a Ray job did
    JOB_COMPLETED = "job_completed"  # sacct listed a job that ended well
    JOB_FAILED = "job_failed"  # sacct listed a job that failed (its row's state)
    STOP = "stop"
    INTERRUPT = "interrupt"
    SHUTDOWN = "shutdown"  # vLLM tearing its processes down, whatever asked it to
    PORT_ACTIVE = "port_active"  # an IB/RoCE port NCCL uses came (back) up
    PORT_LOST = "port_lost"  # NCCL gave up recovering a failed IB device
    LAUNCH = "launch"  # a server or launcher starting up (once per run)


# Lines that may mark an event; the scanner only hands over lines holding one of these.
KEYWORDS = ("received signal=SIGTERM", "received signal=SIGINT", "KeyboardInterrupt",
            "Application startup complete", "Starting vLLM API server", "[shutdown]",
            "Received 15 signal", "Received 2 signal", "death signal",
            "API server: shutdown triggered",
            "The server is fired up and ready to roll", "Successfully assigned ",
            "Started HTTPService at", ": Connected", ": Ready", '"run_stop"',
            "notready -> ready",
            "Error waiting on exit barrier", "Reason: nanny-close",
            "worker group successfully finished",
            ") started successfully", "port active", "Port recovery succeeded",
            "Port recovery context done", "Port recovery failed", "as permanently failed",
            "has been recovered for resiliency context", "as recovered (",
            "Started container", "' succeeded", "exits successfully", "Writing final coordinates.",
            "vLLM API server version", "non-default args: {", "server_args=ServerArgs(",
            "Starting elastic_operator with launch configs", "COMPLETED", "FAILED", "TIMEOUT",
            "OUT_OF_ME", "NODE_FAIL", "CANCELLED")
# vLLM V1: "[shutdown] EngineCore: trigger received signal=SIGTERM" (a process still starting
# up raises KeyboardInterrupt instead); uvicorn (vLLM's API server): "INFO:     Application
# startup complete."
# NCCL 2.29+'s own recovery of a failed IB device finishing ("Port recovery succeeded for
# devIndex=1", "Marking device 1 as recovered"; also a port back to recovery.py)
PORT_RECOVERED = (r"\bPort recovery (?:succeeded for devIndex|context done for device)\b"
                  r"|\bDevice \d+ has been recovered for resiliency context\b"
                  r"|\bMarking device \d+ as recovered\b")
_EVENTS = (
    # vLLM 0.26's serve command also logs the signal by number ("Received 2 signal."), and
    # torchrun's agent names it: "Received 2 death signal" (older: "Received Signals.SIGINT
    # death signal"), shutting down workers
    # vLLM 0.26's API server told to stop ("[shutdown] API server: shutdown triggered"), by a
    # signal it does not name or by its engine's death (whose error comes before)
    # torchrun's agent failing its exit barrier, which it waits in only once its workers all
    # finished, at once ("Error waiting on exit barrier. Elapsed: 0.03 seconds": the agent that
    # held the store finished first and left); after the barrier's timeout (300 s) it is a
    # peer that never finished
    # Dask's nanny closing its worker because the client closed the cluster ("Closing Nanny at
    # 'tcp://127.0.0.1:40811'. Reason: nanny-close"): what its comms then raise is the teardown
    (re.compile(r"received signal=SIGTERM\b|\bAPI server: shutdown triggered\b"
                r"|\bClosing Nanny at \S+ Reason: nanny-close\b"
                r"|\bReceived (?:15|Signals\.SIGTERM) (?:death )?signal\b"
                r"|\bError waiting on exit barrier\. Elapsed: \d{1,2}(?:\.\d+)? seconds"),
     Event.STOP),
    (re.compile(r"received signal=SIGINT\b|\bKeyboardInterrupt\b"
                r"|\bReceived (?:2|Signals\.SIGINT) (?:death )?signal\b"), Event.INTERRUPT),
    # a server ready: uvicorn's "Application startup complete", SGLang's "The server is fired
    # up and ready to roll!"; Ray Serve's controller: "Replica(id='c1r9k6wz',
    # deployment='LLMServer:qwen3-32b', app='llm') started successfully"; Triton: "Started
    # HTTPService at 0.0.0.0:8000"; TGI's router: "router/src/server.rs:2340: Connected"; TEI's:
    # "router/src/http/server.rs:1797: Ready"; NVIDIA Dynamo's worker: "system_status_server:
    # health status changed: notready -> ready"
    (re.compile(r"\bINFO:\s+Application startup complete\b"
                r"|\bThe server is fired up and ready to roll\b"
                r"|\bReplica\(id=.{0,200}\) started successfully\b"
                r"|\bStarted HTTPService at \S+:\d+"
                r"|\btext_(?:generation|embeddings)_router\S*: router/\S+: "
                r"(?:Connected|Ready)\s*$"
                r"|\bhealth status changed: notready -> ready\b"),
     Event.READY),
    # vLLM's line just before uvicorn's: "Starting vLLM API server 0 on http://0.0.0.0:8000"
    (re.compile(r"\bStarting vLLM API server (?:\d+ )?on https?://"), Event.LISTENING),
    # torch elastic's agent: "[default] worker group successfully finished. Waiting 300 seconds
    # for other agents to finish."; DeepSpeed's launcher: "[launch.py:351:main] Process 58117
    # exits successfully."; `ray job submit` when the job ended: "Job 'raysubmit_Xb7k' succeeded"
    # (with its logger's prefix: "2026-12-07 05:39:20,662 SUCC cli.py:66 -- Job '...' succeeded")
    # MLPerf's logger at the end of a run that reached its target: ':::MLLOG {... "key":
    # "run_stop", ... "status": "success"}'; GROMACS mdrun at the end of its steps ("Writing
    # final coordinates.", then its timings)
    (re.compile(r"\bworker group successfully finished\b|\] Process \d+ exits successfully\."
                r"|(?:^|\bSUCC cli\.py:\d+ -- )Job '[\w-]+' succeeded\s*$"
                r"|^Writing final coordinates\.\s*$"
                r"|:::MLLOG .*\"key\": \"run_stop\".*\"status\": \"success\""), Event.FINISHED),
    # sacct's row of a job (not of a step) that ended well: "4426011  COMPLETED  2  nid..." (a
    # requeued job lists its preempted runs before), and of one that did not
    (re.compile(r"^\d+(?:_\d+)?\s+COMPLETED\s"), Event.JOB_COMPLETED),
    (re.compile(r"^\d+(?:_\d+)?(?:\.\w+)?\s+(?:FAILED|TIMEOUT|OUT_OF_ME\S*|NODE_FAIL"
                r"|CANCELLED)\b"), Event.JOB_FAILED),
    # the scheduler's event: "Successfully assigned llm/vllm-0 to gpu-node-3"
    (re.compile(r"\bSuccessfully assigned \S+ to \S"), Event.SCHEDULED),
    # kubelet's event: "Started container: mpi-worker" (before Kubernetes 1.33: "Started
    # container mpi-worker")
    (re.compile(r"\bStarted container:? [\w.-]+\s*$"), Event.STARTED),
    # vLLM 0.26: "[shutdown] Executor: waiting for worker exit" (a signal it does not name)
    (re.compile(r"\[shutdown\] "), Event.SHUTDOWN),
    # NCCL's IB transport: "NET/IB : mlx5_6:1 Got non-fatal async event: port active(9)",
    # older "NET/IB : mlx5_3:1 Got async event : port active"
    # and NCCL 2.29+'s own recovery of a failed device: "Port recovery succeeded for devIndex=1",
    # "Port recovery context done for device 1", "Device 0 has been recovered for resiliency
    # context" (its protocol finished, the device is back)
    (re.compile(r"\bGot (?:non-fatal )?async (?:error )?event ?: port active\b|" + PORT_RECOVERED),
     Event.PORT_ACTIVE),
    # and its recovery giving up: "Port recovery failed for send comm=0x7f55d8044f20
    # devIndex=1", "Marking device 1 as permanently failed" (the run goes on without it)
    (re.compile(r"\bPort recovery failed for\b|\bMarking device \d+ as permanently failed\b"),
     Event.PORT_LOST),
    # what a run prints once, as it starts: vLLM's API server ("vLLM API server version
    # 0.11.0", and since 0.6 "non-default args: {'model_tag': ...}"), SGLang's
    # ("server_args=ServerArgs(model_path=..."), torchrun's agent ("Starting elastic_operator
    # with launch configs:"). A journal or `docker logs` of a service that was
    # restarted holds one per run.
    (re.compile(r"\bvLLM API server version \d|\bnon-default args: \{|\bserver_args=ServerArgs\("
                r"|\bStarting elastic_operator with launch configs\b"), Event.LAUNCH),
)


def event(text: str) -> Event | None:
    return next((kind for pattern, kind in _EVENTS if pattern.search(text)), None)


class Lifecycle:
    """The first and the last line of each event in one input (0: never)."""

    def __init__(self) -> None:
        self.first: dict[Event, int] = {}
        self.last: dict[Event, int] = {}

    def saw(self, event: Event, line: int) -> None:
        """The event, on this line (the caller counts the lines, in order)."""
        self.first.setdefault(event, line)
        self.last[event] = line

    def _interrupted_when_ready(self) -> bool:
        ready = self.first.get(Event.READY, 0)
        return 0 < ready < self.first.get(Event.INTERRUPT, 0)

    def stopped_healthy_at(self) -> int:
        """Where a healthy run was stopped: a SIGTERM, or a SIGINT after the server was ready.
        A SIGTERM after vLLM began tearing down does not count: that is the API server
        stopping its engine because it failed itself (a module it could not import)."""
        stop, teardown = self.first.get(Event.STOP, 0), self.first.get(Event.SHUTDOWN, 0)
        stops = [0 if 0 < teardown < stop else stop]
        if self._interrupted_when_ready():
            stops.append(self.first[Event.INTERRUPT])
        return min((line for line in stops if line), default=0)

    def ended_at(self, total_lines: int) -> int:
        """The last line of the run's own work: where it was asked to stop or began tearing
        down, else the end of the log (the stack traces and teardown after it are not work)."""
        stops = (self.first.get(kind, 0) for kind in (Event.STOP, Event.INTERRUPT, Event.SHUTDOWN))
        return min((line for line in stops if line), default=total_lines)

    def hung_until(self) -> int:
        """Where a run that never became ready was interrupted with Ctrl-C (0: it was not)."""
        return 0 if self._interrupted_when_ready() else self.first.get(Event.INTERRUPT, 0)
