"""A handoff's standing: its report, state, decisions, producer and waiters, in one look.

``list``, ``show``, the TUI and ``Gate.standing`` all ask this one function, so they
agree on every handoff. The bytes are read once and the records settled once against
that report. It never raises: what cannot be read is ``blocked`` or ``unusable``.
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass, replace
from typing import TYPE_CHECKING

from pydantic import ValidationError

from handoff_gate.gates.audit.decision_record import Decision, DecisionCorrupt
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.standing.ending import deadline, decided_late, ending
from handoff_gate.gates.standing.phase_rule import NoRule, rule_of
from handoff_gate.gates.standing.quorum import Settlement, approved_bytes, leading_approvals, settle
from handoff_gate.gates.standing.report_in_run import blocked_report, inspect_in_run
from handoff_gate.gates.store.base import RunStore, WaiterRecord, live_waiters
from handoff_gate.gates.vocab.caller import caller_gone
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import os_reason
from handoff_gate.gates.vocab.states import NEEDS_PERSON, Decided, HandoffState, state_of

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule


@dataclass(frozen=True, slots=True)
class Standing:
    """Where one handoff stands now.

    ``decision`` is the deciding record (the reject, or the first approval), ``None``
    while it waits; ``decisions`` every record that counts so far. ``problem`` says why
    it is ``unusable``, withdrawn or expired, or why nobody may decide it; ``waiters``
    is ``None`` when the store cannot tell. ``delivered`` is when an approved tool call
    was first delivered (``""``: not yet, or not a tool call; ``"unknown"``: unreadable).
    """

    ref: HandoffRef
    run_name: str
    report: Report
    state: HandoffState
    _: KW_ONLY
    decision: Decision | None = None
    decisions: tuple[Decision, ...] = ()
    problem: str = ""
    waiters: tuple[WaiterRecord, ...] | None = None
    rule: Rule | None = None
    producer: str | None = None
    refused: tuple[str, ...] = ()
    delivered: str = ""
    #: Undecided, and the one process that would run it (a coding agent's hook) no
    #: longer waits on it: approving it is refused (``vocab.caller``).
    caller_gone: bool = False

    @property
    def named(self) -> Decision | None:
        """The record a one-line view names: the deciding one, else the first approval."""
        return self.decision or (self.decisions[0] if self.decisions else None)

    def counted(self) -> tuple[tuple[Decision, ...], tuple[str, ...]]:
        """The approvals counted toward the quorum so far (none once rejected), and a line
        for each other approval naming the other bytes it approved: who a front end says
        approved, in the order ``quorum`` settles them."""
        approvals = () if self.state is HandoffState.REJECTED else self.decisions
        counted, others = leading_approvals(approvals)
        apart = tuple(
            f"{d.principal or d.reviewer} approved {approved_bytes(d)}, "
            f"not {approved_bytes(counted[0])}: not counted with them"
            for d in others
        )
        return counted, apart


def standing(
    store: RunStore,
    ref: HandoffRef,
    registry: Registry,
    *,
    policy: Policy | None = None,
) -> Standing:
    """Inspect the handoff in its run and settle its decisions, trusting neither; then
    its end without a decision, if it reached one (``standing.ending``)."""
    found = _settled(store, ref, registry, policy)
    if found.state in (HandoffState.BLOCKED, HandoffState.UNUSABLE) and not found.report.sha256:
        return found
    try:
        found = _ended(store, found)
    except Exception as exc:  # a withdrawal that cannot be read: show it, never approve
        problem = f"the withdrawal cannot be read: {os_reason(exc)}"
        return replace(found, state=HandoffState.UNUSABLE, problem=problem)
    if found.state in NEEDS_PERSON and caller_gone(found.report.envelope, found.waiters):
        found = replace(found, caller_gone=True)
    return _delivered(store, found)


def _delivered(store: RunStore, found: Standing) -> Standing:
    """An approved tool call's first delivery, if a wait took it (only those are read)."""
    envelope = found.report.envelope
    if found.state is not HandoffState.APPROVED or envelope is None or envelope.tool is None:
        return found
    try:
        record = store.delivery_record(found.ref.run, found.ref.id)
    except (OSError, ValueError):
        return replace(found, delivered="unknown")
    if record is None:
        return found
    try:
        at = json.loads(record).get("at")
    except (ValueError, AttributeError):
        at = None
    return replace(found, delivered=at if isinstance(at, str) and at else "unknown")


def _ended(store: RunStore, found: Standing) -> Standing:
    """Withdrawn outranks every state but a reject (a withdrawal beside a reject was
    planted or lost a race: the producer is told the reviewer's reason); expired
    replaces an undecided one, and an approval dated after the deadline."""
    envelope = found.report.envelope
    expires_at = (
        deadline(envelope.expires_at, envelope.created, found.rule)
        if envelope is not None
        else None
    )
    end = ending(store, found.ref.run, found.ref.id, expires_at)
    if end is None:
        return found
    late = decided_late(expires_at, [d.decided_at for d in found.decisions])
    undecided = found.state in NEEDS_PERSON
    if end.state is HandoffState.WITHDRAWN and found.state is HandoffState.REJECTED:
        return found  # a reject stands: a withdrawal after it cannot hide its reason
    if end.state is HandoffState.WITHDRAWN or undecided or late:
        return replace(found, state=end.state, problem=end.why)
    return found


def _settled(
    store: RunStore, ref: HandoffRef, registry: Registry, policy: Policy | None
) -> Standing:
    try:
        name = store.run_name(ref.run)
        report = inspect_in_run(ref.run, ref.id, registry, policy=policy, store=store)
    except Exception as exc:  # fail closed: a store that went away is shown, never approves
        report = blocked_report(
            Code.INTERNAL_ERROR, f"could not inspect {ref.id}: {os_reason(exc)}"
        )
        return Standing(ref, ref.run, report, HandoffState.BLOCKED)
    base = Standing(
        ref, name, report, state_of(report, None), waiters=live_waiters(store, ref.run, ref.id)
    )
    try:
        if policy is None:
            return _unsigned(store, base, registry)
        return _signed(store, base, registry, policy)
    except Exception as exc:  # a store that failed mid-way: show it, never approve
        problem = f"the decisions cannot be read: {os_reason(exc)}"
        return replace(base, state=HandoffState.UNUSABLE, problem=problem)


def _unsigned(store: RunStore, base: Standing, registry: Registry) -> Standing:
    """Without a policy: the one unsigned record, if it is usable and for these bytes."""
    try:
        found = settle(store, base.ref.run, base.ref.id, registry, None, base.report)
    except DecisionCorrupt as exc:
        return replace(base, state=HandoffState.UNUSABLE, problem=unusable_reason(exc))
    decision = found.decisions[0] if found.decisions else None
    state, problem = standing_of(base.report, decision)
    return replace(base, state=state, decision=decision, decisions=found.decisions, problem=problem)


def _signed(store: RunStore, base: Standing, registry: Registry, policy: Policy) -> Standing:
    """Under a policy: the quorum of signed records, the producer and the refusals."""
    ref = base.ref
    try:
        rule = rule_of(policy, ref.id)
    except NoRule as exc:
        return replace(base, state=HandoffState.BLOCKED, problem=str(exc))
    try:
        found: Settlement = settle(store, ref.run, ref.id, registry, policy, base.report)
    except OSError as exc:
        if store.decision_records(ref.run, ref.id):
            problem = (
                f"the handoff cannot be read, so its decisions cannot be checked: {os_reason(exc)}"
            )
            return replace(base, state=HandoffState.UNUSABLE, rule=rule, problem=problem)
        return replace(base, rule=rule)
    counted = replace(
        base, rule=rule, producer=found.producer, refused=found.refused, decisions=found.decisions
    )
    if found.outcome is None:
        return counted
    decision = found.decisions[0] if found.decisions else None
    problem = REWRITTEN if found.rewritten else counted.problem
    return replace(counted, state=found.outcome, decision=decision, problem=problem)


#: What a reader is told of a signed reject made for bytes the handoff no longer holds.
REWRITTEN = (
    "changed after submit: the handoff's bytes are not the ones the signed reject was made "
    "for; the reject stands for this handoff whatever it holds now"
)


#: At most this many validation problems are named; the rest are counted.
MAX_PROBLEMS = 3


def unusable_reason(exc: Exception) -> str:
    """The decision's exact problem, each invalid field and why, or the read error:
    "N problem(s)" would tell nobody what to fix."""
    cause = exc.__cause__
    if not isinstance(cause, ValidationError):
        return str(exc)
    problems = [
        f"{'.'.join(str(p) for p in err['loc']) or '(record)'}: {err['msg']}"
        for err in cause.errors(include_url=False, include_input=False)
    ]
    more = len(problems) - MAX_PROBLEMS
    text = "; ".join(problems[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
    return f"not a valid decision file: {text}"


def standing_of(
    report: Report, decision: Decided | None, problem: str = ""
) -> tuple[HandoffState, str]:
    """The state of a handoff and, for ``unusable``, why. A decided handoff whose bytes
    cannot be read is ``unusable``, not ``changed``: "changed" would send the reviewer
    looking for an edit that may never have happened."""
    if problem:
        return HandoffState.UNUSABLE, problem
    if decision is not None and not report.sha256:
        why = report.blocking[0].message if report.blocking else "it cannot be read"
        return (
            HandoffState.UNUSABLE,
            f"the handoff cannot be read, so its decision cannot be checked: {why}",
        )
    return state_of(report, decision), ""
