"""``audit --verify``: does the run's history hold together, record by record?

The chain alone proves only that no line was changed *without re-chaining*; a writer of
the run directory can re-chain an edited log, cut its tail, or delete it. So the log is
also checked against the records it describes (the list is docs/protocol.md's; what
remains undetectable, docs/security.md's). Of a handoff's events the first counts: one
more, correctly chained, cannot bless a rewrite.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.audit.decision_record import (
    Decision,
    DecisionCorrupt,
    parse_decision,
    parse_stamp,
)
from handoff_gate.gates.audit.log import Event, chain_problems, log_lines, parse_line
from handoff_gate.gates.audit.rule_record import rule_problem
from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaError,
    read_json_schema,
    schema_sha256,
)
from handoff_gate.gates.store.base import FolderMechanics, RunReplaced, RunStore
from handoff_gate.gates.store.log_chain import GENESIS
from handoff_gate.gates.trust import ed25519
from handoff_gate.gates.trust.sshsig import SignatureError
from handoff_gate.gates.trust.statement import NO_LOG_HEAD, StatementError
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy

_Slot = tuple[str, str | None]


def _who(slot: _Slot) -> str:
    handoff, principal = slot
    return f"{handoff} (unsigned)" if principal is None else f"{handoff} by {principal!r}"


def _logged_fields(decision: Decision) -> dict[str, Any]:
    """What a ``decision_written`` event repeats of its record, so that an edit of either
    (the log's last line included, which no later line's chain protects) shows."""
    return {
        "action": decision.action.value,
        "sha256": decision.sha256,
        "reviewer": decision.reviewer,
        "category": decision.category.value if decision.category else None,
        "reason": decision.reason or None,
        "edited_sha256": decision.edited_sha256,
        "rule": decision.rule,
        "policy_sha256": decision.policy_sha256,
    }


class _Check:
    """The problems found so far, and what the log says about each record. The log is
    read once, line by line, and its bytes are not kept, so a huge or planted log costs
    time, not memory."""

    def __init__(self, store: RunStore, run: str, policy: Policy | None) -> None:
        self.store, self.run, self.policy = store, run, policy
        self.problems: list[str] = []
        self.chain: list[str] = []
        #: The sha256 first logged for each handoff (``handoffs`` fills it).
        self.first_sha256: dict[str, str] = {}
        self.count = 0
        self.hash_at: dict[str, int] = {}
        #: Each line's ``at`` (a short stamp, or ``None``): what dating a signed decision
        #: needs of the line its ``log_head`` names.
        self.at_of: list[Any] = []
        self.logged: dict[str, list[tuple[int, dict[str, Any]]]] = {
            Event.HANDOFF_SUBMITTED.value: [],
            Event.DECISION_WRITTEN.value: [],
            Event.WAIT_RETURNED.value: [],
        }
        expected = GENESIS
        for index, line in enumerate(log_lines(run, store)):
            value = parse_line(line)
            self.chain += chain_problems(line, value, expected)
            expected = line.digest
            self.hash_at[line.digest] = index
            self.at_of.append(value.get("at") if value is not None else None)
            self.count = index + 1
            name = value.get("event") if value is not None else None
            if value is not None and isinstance(name, str) and name in self.logged:
                self.logged[name].append((index, value))

    def events(self, name: Event) -> list[tuple[int, dict[str, Any]]]:
        return self.logged[name.value]

    def handoffs(self, ids: list[str]) -> None:
        submitted: dict[str, dict[str, Any]] = {}
        times: Counter[str] = Counter()
        for _, event in self.events(Event.HANDOFF_SUBMITTED):
            handoff_id = str(event.get("handoff"))
            times[handoff_id] += 1
            submitted.setdefault(handoff_id, event)
        self.first_sha256 = {h: str(e.get("sha256")) for h, e in submitted.items()}
        for handoff_id, count in sorted(times.items()):
            if count > 1:
                self.problems.append(
                    f"handoff {handoff_id} was submitted {count} times (rewritten?)"
                )
        stored = self.stored_contracts()
        for handoff_id in ids:
            if handoff_id not in submitted:
                self.problems.append(f"handoff {handoff_id} has no handoff_submitted event")
                continue
            event = submitted.pop(handoff_id)
            try:
                data = self.store.handoff_bytes(self.run, handoff_id, MAX_HANDOFF_BYTES)
            except OSError as exc:
                self.problems.append(f"handoff {handoff_id} cannot be read: {exc}")
                continue
            if event.get("sha256") != hashlib.sha256(data).hexdigest():
                self.problems.append(f"handoff {handoff_id} changed after it was submitted")
            self.named_contract(handoff_id, data, stored)
        for handoff_id in sorted(submitted):
            self.problems.append(f"event for handoff {handoff_id!r} but no such handoff file")

    def stored_contracts(self) -> set[tuple[str, str]]:
        """The (id, sha256) the run stores, each checked: its bytes hash to its name."""
        try:
            claims = self.store.contracts(self.run)
        except (OSError, ValueError) as exc:
            self.problems.append(f"the run's contracts cannot be read: {exc}")
            return set()
        for claim in claims:
            try:
                data = self.store.contract_document(self.run, claim.sha256)
                found = schema_sha256(read_json_schema(data)) if data is not None else None
            except (OSError, JsonSchemaError) as exc:
                self.problems.append(f"contract {claim.schema_id} cannot be read: {exc}")
                continue
            if found is None:
                self.problems.append(f"contract {claim.schema_id} has no document")
            elif found != claim.sha256:
                self.problems.append(
                    f"contract {claim.schema_id} stored as sha256 {claim.sha256} "
                    f"holds another document ({found})"
                )
        return {(c.schema_id, c.sha256) for c in claims}

    def named_contract(self, handoff_id: str, data: bytes, stored: set[tuple[str, str]]) -> None:
        """A handoff naming a stored contract must name one the run holds."""
        try:
            envelope = json.loads(data)
        except ValueError:
            return  # not an envelope: inspection blocks it (bad_envelope)
        digest = envelope.get("schema_sha256") if isinstance(envelope, dict) else None
        if isinstance(digest, str) and (str(envelope.get("schema")), digest) not in stored:
            self.problems.append(
                f"handoff {handoff_id} names contract {envelope.get('schema')} with sha256 "
                f"{digest}, which the run does not hold"
            )

    def decisions(self, ids: list[str]) -> None:
        written: dict[_Slot, list[tuple[int, dict[str, Any]]]] = {}
        for index, event in self.events(Event.DECISION_WRITTEN):
            principal = event.get("principal")
            slot = (str(event.get("handoff")), principal if isinstance(principal, str) else None)
            written.setdefault(slot, []).append((index, event))
        counts = Counter({slot: len(found) for slot, found in written.items()})
        for slot, count in sorted(counts.items(), key=lambda item: str(item[0])):
            if count > 1:
                self.problems.append(f"{_who(slot)} was decided {count} times (overturned?)")
        name = self.store.run_name(self.run)
        for handoff_id in ids:
            try:
                records = self.store.decision_records(self.run, handoff_id)
            except (OSError, ValueError) as exc:
                self.problems.append(f"decisions of {handoff_id} cannot be read: {exc}")
                continue
            for principal, data in records.items():
                slot = (handoff_id, principal)
                found = written.pop(slot, [])
                self.record(slot, data, name, found[-1] if found else None)
        for slot in sorted(written, key=str):
            self.problems.append(f"decision event for {_who(slot)} but no decision record")

    def record(
        self, slot: _Slot, data: bytes, name: str, logged: tuple[int, dict[str, Any]] | None
    ) -> None:
        try:
            decision = parse_decision(data, name, slot[0])
        except DecisionCorrupt as exc:
            self.problems.append(f"decision {_who(slot)}: {exc}")
            return
        if logged is None:
            self.problems.append(f"decision {_who(slot)} has no decision_written event")
        else:
            index, event = logged
            differ = [
                name for name, value in _logged_fields(decision).items() if event.get(name) != value
            ]
            if differ:
                self.problems.append(
                    f"decision {_who(slot)} does not match its event ({', '.join(differ)})"
                )
            if decision.log_head is not None and not self.before(decision.log_head, index):
                self.problems.append(
                    f"decision {_who(slot)} signed a log head the log no longer holds "
                    "before it (history re-chained)"
                )
        if decision.edited_sha256 is not None:
            self.edit(slot, decision.edited_sha256)
        if decision.by_rule:
            self.by_rule(slot, decision)
        if slot[1] is not None or decision.signature is not None or decision.by_rule:
            if not decision.by_rule:
                self.signed(slot, decision, logged[1] if logged is not None else None)
            first = self.first_sha256.get(slot[0])
            if first is not None and decision.sha256 != first:
                self.problems.append(
                    f"decision {_who(slot)} is for sha256 {decision.sha256}, but the handoff "
                    f"was first submitted as {first} (rewritten after submit?)"
                )

    def by_rule(self, slot: _Slot, decision: Decision) -> None:
        """Under a policy, a rule's record is judged again (``audit.rule_record``): the
        policy in force must be the one it names and still decide the handoff so."""
        if self.policy is None:
            return  # nothing to check it against; its event was compared above
        try:
            data = self.store.handoff_bytes(self.run, slot[0], MAX_HANDOFF_BYTES)
        except OSError as exc:
            self.problems.append(f"decision {_who(slot)}: the handoff cannot be read: {exc}")
            return
        try:
            envelope: Envelope | None = Envelope.model_validate_json(data)
        except ValueError:
            envelope = None
        sha256 = hashlib.sha256(data).hexdigest()
        problem = rule_problem(decision, self.policy, envelope, sha256)
        if problem is not None:
            self.problems.append(f"decision {_who(slot)} by rule {decision.rule!r}: {problem}")

    def edit(self, slot: _Slot, digest: str) -> None:
        """An approval of an edit names bytes the store must still hold, unaltered."""
        try:
            self.store.edit_bytes(self.run, slot[0], digest, MAX_HANDOFF_BYTES)
        except (OSError, ValueError) as exc:
            self.problems.append(f"decision {_who(slot)} approves an edit that is unusable: {exc}")

    def signed(self, slot: _Slot, decision: Decision, event: dict[str, Any] | None) -> None:
        """A signed slot's principal, signature and, under a policy, its key's times."""
        if decision.principal != slot[1]:
            self.problems.append(f"decision {_who(slot)} names {decision.principal!r}")
        problem = signature_problem(decision, self.policy)
        if problem is not None:
            self.problems.append(f"decision {_who(slot)}: signature: {problem}")
        elif self.policy is not None:
            index = self.hash_at.get(decision.log_head or "")
            head_at = None if index is None else self.at_of[index]
            logged_at = event.get("at") if event is not None else None
            for why in dating_problems(decision, self.policy, logged_at, head_at):
                self.problems.append(f"decision {_who(slot)}: {why}")

    def before(self, log_head: str, index: int) -> bool:
        if log_head == NO_LOG_HEAD:
            return index == 0
        found = self.hash_at.get(log_head)
        return found is not None and found < index


def _stamp(value: object) -> datetime | None:
    try:
        return parse_stamp(value) if isinstance(value, str) else None
    except ValueError:
        return None


def signature_problem(
    decision: Decision, policy: Policy | None, at: datetime | None = None
) -> str | None:
    """Why the decision's signature does not verify, if it does not: under ``policy``,
    by a key listed for its principal at ``at`` (by default its ``decided_at``)."""
    if decision.signature is None or decision.log_head is None or decision.principal is None:
        return "a signed field is missing"
    try:
        statement = decision.statement(decision.principal, decision.log_head)
        if policy is None:
            ed25519.verify(statement, decision.signature)
        else:
            when = parse_stamp(decision.decided_at) if at is None else at
            policy.signers.verify(statement, decision.signature, decision.principal, at=when)
    except (SignatureError, StatementError, ValueError) as exc:
        return str(exc)
    return None


def dating_problems(
    decision: Decision, policy: Policy, logged_at: object, head_at: object
) -> list[str]:
    """What is wrong with the times of a signed decision whose signature verifies. A
    signer chooses its ``decided_at``, so a waiter never judges a key by it; looking
    back, the log holds times the signer did not choose alone: its event's ``at``
    (``logged_at``) and that of the line its ``log_head`` names (``head_at``), which
    existed before the decision (``None`` when the log has none: reported elsewhere)."""
    decided = parse_stamp(decision.decided_at)
    problems: list[str] = []
    logged = _stamp(logged_at)
    if logged is not None:
        why = signature_problem(decision, policy, logged)
        if why is not None:
            problems.append(f"at its logged time {logged_at}: {why}")
    signed_after = _stamp(head_at)
    if signed_after is not None and decided < signed_after:
        problems.append(
            f"dated {decision.decided_at}, before the log line it signed after ({head_at}): "
            "backdated"
        )
    if decided > policy.signers.clock():
        problems.append(f"dated {decision.decided_at}, after the verifier's clock: forward-dated")
    return problems


Logged = list[tuple[int, dict[str, Any]]]


def delivery_problems(store: RunStore, run: str, ids: list[str], returned: Logged) -> list[str]:
    """The problems of the run's tool-call deliveries, one line each; ``returned`` is the
    log's ``wait_returned`` events with their line index. A delivery record is written
    with its event (``delivered: true``), so the two must agree: an event without its
    record means a record removed, and the approval could be delivered again unseen."""
    first: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    again: dict[str, list[int]] = {}
    for index, event in returned:
        handoff = str(event.get("handoff"))
        if event.get("delivered") is True:
            first.setdefault(handoff, []).append((index, event))
        if event.get("redelivered") is True:
            again.setdefault(handoff, []).append(index)
    problems: list[str] = []
    for handoff_id in ids:
        try:
            record = store.delivery_record(run, handoff_id)
        except (OSError, ValueError) as exc:
            problems.append(f"the delivery of {handoff_id} cannot be read: {exc}")
            continue
        logged = first.pop(handoff_id, [])
        problems += _one(handoff_id, record, logged, again.pop(handoff_id, []))
    for handoff_id in sorted(set(first) | set(again)):
        problems.append(f"delivery event for {handoff_id} but no such handoff")
    return problems


def _one(handoff_id: str, record: bytes | None, logged: Logged, again: list[int]) -> list[str]:
    if record is None:
        if logged or again:
            return [
                f"{handoff_id} was delivered but has no delivery record (removed: its "
                "approval could be delivered again)"
            ]
        return []
    if not logged:
        return [f"{handoff_id} has a delivery record but no delivery event"]
    problems = []
    if len(logged) > 1:
        problems.append(f"{handoff_id} was delivered {len(logged)} times without a redelivery")
    index, event = logged[0]
    if event.get("outcome") != "approved":
        problems.append(f"{handoff_id}'s delivery event is not an approval")
    if _at(record) != event.get("at"):
        problems.append(f"{handoff_id}'s delivery record does not match its event")
    if any(i < index for i in again):
        problems.append(f"{handoff_id} was redelivered before it was delivered")
    return problems


def _at(record: bytes) -> Any:
    try:
        value = json.loads(record)
    except ValueError:
        return None
    return value.get("at") if isinstance(value, dict) else None


def verify_run(
    run: str | os.PathLike[str], store: RunStore, policy: Policy | None = None
) -> list[str]:
    """Every problem with the run's history, one line each; empty means intact."""
    key = os.fspath(run)
    check = _Check(store, key, policy)
    problems = check.chain
    ids = store.handoff_ids(key)
    if ids and not check.count:
        problems.append(f"the audit log is missing or empty, but the run has {len(ids)} handoffs")
    check.handoffs(ids)
    check.decisions(ids)
    check.problems += delivery_problems(store, key, ids, check.events(Event.WAIT_RETURNED))
    try:
        if isinstance(store, FolderMechanics):
            store.run_identity(key)
    except RunReplaced as exc:  # a link an agent may have pointed at an old approved copy
        problems.append(str(exc))
    return problems + check.problems
