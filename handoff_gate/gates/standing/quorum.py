"""Settling a handoff: what its decision records, taken together, allow ``wait`` to return.

Without a policy whoever writes a decision decides (``no_policy_warning``): a signed
record is read like the unsigned one, its signature unchecked; any reject rejects, else
the first approval made decides.

Under a policy only signed decisions count, and a rule's decision in the unsigned slot
while the policy still makes it (``audit.rule_record``). A record that does not verify
(``baseline.check_signed``: signer, validity window by the verifier's clock, approver of the
phase, not the producer, bound to this run, handoff and sha256) is refused, ignored and
reported. One reject rejects; ``required`` approvals of one byte string (the producer's,
or one edit) approve while the bytes still inspect as approvable, the byte string whose
quorum was complete first winning. Approvals are named in the order they were made, so
every front end names the same approver first.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import KW_ONLY, dataclass, replace
from typing import TYPE_CHECKING

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.decision_record import (
    Decision,
    DecisionCorrupt,
    DecisionMisplaced,
    parse_decision,
)
from handoff_gate.gates.audit.rule_record import rule_problem
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.standing.baseline import check_signed, first_quorum, made
from handoff_gate.gates.standing.edits import edit_problem, kept_edit
from handoff_gate.gates.standing.phase_rule import rule_of
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.placement import verified_producer
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule


def no_policy_warning(store: RunStore) -> str:
    """What ``wait`` prints once on stderr when it runs without a policy, naming the
    store's kind of run (a run directory, a database run)."""
    return f"handoff-gate: no --policy: any process that can write the {store.run_noun} can approve"


@dataclass(frozen=True, slots=True)
class Settlement:
    """``outcome`` is ``None`` while the wait must go on; ``decisions`` are the ones that
    count so far (the approvals in the order they were made, or the reject)."""

    outcome: HandoffState | None
    decisions: tuple[Decision, ...] = ()
    _: KW_ONLY
    report: Report | None = None
    refused: tuple[str, ...] = ()
    #: Under a policy, the producer whose signature on the handoff verified.
    producer: str | None = None
    #: An approved edit: its report (the payload ``wait`` delivers instead of ``report``'s).
    edit: Report | None = None
    #: The signed reject that settles it was made for other bytes than the handoff holds
    #: now: the handoff was rewritten after the veto, which stands.
    rewritten: bool = False


def _current(store: RunStore, run: str, handoff_id: str) -> tuple[str, Envelope | None]:
    """The handoff's current sha256 and envelope (``None`` if it does not parse)."""
    data = store.handoff_bytes(run, handoff_id, MAX_HANDOFF_BYTES)
    try:
        envelope = Envelope.model_validate_json(data)
    except ValueError:
        envelope = None
    return hashlib.sha256(data).hexdigest(), envelope


def _veto(decision: Decision, slot: str, policy: Policy, rule: Rule, producer: str | None) -> bool:
    """Whether a signed reject counts for the handoff id whatever its bytes are now:
    rewriting the file it was made for must never free the id for an approval."""
    if decision.action is not Action.REJECT:
        return False
    return (
        check_signed(decision, slot, policy=policy, rule=rule, sha256=None, producer=producer)
        is None
    )


def settle(
    store: RunStore,
    run: str | os.PathLike[str],
    handoff_id: str,
    registry: Registry,
    policy: Policy | None = None,
    report: Report | None = None,
    *,
    rule: Rule | None = None,
) -> Settlement:
    """What the handoff's decision records allow now (see the module docstring);
    ``report`` and ``rule``, when the caller has them, are not worked out again.

    Without a policy an unusable unsigned record raises ``DecisionCorrupt`` unless it was
    made for another run or handoff (refused and ignored). ``NoRule`` when the policy
    does not cover the phase; ``OSError`` when the handoff cannot be read.
    """
    key = os.fspath(run)
    name = store.run_name(key)
    records = store.decision_records(key, handoff_id)
    if policy is None:
        signed = [(slot, data) for slot, data in records.items() if slot is not None]
        if signed and records.get(None) is None:
            return _signed_unchecked(store, key, name, handoff_id, registry, signed, report)
        return _unsigned(store, key, name, handoff_id, registry, records.get(None), report)
    rule = rule_of(policy, handoff_id) if rule is None else rule
    if report is None or not report.sha256:
        sha256, envelope = _current(store, key, handoff_id)
    else:
        sha256, envelope = report.sha256, report.envelope
    producer = verified_producer(envelope, name, policy) if envelope is not None else None
    refused: list[str] = []
    approvals: list[Decision] = []
    for slot, data in records.items():
        if slot is None:
            ruled = _by_rule(data, name, handoff_id, policy, envelope, sha256)
            if isinstance(ruled, str):
                refused.append(ruled)
                continue
            decision, rewritten = ruled, False
        else:
            if not data:  # the store reads a FIFO, a directory, a link or an oversize file so
                refused.append(f"{handoff_id}: {slot}: empty, or not a readable regular file")
                continue
            try:
                decision = parse_decision(data, name, handoff_id)
            except DecisionCorrupt as exc:
                refused.append(f"{handoff_id}: {slot}: {exc}")
                continue
            problem = check_signed(
                decision, slot, policy=policy, rule=rule, sha256=sha256, producer=producer
            )
            rewritten = problem is not None and _veto(decision, slot, policy, rule, producer)
            if problem is not None and not rewritten:
                refused.append(f"{handoff_id}: decision by {slot!r} ignored: {problem}")
                continue
        if decision.action is Action.REJECT:
            return Settlement(
                HandoffState.REJECTED,
                (decision,),
                refused=tuple(refused),
                producer=producer,
                rewritten=rewritten,
            )
        approvals.append(decision)
    approvals.sort(key=made)
    quorum = first_quorum(approvals, rule.required)
    if quorum is None:
        return Settlement(None, tuple(approvals), refused=tuple(refused), producer=producer)
    if report is None:
        report = inspect_in_run(key, handoff_id, registry, policy=policy, store=store)
    outcome, edit = _approved(store, key, quorum[0], sha256, report, registry)
    return Settlement(
        outcome, quorum, report=report, refused=tuple(refused), producer=producer, edit=edit
    )


def _by_rule(
    data: bytes,
    name: str,
    handoff_id: str,
    policy: Policy,
    envelope: Envelope | None,
    sha256: str,
) -> Decision | str:
    """The unsigned slot under a policy: a rule's decision that the policy still makes
    (``audit.rule_record``), else why it is ignored (a person's unsigned record always is)."""
    try:
        decision = parse_decision(data, name, handoff_id)
    except DecisionCorrupt:
        decision = None
    if decision is None or not decision.by_rule:
        return f"{handoff_id}: the unsigned decision is ignored under the policy"
    problem = rule_problem(decision, policy, envelope, sha256)
    if problem is not None:
        return f"{handoff_id}: decision by rule {decision.rule!r} ignored: {problem}"
    return decision


def leading_approvals(
    approvals: tuple[Decision, ...],
) -> tuple[tuple[Decision, ...], tuple[Decision, ...]]:
    """(the approvals of the byte string most approved so far, every other approval): what
    a front end counts toward the quorum, and what it names as approving other bytes.
    A tie goes to the byte string approved first; the order of ``approvals`` is kept."""
    counts: dict[str | None, int] = {}
    for decision in approvals:
        counts[decision.edited_sha256] = counts.get(decision.edited_sha256, 0) + 1
    if not counts:
        return (), ()
    top = max(counts.values())
    lead = next(digest for digest, count in counts.items() if count == top)
    return (
        tuple(d for d in approvals if d.edited_sha256 == lead),
        tuple(d for d in approvals if d.edited_sha256 != lead),
    )


def approved_bytes(decision: Decision) -> str:
    """What an approval approves, in a reviewer's words: the producer's bytes or an edit."""
    if decision.edited_sha256 is None:
        return "the producer's bytes"
    return f"an edit (sha256 {decision.edited_sha256[:12]})"


def _approved(
    store: RunStore, run: str, decision: Decision, sha256: str, report: Report, registry: Registry
) -> tuple[HandoffState, Report | None]:
    """``APPROVED`` (with the approved edit's report, if it approves one) while the bytes
    approved as ``sha256`` still inspect as approvable and any edit may be delivered;
    else ``CHANGED``."""
    if report.sha256 != sha256 or not report.approvable or report.delivered is None:
        return HandoffState.CHANGED, None
    if not decision.edited:
        return HandoffState.APPROVED, None
    try:
        edit = kept_edit(store, run, decision, report, registry)
    except (OSError, ValueError):
        return HandoffState.CHANGED, None
    if edit_problem(edit) is not None:
        return HandoffState.CHANGED, None
    return HandoffState.APPROVED, edit


def _signed_unchecked(
    store: RunStore,
    run: str,
    name: str,
    handoff_id: str,
    registry: Registry,
    signed: list[tuple[str, bytes]],
    report: Report | None,
) -> Settlement:
    """Principals' records read without a policy: a reject among them rejects, else the
    first approval made is the decision, judged as the unsigned record would be."""
    decisions: list[Decision] = []
    refused: list[str] = []
    for slot, data in signed:
        try:
            decisions.append(parse_decision(data, name, handoff_id))
        except DecisionCorrupt as exc:
            refused.append(f"{handoff_id}: {slot}: {exc}")
    for decision in decisions:
        if decision.action is Action.REJECT:
            return Settlement(HandoffState.REJECTED, (decision,), refused=tuple(refused))
    if not decisions:
        return Settlement(None, refused=tuple(refused))
    first = min(decisions, key=made)
    return replace(
        _settled_by(first, store, run, handoff_id, registry, report), refused=tuple(refused)
    )


def _unsigned(
    store: RunStore,
    run: str,
    name: str,
    handoff_id: str,
    registry: Registry,
    data: bytes | None,
    report: Report | None,
) -> Settlement:
    """The single-decision behaviour, refusing a record made for another place."""
    if data is None:
        return Settlement(None)
    try:
        decision = parse_decision(data, name, handoff_id)
    except DecisionMisplaced as exc:
        return Settlement(None, refused=(str(exc),))
    return _settled_by(decision, store, run, handoff_id, registry, report)


def _settled_by(
    decision: Decision,
    store: RunStore,
    run: str,
    handoff_id: str,
    registry: Registry,
    report: Report | None,
) -> Settlement:
    """Where one decision read without a policy leaves the handoff: rejected, or
    approved while the bytes still inspect as approvable (an approved edit too)."""
    if decision.action is Action.REJECT:
        return Settlement(HandoffState.REJECTED, (decision,))
    if report is None:
        report = inspect_in_run(run, handoff_id, registry, store=store)
    outcome, edit = _approved(store, run, decision, decision.sha256, report, registry)
    return Settlement(outcome, (decision,), report=report, edit=edit)


def record_refusals(
    store: RunStore,
    run: str | os.PathLike[str],
    handoff_id: str,
    settlement: Settlement,
    seen: set[str],
) -> list[str]:
    """Log each refusal not in ``seen`` once (``decision_refused``) and return them, so a
    wait that settles again and again prints and records every ignored record only once."""
    fresh = [line for line in settlement.refused if line not in seen]
    for line in fresh:
        seen.add(line)
        audit.append(
            os.fspath(run),
            audit.Event.DECISION_REFUSED,
            store=store,
            handoff=handoff_id,
            why=line,
        )
    return fresh
