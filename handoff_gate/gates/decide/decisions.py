"""Durable approve/reject decisions, made through the run's store.

A decision pins the sha256 of the exact bytes the reviewer saw. Each principal has one
exclusive record per handoff (the unsigned decision one shared slot), so racing writers
cannot both succeed and a crash leaves either no record or a complete one. A signed
record's SSHSIG also binds the audit log's head, so history rewritten before it is
detected. An approved edit's bytes are kept before the record naming them, so a record
never names bytes that are not there. The record is published before its audit event:
if logging fails the decision still stands (``on_warning``; ``audit --verify`` lists it).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, TypedDict, TypeGuard

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.decision_record import (
    Decision,
    DecisionCorrupt,
    codes_of,
    describe,
    parse_decision,
    record_bytes,
)
from handoff_gate.gates.decide.reviewer import default_reviewer
from handoff_gate.gates.standing.edits import (
    EditedPayload,
    edit_bytes_of,
    edit_problem,
    inspect_edit,
)
from handoff_gate.gates.standing.ending import deadline, ending
from handoff_gate.gates.standing.phase_rule import rule_of
from handoff_gate.gates.standing.quorum import settle
from handoff_gate.gates.standing.report_in_run import append_only_fields, inspect_in_run
from handoff_gate.gates.store.base import (
    DecisionExists,
    FolderMechanics,
    RunStore,
    has_handoff,
    live_waiters,
)
from handoff_gate.gates.store.log_lines import last_line
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.submit.placement import producer_bytes_sha256, verified_producer
from handoff_gate.gates.trust.sshsig import SignatureError, SigningError
from handoff_gate.gates.trust.statement import NO_LOG_HEAD, StatementError
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.caller import CALLER_GAVE_UP, caller_gone
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.ids import validate_id
from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.gates.vocab.safe_text import has_unsafe
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy, Rule
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.gates.vocab.report import Report


class DecisionRefused(Exception):
    """A decision that must not be written; the message is one line, fit for stderr."""


class EditRefused(DecisionRefused):
    """An edit that is not approvable: ``report`` is its inspection, findings and all,
    so a front end can show the reviewer what to fix."""

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


class BatchOptions(TypedDict, total=False):
    """The keywords of a batch decision (``Gate.decide_many``), written once."""

    reason: str | None
    category: Category | str | None
    reviewer: str | None
    on_warning: Callable[[str], None] | None


class DecisionOptions(BatchOptions, total=False):
    """The keywords of one decision (``handoff_gate.decide``, ``Gate.decide``), written once."""

    expected_sha256: str | None
    edited_payload: EditedPayload | None


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionRequest:
    """What a reviewer decides, as ``decide`` takes it (see there)."""

    action: Action | str
    reason: str | None = None
    category: Category | str | None = None
    reviewer: str | None = None
    expected_sha256: str | None = None
    edited_payload: EditedPayload | None = None
    on_warning: Callable[[str], None] | None = None

    @classmethod
    def of(cls, action: Action | str, options: DecisionOptions) -> DecisionRequest:
        """The request of ``action`` with ``options`` (``TypeError`` for a keyword that is
        not one of them)."""
        checked("decide", options, DecisionOptions)
        return cls(action=action, **options)


class _Attempt:
    """One call of ``decide``: what it works on (the rule worked out once) and how a
    refusal is logged and raised."""

    def __init__(
        self, context: GateContext, run: str, handoff_id: str, action: Action, rule: Rule | None
    ) -> None:
        self.context = context
        self.store = context.store
        self.run = run
        self.handoff_id = handoff_id
        self.action = action
        self.rule = rule
        self.who = ""

    def refuse(self, message: str) -> NoReturn:
        """Log the refusal (when there is a run to log in) and raise it."""
        if self.store.exists(self.run):
            audit.append(
                self.run,
                audit.Event.DECISION_REFUSED,
                store=self.store,
                handoff=self.handoff_id,
                action=self.action.value,
                reviewer=self.who,
                why=message,
            )
        raise DecisionRefused(message)


def principal_for(key: SigningKey, policy: Policy, rule: Rule, reviewer: str | None) -> str:
    """The approver of ``rule`` the key may sign as (``reviewer`` picks among several);
    ``ValueError`` when the file is not a key at all (a usage error, not a refusal)."""
    try:
        public_key = key.public_key()
    except SigningError as exc:
        raise ValueError(f"cannot use the key: {exc}") from None
    allowed = policy.signers.names_among(public_key, rule.approvers)
    if reviewer is not None and reviewer in allowed:
        return reviewer
    if allowed:
        return allowed[0]
    raise DecisionRefused(
        f"this key may not decide phase {rule.phase!r}; who may: {', '.join(rule.approvers)}"
    )


def _signer(
    key: SigningKey | None, policy: Policy | None, rule: Rule | None, reviewer: str | None
) -> tuple[str | None, str | None]:
    """(the principal the decision is signed as, why it must be refused): under a policy
    an unsigned decision would be ignored, so it is refused up front."""
    if policy is None or rule is None:
        return None, None
    if key is None:
        return None, (
            f"under the policy {policy.path} only signed decisions count: decide with "
            f"--key, the key of an approver of phase {rule.phase!r} "
            f"({', '.join(rule.approvers)})"
        )
    try:
        return principal_for(key, policy, rule, reviewer), None
    except DecisionRefused as exc:
        return None, str(exc)


def decide(
    context: GateContext,
    run: str | os.PathLike[str],
    ref_or_id: HandoffRef | str,
    request: DecisionRequest,
    *,
    seen: Report | None = None,
) -> Decision:
    """Record a decision after re-inspecting the handoff's current bytes (``seen``: a
    batch's report of it, which stands while the bytes keep its sha256).

    Every refusal is ``DecisionRefused`` (``EditRefused`` for an edit), audited, with
    nothing written; ``ValueError`` for a malformed argument, a key without a policy or
    a phase the policy has no rule for (``NoRule``).
    """
    handoff_id = validate_id(handoff_id_of(ref_or_id))
    action = Action(request.action)
    edited = None if request.edited_payload is None else edit_bytes_of(request.edited_payload)
    if edited is not None and action is not Action.APPROVE:
        raise ValueError("only an approval can carry an edited payload")
    category = Category(request.category) if request.category is not None else None
    key, policy = context.key, context.policy
    if key is not None and policy is None:
        raise ValueError("--key needs --policy: the policy's allowed_signers names the signer")
    rule = rule_of(policy, handoff_id) if policy is not None else None
    attempt = _Attempt(context, os.fspath(run), handoff_id, action, rule)
    principal, refusal = _signer(key, policy, rule, request.reviewer)
    attempt.who = _reviewer(request.reviewer, principal)
    if refusal is not None:
        attempt.refuse(refusal)
    reason = request.reason.strip() if request.reason is not None else None
    report = _checked(attempt, principal, reason, request.expected_sha256, seen)
    decision = _record(attempt, reason, category, report)
    if edited is not None:
        decision = _with_edit(attempt, decision, report, edited)
    if principal is not None and key is not None:
        decision = _signed(attempt, decision, principal, key)
    if edited is not None:
        _keep_edit(attempt, edited)
    _write(attempt, principal, decision, request.on_warning)
    return decision


def _with_edit(attempt: _Attempt, decision: Decision, report: Report, edited: bytes) -> Decision:
    """The approval naming the edit's digest, once the edit inspects as approvable."""
    registry = attempt.context.contracts
    found = inspect_edit(attempt.store, attempt.run, attempt.handoff_id, report, edited, registry)
    problem = edit_problem(found)
    if problem is not None:
        message = f"{attempt.handoff_id}: {problem}"
        try:
            attempt.refuse(message)
        except DecisionRefused:
            raise EditRefused(message, found) from None
    return decision.model_copy(update={"edited_sha256": found.sha256})


def _keep_edit(attempt: _Attempt, edited: bytes) -> None:
    """Store the edited bytes before the record that names them (a record that stands
    must never name bytes the store does not have)."""
    try:
        attempt.store.create_edit(attempt.run, attempt.handoff_id, edited)
    except OSError as exc:
        attempt.refuse(f"cannot keep the edited payload: {exc}")


def _reviewer(reviewer: str | None, principal: str | None) -> str:
    """The name the record carries: a signed record names its signer; else the name
    given, else ``user@host``."""
    who = principal if principal is not None else reviewer
    who = default_reviewer() if who is None else who.strip()
    if not who or len(who) > 200 or has_unsafe(who) or "\n" in who or "\t" in who:
        raise ValueError("the reviewer name must be 1-200 printable characters on one line")
    return who


def _checked(
    attempt: _Attempt,
    principal: str | None,
    reason: str | None,
    expected_sha256: str | None,
    seen: Report | None,
) -> Report:
    """The handoff's report, once every reason to refuse the decision is ruled out."""
    store, where, handoff_id = attempt.store, attempt.run, attempt.handoff_id
    registry, policy = attempt.context.contracts, attempt.context.policy
    if attempt.action is Action.REJECT and not reason:
        attempt.refuse("a rejection needs a non-blank --reason")
    existing = _existing(store, where, handoff_id, principal, policy)
    if existing is not None:
        attempt.refuse(f"{handoff_id} is already {existing}")
    counted = _counted(attempt)
    if counted is not None:
        attempt.refuse(f"{handoff_id} is already {counted}; nothing more is recorded")
    if not has_handoff(store, where, handoff_id):
        attempt.refuse(f"no handoff {handoff_id} in {where}")
    if _still(seen, attempt):
        report = seen
    else:
        report = inspect_in_run(where, handoff_id, registry, policy=policy, store=store)
    envelope = report.envelope
    expires_at = (
        deadline(envelope.expires_at, envelope.created, attempt.rule)
        if envelope is not None
        else None
    )
    end = ending(store, where, handoff_id, expires_at)
    if end is not None:
        attempt.refuse(f"{end.why}; it can no longer be decided")
    if attempt.action is Action.APPROVE and caller_gone(
        envelope, live_waiters(store, where, handoff_id)
    ):
        attempt.refuse(f"{handoff_id}: {CALLER_GAVE_UP}")
    _check_report(attempt, report, expected_sha256)
    if policy is not None and principal is not None and report.envelope is not None:
        producer = verified_producer(report.envelope, store.run_name(where), policy)
        if producer == principal:
            attempt.refuse(f"{principal!r} produced {handoff_id} and may not decide it")
    return report


def _still(seen: Report | None, attempt: _Attempt) -> TypeGuard[Report]:
    """Whether ``seen`` is still the handoff's report: its bytes have the same sha256,
    and its contract keeps no field append-only (that check reads earlier handoffs'
    decisions, which a batch may have just written)."""
    if seen is None or not seen.sha256 or seen.envelope is None:
        return False
    if append_only_fields(attempt.context.contracts, seen.envelope.schema_id):
        return False
    return attempt.store.handoff_sha256(attempt.run, attempt.handoff_id) == seen.sha256


def _write(
    attempt: _Attempt,
    principal: str | None,
    decision: Decision,
    on_warning: Callable[[str], None] | None,
) -> None:
    """Store the record with its ``decision_written`` event; a record that stands but
    was not logged is told to ``on_warning`` (``audit --verify`` lists it)."""
    store, where, handoff_id = attempt.store, attempt.run, attempt.handoff_id
    data = record_bytes(decision)
    event = audit.written_event(
        decision.model_dump(mode="json"),
        **({"principal": principal} if principal is not None else {}),
        **(
            {"edited_sha256": decision.edited_sha256, "edited_by": attempt.who}
            if decision.edited_sha256 is not None
            else {}
        ),
    )
    try:
        _create(attempt, principal, data, event)
    except OSError as exc:
        if store.decision_records(where, handoff_id).get(principal) != data:
            raise
        if on_warning is not None:
            on_warning(f"{handoff_id}: the decision stands but was not logged: {exc}")


#: How often a signed decision sets aside junk in its slot before it is refused: an agent
#: planting faster than a reviewer writes still loses no veto (the refusal is logged).
_SET_ASIDE_TRIES = 3


def _create(
    attempt: _Attempt, principal: str | None, data: bytes, event: Mapping[str, object]
) -> None:
    """Publish the record; a slot taken by junk is set aside and tried again, a slot
    holding the principal's own valid record refuses (see ``_existing``)."""
    store, where, handoff_id = attempt.store, attempt.run, attempt.handoff_id
    for _ in range(_SET_ASIDE_TRIES):
        try:
            store.create_decision(where, handoff_id, principal, data, event)
            return
        except DecisionExists:
            existing = _existing(store, where, handoff_id, principal, attempt.context.policy)
            if existing is not None:
                attempt.refuse(f"{handoff_id} is already {existing}")
    attempt.refuse(f"{handoff_id}: the slot of {principal!r} keeps being taken; nothing written")


def _check_report(attempt: _Attempt, report: Report, expected_sha256: str | None) -> None:
    handoff_id = attempt.handoff_id
    if not report.sha256:
        attempt.refuse(f"{handoff_id} cannot be read; nothing to decide")
    if expected_sha256 is not None and report.sha256 != expected_sha256:
        attempt.refuse(_digest_mismatch(handoff_id, report, expected_sha256))
    if attempt.action is Action.APPROVE and not report.approvable:
        blocking = {f.code for f in report.blocking}
        codes = ", ".join(sorted(code.value for code in blocking))
        stored = report.envelope is not None and report.envelope.schema_sha256 is not None
        hint = (
            "; its contract is not loaded here: pass the contracts module with --schemas "
            "(or HANDOFF_GATE_SCHEMAS), a module that defines only contracts"
            if Code.UNKNOWN_SCHEMA in blocking and not stored
            else "; the contract stored in the run that it names cannot be used (see show)"
            if Code.UNKNOWN_SCHEMA in blocking
            else ""
        )
        attempt.refuse(f"{handoff_id} is blocked ({codes}){hint}")


def _digest_mismatch(handoff_id: str, report: Report, expected: str) -> str:
    """Why ``--sha256`` does not match: the payload's digest given for the handoff
    file's (``check plan.json`` prints the payload's), or a real change."""
    envelope = report.envelope
    if envelope is not None and producer_bytes_sha256(envelope) == expected:
        return (
            f"{handoff_id}: --sha256 names the payload's sha256 (what `check` prints for the "
            "bare payload), not the handoff file's; use the sha256 that "
            f"`handoff-gate show RUN {handoff_id}` prints ({report.sha256})"
        )
    return f"{handoff_id} changed since it was reviewed; review it again before deciding"


def _record(
    attempt: _Attempt, reason: str | None, category: Category | None, report: Report
) -> Decision:
    return Decision(
        handoff=attempt.handoff_id,
        run=attempt.store.run_name(attempt.run),
        action=attempt.action,
        reason=reason or None,
        category=category,
        reviewer=attempt.who,
        decided_at=audit.now_iso(),
        sha256=report.sha256,
        verdict=report.verdict,
        codes=codes_of([f.code.value for f in report.findings]),
    )


def _signed(attempt: _Attempt, decision: Decision, principal: str, key: SigningKey) -> Decision:
    """The decision with its principal, the log head it saw, and its signature."""
    last = last_line(attempt.store, attempt.run)
    log_head = NO_LOG_HEAD if last is None else last.digest
    statement = decision.statement(principal, log_head)
    try:
        signature = key.sign(statement)
    except SigningError as exc:
        attempt.refuse(f"cannot sign: {exc}")
    return decision.model_copy(
        update={"principal": principal, "log_head": log_head, "signature": signature}
    )


def _existing(
    store: RunStore,
    run: str,
    handoff_id: str,
    principal: str | None,
    policy: Policy | None = None,
) -> str | None:
    """A one-line description of this slot's decision already stored, if any.

    A signed slot holds a decision only if the record there is that principal's, signed
    by a key the policy lists for it now. Anything else an agent may have planted there
    is set aside in a run folder (a database's slots only reviewers write), so it never
    keeps a reviewer's decision, a veto above all, from being recorded.
    """
    try:
        data = store.decision_records(run, handoff_id).get(principal)
    except (OSError, ValueError) as exc:  # a FIFO, a directory, a symlink out of the run
        if principal is None or policy is None:
            if isinstance(exc, OSError):
                return "decided (the decision record is unreadable)"
            raise  # a path out of the run is refused as unsafe, not as decided
        data = b""
    if data is None:
        return None
    if principal is not None and policy is not None:
        found = _valid_record(data, store.run_name(run), handoff_id, principal, policy)
        if found is not None:
            return describe(found)
        if not isinstance(store, FolderMechanics):
            return None
        if store.set_aside_decision(run, handoff_id, principal):
            _log_set_aside(store, run, handoff_id, principal)
        return None
    try:
        return describe(parse_decision(data, store.run_name(run), handoff_id))
    except DecisionCorrupt:
        return "decided (the decision record is unreadable)"


def _counted(attempt: _Attempt) -> str | None:
    """The decision that already counts, when one more record of ``action`` could change
    nothing. Under a policy a veto is still recorded after the quorum approved: it is
    the rule's way to stop an approved handoff before it is delivered."""
    context, action = attempt.context, attempt.action
    policy = context.policy
    try:
        settled = settle(
            attempt.store,
            attempt.run,
            attempt.handoff_id,
            context.contracts,
            policy,
            rule=attempt.rule,
        )
    except (DecisionCorrupt, OSError, ValueError):
        return None  # the record's own checks (and _existing) say what is wrong
    counts = settled.outcome is HandoffState.REJECTED or (
        settled.outcome is HandoffState.APPROVED and (policy is None or action is Action.APPROVE)
    )
    if not counts:
        return None
    named = settled.decisions[0] if settled.decisions else None
    return describe(named) if named is not None else str(settled.outcome)


def _log_set_aside(store: RunStore, run: str, handoff_id: str, principal: str) -> None:
    """Log what was planted in a slot as a refused record, so ``audit`` shows it. A log
    that cannot take it must not keep the reviewer's decision out: that is logged next."""
    with contextlib.suppress(OSError):
        audit.append(
            run,
            audit.Event.DECISION_REFUSED,
            store=store,
            handoff=handoff_id,
            reviewer=principal,
            why=f"{principal}'s slot held something that is not their signed record; set aside",
        )


def _valid_record(
    data: bytes, run_name: str, handoff_id: str, principal: str, policy: Policy
) -> Decision | None:
    """The record when it is ``principal``'s own, signed by a key listed for it now."""
    try:
        found = parse_decision(data, run_name, handoff_id)
    except DecisionCorrupt:
        return None
    if found.principal != principal or found.signature is None or found.log_head is None:
        return None
    try:
        policy.signers.verify(
            found.statement(principal, found.log_head), found.signature, principal
        )
    except (SignatureError, StatementError, ValueError):
        return None
    return found
