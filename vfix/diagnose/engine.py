"""Logs -> signatures -> ranked candidates (layer, root cause, evidence, fix).

Ranking: real causes before consequences (watchdog timeouts, "other ranks", connection resets,
"engine core initialization failed") before hints; then confidence; then the earliest line,
so with interleaved ranks the first rank to fail wins.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from vfix.diagnose import (
    busy_devices,
    firewall,
    gpu_state,
    nccl,
    nccl_rules,
    node_facts,
    recovery,
    shutdown,
    silent_death,
    stall,
    startup_memory,
    suspicious,
    visible_devices,
    world_size,
)
from vfix.diagnose.layer_guess import guess_layer
from vfix.diagnose.model import Candidate, Diagnosis, Evidence, FixStep, NcclSummary, Status
from vfix.diagnose.scanner import MAX_LINE_CHARS, Keywords, Locator, Scanner, Span, clean_line
from vfix.diagnose.signatures import Pattern, Signature, load_signatures
from vfix.diagnose.tally import KeywordRole, Matched, Tally, Verdicts
from vfix.errors import VfixError

_KIND_ORDER = {"cause": 0, "consequence": 1, "hint": 2}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass
class _Consumer:
    signature: int
    pattern: Pattern
    is_context: bool

    def __post_init__(self) -> None:
        self.regex = self.pattern.compiled


class _Plan:
    """The keyword table for one set of signatures: keyword -> who consumes a line holding it."""

    def __init__(self, signatures: Sequence[Signature]) -> None:
        self.signatures = tuple(signatures)
        self.unexplained_alone = frozenset(s.id for s in signatures if s.unexplained_alone)
        self.waits = frozenset(s.id for s in signatures if s.waits)
        self.roles: list[KeywordRole] = []
        index: dict[tuple[str, bool], KeywordRole] = {}

        def role(keyword: str, fold: bool = False) -> KeywordRole:
            key = (keyword.lower() if fold else keyword, fold)
            if key not in index:
                index[key] = KeywordRole(keyword, fold)
                self.roles.append(index[key])
            return index[key]

        for number, signature in enumerate(self.signatures):
            for pattern in signature.match:
                role(pattern.keyword, _folds(pattern.keyword)).consumers.append(
                    _Consumer(number, pattern, False))
            for pattern in signature.context:
                role(pattern.keyword, _folds(pattern.keyword)).consumers.append(
                    _Consumer(number, pattern, True))
        for keyword, score in suspicious.KEYWORDS.items():
            role(keyword).suspicious_score = score
        for keyword in nccl.KEYWORDS:
            role(keyword).feeds_nccl = True
        for keyword in shutdown.KEYWORDS:
            role(keyword).marks_event = True
        for keyword in node_facts.FOLDED_KEYWORDS:
            role(keyword, fold=True).tells_facts = True
        for keyword in node_facts.KEYWORDS:
            role(keyword).tells_facts = True
        self.waiting = frozenset(n for n, s in enumerate(self.signatures) if s.waits)
        self.finder = Keywords([r.keyword for r in self.roles], [r.folded for r in self.roles])
        signal = [r for r in self.roles
                  if r.consumers or r.feeds_nccl or r.marks_event or r.tells_facts]
        self.locate_signal = Locator.for_keywords(
            [r.keyword for r in signal if not r.folded], [r.keyword for r in signal if r.folded])
        self.locate_suspicious = Locator.for_keywords(list(suspicious.KEYWORDS))


def _folds(keyword: str) -> bool:
    """Signature keywords match in any letter case (a message quoted by another tool, in
    lower case), except acronyms and identifiers written in capitals (MIG, ACS, EADDRINUSE):
    those are always written so, and their lower case hides in words ("might")."""
    return not keyword.isupper()


_SIGNAL, _SUSPICIOUS = 0, 1  # the scanner's locators: signature or NCCL keywords; failures
_default_plan: _Plan | None = None


def _plan() -> _Plan:
    global _default_plan
    if _default_plan is None:
        _default_plan = _Plan(load_signatures())
    return _default_plan


def diagnose_stream(stream: BinaryIO, name: str = "-",
                    signatures: Sequence[Signature] | None = None) -> Diagnosis:
    """Diagnose one input read from a binary stream, in bounded memory."""
    plan = _Plan(signatures) if signatures is not None else _plan()
    scanner = Scanner(plan.finder, (plan.locate_signal, plan.locate_suspicious))
    run = _Run(plan, scanner)
    cached, judge = run.verdicts.cached, run.verdicts.judge
    for span in scanner.spans(stream):
        # A line cut in pieces has one number: its later pieces are counted the careful way.
        piece = span.start if span.continued else -1
        # The hot loop: every line holding a signature or NCCL keyword.
        for begin, _, raw in span.hit_lines(_SIGNAL):
            verdict = cached(raw) or judge(raw)
            if (event := verdict.event) is not None:
                line = span.line_at(begin)
                if event is shutdown.Event.LAUNCH and run.stopped_healthy():
                    run = _Run(plan, scanner, since=line)  # a restart: judge the new run
                    cached, judge = run.verdicts.cached, run.verdicts.judge
                    verdict = judge(raw)
                run.lifecycle.saw(event, line)
            if verdict.facts is not None:
                run.facts.add(span.line_at(begin), verdict.text, verdict.facts)
            if verdict.settled and begin != piece:
                verdict.repeats += 1
            elif verdict.tallied:
                run.tally.add(span.line_at(begin), verdict)
            if (nccl_event := verdict.nccl) is not None:
                quoted = nccl_event[0] in nccl.QUOTED_EVENTS
                run.summary.add(span.line_at(begin) if quoted else 0, verdict.text, nccl_event)
        _feed_suspicious(span, run)
    run.verdicts.flush()

    if scanner.bytes == 0:
        return _unusable(name, "the input is empty")
    if scanner.binary:
        return _unusable(name, "the input is not text (binary data)", scanner)
    lifecycle = run.lifecycle
    candidates = _rank(plan.signatures, run.tally.matched, run.tally.context_seen,
                       lifecycle.ended_at(scanner.lines), lifecycle.hung_until())
    progress = recovery.progress_lines(scanner.tail, scanner.lines)
    return _conclude(name, candidates, run, scanner, plan, progress)


class _Run:
    """What one run of the input showed. A log may hold several (a journal or `docker logs` of
    a service that was restarted): a launch after a run that was stopped healthy starts
    another, and only the last is judged. After a run that failed, the runs stay one: its
    failure is still the answer (a crash loop)."""

    def __init__(self, plan: _Plan, scanner: Scanner, since: int = 0) -> None:
        self.since = since  # its first line (0: the input's start)
        self.verdicts = Verdicts(plan, scanner.describe, clean_line, MAX_LINE_CHARS)
        self.tally = Tally(plan.waiting)
        self.lines = suspicious.SuspiciousLines()
        self.summary = nccl.NcclAccumulator()
        self.lifecycle = shutdown.Lifecycle()
        self.facts = node_facts.NodeFacts()

    def stopped_healthy(self) -> bool:
        """Whether the run was stopped (`Lifecycle.stopped_healthy_at`) with nothing failing
        before: neither a failing line nor a failing signature's."""
        stop = self.lifecycle.stopped_healthy_at()
        if not stop:
            return False
        earliest = self.lines.earliest()
        return (earliest is None or earliest.line > stop) and not any(
            record.failing and record.evidence[0].line < stop
            for record in self.tally.matched.values())


def _fill(template: str, groups: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: groups.get(m.group(1), "?"), template)


def _feed_suspicious(span: Span, run: _Run) -> None:
    """Hands over the run's lines that show a failure: all of them until the first few failing
    ones are kept, then only the last ones of the span (earlier ones would drop out of the
    tail)."""
    verdicts, lines, since = run.verdicts, run.lines, run.since
    after = -1
    if not lines.full:
        for begin, end, raw in span.hit_lines(_SUSPICIOUS, few=True):
            line = span.line_at(begin)
            if line < since:
                continue
            verdict = verdicts.of(raw)
            lines.feed(line, verdict.text, verdict.score)
            if lines.full:
                after = end
                break
        else:
            return
    for line, _, raw in span.last_hit_lines(_SUSPICIOUS, lines.TAIL, after):
        if line >= since:
            verdict = verdicts.of(raw)
            lines.feed(line, verdict.text, verdict.score)


_MAX_MERGED_EVIDENCE = 8  # lines one candidate cites once others of its root cause merge in
_TIMEOUT_CAUSE = "nccl_timeout_rank_died"
_RAY_SHORT = "ray_cluster_incomplete"


def _rank(signatures: Sequence[Signature], matched: dict[int, Matched],
          context_seen: set[int], ended_at: int, hung_until: int) -> list[Candidate]:
    """`ended_at`: the line where the run's own work ended (see `Lifecycle.ended_at`);
    `hung_until`: where a run that hung was interrupted (0: it was not)."""
    candidates = []
    for number, record in matched.items():
        signature = signatures[number]
        if signature.context and number not in context_seen:
            continue
        kind, confidence = signature.kind, signature.confidence
        if signature.waits and (record.last_line > ended_at - stall.TAIL_LINES
                                or record.last_line < hung_until):
            kind = "cause"  # the run still waited for it when it ended, or hung after it
        elif signature.progress:
            continue  # the wait ended: the run went on past it
        elif not (record.failing or signature.fatal):  # only in INFO/WARNING lines: a note
            kind, confidence = "hint", round(confidence / 2, 2)
        candidates.append(Candidate(
            layer=signature.layer.value,
            root_cause=signature.root_cause,
            confidence=confidence,
            evidence=tuple(record.evidence),
            explanation=_fill(signature.explanation, record.groups),
            fix=tuple(FixStep(_fill(s.step, record.groups), s.role) for s in signature.fix),
            check_next=tuple(_fill(c, record.groups) for c in signature.check_next),
            signature=signature.id,
            kind=kind,
            matches=record.count,
        ))
    candidates = _after_an_earlier_cause(signatures, candidates)
    candidates = _transient_beside_a_cause(signatures, candidates)
    # ties go to an error over a Python warning (which may only suggest: "flash-attn v3 may
    # provide important feature support"), then to the earlier line, then to the signature
    # written first (not to the order its keywords were found in)
    written = {signature.id: number for number, signature in enumerate(signatures)}
    candidates.sort(key=lambda c: (_KIND_ORDER[c.kind], -c.confidence,
                                   all(suspicious.is_python_warning(e.text) for e in c.evidence),
                                   c.evidence[0].line, written[c.signature]))
    candidates = _ended_before_the_timeouts(signatures, candidates)
    # One candidate per root cause: the best-ranked signature speaks for it, citing the lines
    # of the others after its own (a failure they cite is explained, not unknown).
    unique: dict[str, Candidate] = {}
    for candidate in candidates:
        kept = unique.setdefault(candidate.root_cause, candidate)
        if kept is not candidate and len(kept.evidence) < _MAX_MERGED_EVIDENCE:
            cited = {e.line for e in kept.evidence}
            more = tuple(e for e in candidate.evidence if e.line not in cited)
            unique[kept.root_cause] = replace(
                kept, evidence=(kept.evidence + more)[:_MAX_MERGED_EVIDENCE])
    return list(unique.values())


def _ended_before_the_timeouts(signatures: Sequence[Signature],
                               candidates: list[Candidate]) -> list[Candidate]:
    """A consequence saying how a process ended (`explains_later_timeouts`) goes just above the
    collective timeouts it came before: the peers timed out because that process was gone. One
    that came after them (a harness killing a hung job) stays below."""
    explaining = {s.id for s in signatures if s.explains_later_timeouts}
    timeout = next((c for c in candidates if c.root_cause == _TIMEOUT_CAUSE), None)
    if timeout is None:
        return candidates
    earlier = [c for c in candidates if c.signature in explaining and c.kind == timeout.kind
               and c.evidence[0].line < timeout.evidence[0].line]
    rest = [c for c in candidates if c not in earlier]
    at = rest.index(timeout)
    return [*rest[:at], *earlier, *rest[at:]]


# An NCCL error's header ("unhandled system error ... Last error:") stands a few lines above the
# detail it reports: a cause that close is the same failure, not an earlier one.
_SAME_REPORT_LINES = 5


def _transient_beside_a_cause(signatures: Sequence[Signature],
                              candidates: list[Candidate]) -> list[Candidate]:
    """Causes of signatures that report a passing state (`transient`) become hints when
    another cause shows, before or after them. A Ray cluster short of the node such a wait
    kept out is what the deployment failed on (LABELLING.md): it becomes the cause."""
    passing = {s.id for s in signatures if s.transient}
    waiting = [c for c in candidates if c.signature in passing and c.kind == "cause"]
    if not waiting:
        return candidates
    if not any(c.kind == "cause" and c.signature not in passing for c in candidates):
        if not any(c.root_cause == _RAY_SHORT for c in candidates):
            return candidates
        candidates = [replace(c, kind="cause") if c.root_cause == _RAY_SHORT else c
                      for c in candidates]
    return [replace(c, kind="hint") if c in waiting else c for c in candidates]


def _after_an_earlier_cause(signatures: Sequence[Signature],
                            candidates: list[Candidate]) -> list[Candidate]:
    """Causes of signatures that also follow from an earlier failure (`follows_earlier_cause`)
    become consequences when another cause shows well before them."""
    following = {s.id for s in signatures if s.follows_earlier_cause}
    first = min((c.evidence[0].line for c in candidates if c.kind == "cause"), default=0)
    return [replace(c, kind="consequence") if c.signature in following and c.kind == "cause"
            and c.evidence[0].line > first + _SAME_REPORT_LINES else c for c in candidates]


def _conclude(name: str, candidates: list[Candidate], run: _Run, scanner: Scanner, plan: _Plan,
              progress: recovery.Progress) -> Diagnosis:
    lines, accumulator, lifecycle = run.lines, run.summary, run.lifecycle
    summary = accumulator.summary(scanner.last_nccl)
    hung = lifecycle.hung_until()
    if hung and not any(c.evidence[0].line < hung for c in candidates if c.kind != "hint"):
        # Ctrl-C ended a run that never became ready and had not failed: it hung. Only what
        # it printed before the interrupt can say why, not what the interrupt broke (the
        # KeyboardInterrupt tracebacks).
        failing = [c for c in candidates
                   if c.evidence[0].line < hung and not _fell_back(c, summary)]
        candidates = [*failing, *(c for c in candidates if c not in failing)]
        for chosen in _summary_causes(accumulator):
            candidates, failing = _lead(chosen, candidates, failing)
        status = Status.CAUSE_FOUND if failing else Status.UNKNOWN
    else:
        candidates, failing, status = _judge(candidates, lines, accumulator, summary, scanner,
                                             lifecycle.stopped_healthy_at(), plan,
                                             run.facts, lifecycle, progress)
    causes = [c for c in candidates if c.kind == "cause"]
    first = min((c.evidence[0] for c in causes), key=lambda e: e.line, default=None)
    first = first or lines.first_failure()
    top = failing[0] if failing else None
    root_cause = top.root_cause if top else ("unknown" if status is Status.UNKNOWN else "none")
    layer: str | None = top.layer if top else None
    notes = []
    if run.since:
        notes.append(f"Judged the last run, from line {run.since}: the one before it was "
                     "stopped healthy.")
    if status is Status.UNKNOWN:
        layer = guess_layer(lines.top(), lines.first_exception())
        notes.append(f"No signature explains this failure; its failing lines read as {layer}.")
    return Diagnosis(
        input=name,
        status=status,
        root_cause=root_cause,
        layer=layer,
        candidates=tuple(candidates),
        first_failure=first,
        suspicious=lines.top() if status is not Status.CAUSE_FOUND else lines.top()[:3],
        nccl=summary,
        lines=scanner.lines,
        bytes=scanner.bytes,
        note=" ".join(notes) or None,
    )


def _judge(candidates: list[Candidate], lines: suspicious.SuspiciousLines,
           accumulator: nccl.NcclAccumulator, summary: NcclSummary | None, scanner: Scanner,
           stop_line: int, plan: _Plan, facts: node_facts.NodeFacts,
           lifecycle: shutdown.Lifecycle, progress: recovery.Progress
           ) -> tuple[list[Candidate], list[Candidate], Status]:
    """The failing candidates, best first, and the status of a run that did not hang until
    someone pressed Ctrl-C."""
    failing = [c for c in candidates if c.kind != "hint"]
    if not failing and not lines.raised:
        # Nothing failed but NCCL's output stops at the end: a hang, which notes (an NCCL
        # WARN about a missing optional library, say) do not explain; not when the log ends
        # on training steps (the run went on after whatever NCCL printed).
        stalled = () if len(progress.steps) >= 2 else stall.stall_candidates(
            summary, accumulator.destroyed, scanner.lines, accumulator.waiting_line,
            accumulator.alone)
        if stalled and summary is not None and stall.during_bootstrap(summary):
            # P2P cannot hang a run before any rank is set up; a network NCCL had to give up
            # on (no IB device, no libibverbs: sockets instead) is the first thing to look at
            given_up = next((c for c in candidates
                             if c.kind == "hint" and c.layer == "communication"), None)
            if given_up is not None:
                stalled = (replace(given_up, kind="cause"), *stalled)
                candidates = [c for c in candidates if c is not given_up]
        if stalled:
            candidates = [*stalled, *candidates]
            failing = list(stalled)
        elif found := _slowdown(accumulator, facts, candidates):
            cause, promoted_hint = found
            failing = [cause]
            candidates = [cause, *(c for c in candidates if c is not promoted_hint)]
    if not failing and lines.failed:
        # A failure that only hints explain: the best hint is the answer, except a warning's
        # prediction ("this can cause ...") when the log raised an exception of its own, and a
        # note that the run went on without something ("... not installed. Falling back to").
        # Nor a hint first seen after the first exception: it cannot explain that exception (a
        # health check that found nothing listening after the server died).
        first = lines.first_exception()
        failing = [c for c in candidates if not (lines.raised and _only_warned(c))
                   and not all(suspicious.went_on(e.text) for e in c.evidence)
                   and not (first is not None and c.evidence[0].line > first.line)]
    if failing and _unexplained_before(failing, candidates, lines, plan.waits):
        failing = []  # what followed a failure no signature knows: the cause is unknown
    elif failing and _unexplained_consequences(failing, plan.unexplained_alone):
        failing = []  # e.g. a native crash no signature explains: the failure, its cause unknown
    elif failing and _died_silently(failing[0], lines):
        killed = silent_death.killed_candidate(failing[0].evidence)
        candidates, failing = _lead(killed, candidates, failing)
    elif failing and (too_high := startup_memory.asked_too_much(failing[0])):
        candidates, failing = _lead(too_high, candidates, failing)
    elif failing and (taken := startup_memory.held_by_another(failing[0])):
        candidates, failing = _lead(taken, candidates, failing)
    elif failing and (sharing := busy_devices.ranks_sharing_gpus(
            failing[0], facts.memory_holders.orphan_listed())):
        candidates, failing = _lead(sharing, candidates, failing)
    elif failing and (crowded := facts.memory_holders.out_of_memory_crowded(failing[0])):
        candidates, failing = _lead(crowded, candidates, failing)
    elif failing and (listed := facts.memory_holders.held_elsewhere(failing[0])):
        candidates, failing = _lead(listed, candidates, failing)
    if failing and (full := _full_disk_first(failing[0], candidates)):
        candidates, failing = _lead(full, candidates, failing)
    if short := world_size.short_of_model_parallel(failing, lines.top()):
        candidates, failing = _lead(short, candidates, failing)
    if failing and (blocked := firewall.blocked_peer(failing[0], facts.rendezvous)):
        candidates, failing = _lead(blocked, candidates, failing)
    if failing and (missing := visible_devices.named_missing(failing[0], facts.listed_devices,
                                                             facts.uuids.gpus())):
        candidates, failing = _lead(missing, candidates, failing)
    if ((failing[0].layer == "visibility" if failing else lines.failed)
            and (not_here := facts.uuids.missing())):
        # a GPU named by the UUID of a card this node no longer has: the process saw no GPU,
        # whatever it then said (or a failure no signature knows)
        candidates, failing = _lead(not_here, candidates, failing)
    if failing and (slowed := gpu_state.slowed_behind_cooling(failing[0], facts.gpus)):
        candidates, failing = _lead(slowed, candidates, failing)
    if failing and (early := stall.early_timeout_over_p2p(failing[0], summary,
                                                          accumulator.first_timed_out)):
        for chosen in reversed(early):
            candidates, failing = _lead(chosen, candidates, failing)
    if _fails_between_ranks(failing, lines.failed):
        for chosen in _summary_causes(accumulator):
            candidates, failing = _lead(chosen, candidates, failing)
    if stop_line and not _failed_before(stop_line, candidates, lines):
        return candidates, [], Status.NO_FAILURE  # only the teardown of a stopped server failed
    if recovery.trained_on(progress.steps, candidates, lines, lifecycle):
        return candidates, [], Status.NO_FAILURE  # it recovered: the run trained on after them
    if recovery.served_on(lifecycle, progress.served, candidates, lines):
        return candidates, [], Status.NO_FAILURE  # only requests failed: it served on
    if recovery.port_came_back(lifecycle, failing, lines):
        return candidates, [], Status.NO_FAILURE  # an IB port flapped, and NCCL went on
    if recovery.served_past_ridden_out(lifecycle, failing, lines, progress.served):
        return candidates, [], Status.NO_FAILURE  # e.g. a NIC's address changed, NCCL went on
    if recovery.waited_out(lifecycle, candidates, lines, progress.served):
        return candidates, [], Status.NO_FAILURE  # it waited for something, then it came
    if failing:
        return candidates, failing, Status.CAUSE_FOUND
    return candidates, failing, Status.UNKNOWN if lines.failed else Status.NO_FAILURE


def _fell_back(hint: Candidate, summary: NcclSummary | None) -> bool:
    """A note that NCCL found no IB device, when it then chose TCP sockets: slower, but no
    reason for a hang."""
    return (hint.root_cause == "ib_unavailable" and hint.kind == "hint"
            and summary is not None and summary.network == "Socket")


def _slowdown(accumulator: nccl.NcclAccumulator, facts: node_facts.NodeFacts,
              candidates: list[Candidate]) -> tuple[Candidate, Candidate | None] | None:
    """Why a run nothing failed in went slower (or measured nothing), and the hint that cause
    was promoted from, if it was one; None when nothing slowed it."""
    if alone := facts.nccl_tests_ranks.ran_alone():
        return alone, None  # nccl-tests' processes each a world of one: no GPUs talked
    if unmatched := accumulator.unmatched_hcas:
        return nccl_rules.unmatched_hca_candidate(*unmatched), None  # a rail left unused
    if slow := accumulator.slow_rail:
        return nccl_rules.slow_rail_candidate(*slow), None  # one rail at a fraction of the rest
    if slow_port := facts.ports.slow_port():
        return slow_port, None  # the same, seen by a fabric tool (ibstat)
    if not_here := facts.uuids.missing():
        return not_here, None  # a GPU named by the UUID of a card this node no longer has
    if no_peers := facts.p2p.unsupported():
        return no_peers, None  # GPUs copying through host memory, seen by nvidia-smi topo -p2p
    if turned_off := facts.p2p.disabled_over_nvlink():
        return turned_off, None  # the same by a setting, on GPUs joined by NVLink
    if unused := accumulator.sockets_beside_rdma:
        # the whole fabric left unused for TCP; a warning that the RDMA stack is missing
        # pieces (a verbs provider) says why
        missing = next((c for c in candidates
                        if c.kind == "hint" and c.root_cause == "rdma_device_missing"), None)
        if missing is not None:
            return replace(missing, kind="cause"), missing
        return nccl_rules.sockets_beside_rdma_candidate(*unused, accumulator.verbs_missing), None
    if staged := accumulator.staged_through_host:
        return nccl_rules.staged_through_host_candidate(staged), None  # no GPU Direct RDMA
    if crowded := facts.memory_holders.crowded(out_of_memory=False):
        return crowded, None  # the job's processes all on one GPU, another idle
    if throttled := facts.gpus.throttled():
        return throttled, None  # a GPU held below its clocks (a lowered power limit, a slowdown)
    return None


def _lead(chosen: Candidate, candidates: list[Candidate], failing: list[Candidate]
          ) -> tuple[list[Candidate], list[Candidate]]:
    """Both lists with `chosen` at the top, speaking alone for its root cause."""
    def first(among: list[Candidate]) -> list[Candidate]:
        return [chosen, *(c for c in among if c.root_cause != chosen.root_cause)]
    return first(candidates), first(failing)


def _failed_before(line: int, candidates: list[Candidate],
                   lines: suspicious.SuspiciousLines) -> bool:
    """Whether a cause, a consequence or a failing line (an exception or a weaker one, such as
    a client's timeout while the server hung) came before `line`."""
    first = lines.earliest()
    return ((first is not None and first.line < line)
            or any(c.evidence[0].line < line for c in candidates if c.kind != "hint"))


def _summary_causes(accumulator: nccl.NcclAccumulator) -> list[Candidate]:
    """Causes read off the NCCL summary, the least likely first (each goes to the top)."""
    found = []
    if accumulator.host_only:
        found.append(nccl_rules.interface_candidate(*accumulator.host_only))
    if accumulator.shared_address:
        found.append(nccl_rules.shared_address_candidate(*accumulator.shared_address))
    if unmatched := accumulator.unmatched_hcas:
        found.append(nccl_rules.unmatched_hca_candidate(*unmatched))
    if len(accumulator.versions) > 1:
        found.append(nccl_rules.version_drift_candidate(accumulator.versions))
    if settings := accumulator.differing_settings:
        found.append(nccl_rules.differing_settings_candidate(settings))
    if uneven := accumulator.uneven_progress:
        found.append(nccl_rules.uneven_progress_candidate(*uneven))
    elif different := accumulator.different_collectives:
        found.append(nccl_rules.different_collectives_candidate(*different))
    if accumulator.duplicate:
        found.append(nccl_rules.duplicate_gpu_candidate(*accumulator.duplicate))
    return found


def _unexplained_before(failing: list[Candidate], candidates: list[Candidate],
                        lines: suspicious.SuspiciousLines, waits: frozenset[str]) -> bool:
    """Only consequences (a dead peer, ChildFailedError, a watchdog) or waits (a Ray cluster
    short of a node, a rendezvous: signatures in `waits`) speak, and an exception or an NCCL
    WARN (a network plugin's own error, a node's failed start) that no candidate cites came
    before all of them: that line is the cause, and unknown."""
    if any(c.kind != "consequence" and c.signature not in waits for c in failing):
        return False
    cited = {e.line for c in candidates for e in c.evidence}
    earliest = min(c.evidence[0].line for c in failing)
    return any(first is not None and first.line < earliest and not _explained(first, cited)
               for first in (lines.first_exception(), lines.first_with("NCCL WARN")))


# The C++ runtime's "terminate called after throwing an instance of 'c10::Error'" names only the
# exception's type: its message is the next line ("  what():  CUDA error: ...").
_TYPE_ONLY = "terminate called after throwing an instance of"


def _explained(line: Evidence, cited: set[int]) -> bool:
    """Cited, or its message is the next line, cited (a type-only line, or one ending in ':')."""
    continues = _TYPE_ONLY in line.text or line.text.endswith(":")
    return line.line in cited or (continues and line.line + 1 in cited)


def _unexplained_consequences(failing: list[Candidate], unexplained_alone: frozenset[str]) -> bool:
    """Only consequences speak, and the first of them proves a failure it cannot explain (a
    process crashing in native code, a worker that never registered, a worker's relayed error)."""
    return (all(c.kind == "consequence" for c in failing)
            and failing[0].signature in unexplained_alone)


def _died_silently(top: Candidate, lines: suspicious.SuspiciousLines) -> bool:
    """The answer is vLLM's front end reporting its engine core dead, and nothing was raised
    before that report."""
    if top.kind != "consequence" or not any(marker in top.evidence[0].text
                                            for marker in silent_death.MARKERS):
        return False
    first = lines.first_exception()
    return first is None or first.line >= top.evidence[0].line


def _fails_between_ranks(failing: list[Candidate], failed: bool) -> bool:
    """The run failed or hung between ranks (communication/network), or failed unexplained."""
    if not failing:
        return failed
    return failing[0].layer in ("communication", "network")


def _full_disk_first(top: Candidate, candidates: list[Candidate]) -> Candidate | None:
    """A full filesystem seen at or before the first line of a missing driver: the driver was
    left unwritten (a driver container whose image could not be unpacked, a module never built
    because depmod could not write, a CDI spec never written), so the disk is the cause."""
    if top.root_cause != "nvidia_driver_missing":
        return None
    return next((c for c in candidates if c.root_cause == "disk_full" and c.kind == "cause"
                 and min(e.line for e in c.evidence) <= top.evidence[0].line), None)


def _only_warned(candidate: Candidate) -> bool:
    return all(suspicious.is_warning_level(e.text) for e in candidate.evidence)


def _unusable(name: str, note: str, scanner: Scanner | None = None) -> Diagnosis:
    return Diagnosis(
        input=name, status=Status.UNUSABLE, root_cause="none", layer=None, candidates=(),
        first_failure=None, suspicious=(), nccl=None,
        lines=scanner.lines if scanner else 0, bytes=scanner.bytes if scanner else 0, note=note,
    )


def diagnose_text(text: str | bytes, name: str = "-") -> Diagnosis:
    """Diagnose a log held in memory (str or bytes)."""
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    return diagnose_stream(io.BytesIO(data), name=name)


def diagnose_paths(paths: Iterable[str | Path]) -> tuple[Diagnosis, ...]:
    """Diagnose each file (streamed). A missing or unreadable file is an operational error."""
    results = []
    for path in paths:
        path = Path(path)
        try:
            with path.open("rb") as stream:
                results.append(diagnose_stream(stream, name=str(path)))
        except IsADirectoryError as error:
            raise VfixError(f"{path}: is a directory, not a log file") from error
        except OSError as error:
            raise VfixError(f"{path}: {error.strerror or error}") from error
    return tuple(results)
