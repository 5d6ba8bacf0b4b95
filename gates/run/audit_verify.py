"""``audit --verify``: does the run's history hold together, record by record?

The chain alone proves only that no line was changed *without re-chaining*; a writer of
the run directory can re-chain an edited log, cut its tail, or delete it. So the log is
also checked against the records it describes:

- every handoff and every decision record has its event, and every such event its record;
- a handoff's bytes still hash to what was logged when it was submitted;
- no (handoff, principal) slot was decided twice (a decision deleted and made again);
- a signed decision's ``log_head`` names a line that precedes its own event, so a history
  rewritten before a signed decision no longer contains the head it signed;
- every signature verifies (under the policy's allowed_signers when one is given), and
  under a policy its key was valid at the times the record and the log give it
  (``run.audit_dating``).

What remains undetectable without signed decisions after it (deleting a decision *and*
its event at the very end of the log) is spelled out in docs/security.md.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.run.audit import Event, verify_chain
from handoff_gate.gates.run.audit_dating import dating_problems
from handoff_gate.gates.run.decision_record import (
    Decision,
    DecisionCorrupt,
    parse_decision,
    parse_stamp,
    run_name_of,
)
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.log_chain import line_hash
from handoff_gate.gates.store.select import store_for
from handoff_gate.gates.trust.ed25519 import verify
from handoff_gate.gates.trust.sshsig import SignatureError
from handoff_gate.gates.trust.statement import NO_LOG_HEAD, StatementError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy

_Slot = tuple[str, str | None]


def _lines(log: bytes) -> list[tuple[bytes, dict[str, Any] | None]]:
    parsed: list[tuple[bytes, dict[str, Any] | None]] = []
    for raw in log.splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        parsed.append((raw, value if isinstance(value, dict) else None))
    return parsed


def _who(slot: _Slot) -> str:
    handoff, principal = slot
    return f"{handoff} (unsigned)" if principal is None else f"{handoff} by {principal!r}"


def _signature_problem(decision: Decision, policy: Policy | None) -> str | None:
    if decision.signature is None or decision.log_head is None or decision.principal is None:
        return "a signed field is missing"
    try:
        statement = decision.statement(decision.principal, decision.log_head)
        if policy is None:
            verify(statement, decision.signature)
        else:
            at = parse_stamp(decision.decided_at)
            policy.signers.verify(statement, decision.signature, decision.principal, at=at)
    except (SignatureError, StatementError, ValueError) as exc:
        return str(exc)
    return None


def _logged_fields(decision: Decision) -> dict[str, Any]:
    """What a ``decision_written`` event repeats of its record, so that an edit of either
    (the log's last line included, which no later line's chain protects) shows."""
    return {
        "action": decision.action.value,
        "sha256": decision.sha256,
        "reviewer": decision.reviewer,
        "category": decision.category.value if decision.category else None,
        "reason": decision.reason or None,
    }


class _Check:
    """The problems found so far, and what the log says about each record."""

    def __init__(self, store: RunStore, run: str, policy: Policy | None) -> None:
        self.store, self.run, self.policy = store, run, policy
        self.problems: list[str] = []
        self.lines = _lines(store.log_bytes(run))
        self.hash_at = {line_hash(raw): index for index, (raw, _) in enumerate(self.lines)}

    def events(self, name: Event) -> list[tuple[int, dict[str, Any]]]:
        return [
            (index, value)
            for index, (_, value) in enumerate(self.lines)
            if value is not None and value.get("event") == name.value
        ]

    def handoffs(self, ids: list[str]) -> None:
        submitted: dict[str, dict[str, Any]] = {}
        for _, event in self.events(Event.HANDOFF_SUBMITTED):
            submitted[str(event.get("handoff"))] = event
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
        for handoff_id in sorted(submitted):
            self.problems.append(f"event for handoff {handoff_id!r} but no such handoff file")

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
        name = run_name_of(self.run, self.store)
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
        if slot[1] is not None or decision.signature is not None:
            self.signed(slot, decision, logged[1] if logged is not None else None)

    def signed(self, slot: _Slot, decision: Decision, event: dict[str, Any] | None) -> None:
        """A signed slot's principal, signature and, under a policy, its key's times."""
        if decision.principal != slot[1]:
            self.problems.append(f"decision {_who(slot)} names {decision.principal!r}")
        problem = _signature_problem(decision, self.policy)
        if problem is not None:
            self.problems.append(f"decision {_who(slot)}: signature: {problem}")
        elif self.policy is not None:
            for why in dating_problems(decision, self.policy, event, self.head(decision)):
                self.problems.append(f"decision {_who(slot)}: {why}")

    def head(self, decision: Decision) -> dict[str, Any] | None:
        """The log line a signed decision's ``log_head`` names, if the log holds it."""
        index = self.hash_at.get(decision.log_head or "")
        return None if index is None else self.lines[index][1]

    def before(self, log_head: str, index: int) -> bool:
        if log_head == NO_LOG_HEAD:
            return index == 0
        found = self.hash_at.get(log_head)
        return found is not None and found < index


def verify_run(
    run: str | os.PathLike[str], store: RunStore | None = None, policy: Policy | None = None
) -> list[str]:
    """Every problem with the run's history, one line each; empty means intact."""
    store = store or store_for()
    key = os.fspath(run)
    problems = verify_chain(key, store)
    ids = store.handoff_ids(key)
    check = _Check(store, key, policy)
    if ids and not check.lines:
        problems.append(f"the audit log is missing or empty, but the run has {len(ids)} handoffs")
    check.handoffs(ids)
    check.decisions(ids)
    return problems + check.problems
