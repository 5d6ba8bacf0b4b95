"""Picking up a handoff: is it decided, and what does a wait return for it now.

Most waits find the decision already there, so answering that takes no watching
machinery: ``deliver.waiting`` builds the blocking wait on top of a ``Pickup`` and is the
only module that loads the change watcher.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.deliver.refusal import print_refusal
from handoff_gate.gates.standing.ending import decided_late, ending, stored_deadline
from handoff_gate.gates.standing.quorum import Settlement, record_refusals, settle
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.base import (
    DeliveryExists,
    FolderMechanics,
    RunReplaced,
    has_handoff,
)
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from pydantic import BaseModel


class WaitOutcome(StrEnum):
    """How a wait ended: a settled state (spelled as ``HandoffState`` spells it), or one
    of the ends only a wait has."""

    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"
    CHANGED = "changed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"
    ALREADY_DELIVERED = "already_delivered"


@dataclass(frozen=True, slots=True)
class WaitResult:
    """How a wait ended; its fields are described in docs/integration.md.

    ``report`` is always the handoff's current report (for a reject too, so its findings
    can go back to the producer); ``payload`` and ``model`` are set only for
    ``approved``, and are the edit's when a reviewer's edit was approved.
    """

    outcome: WaitOutcome
    _: KW_ONLY
    decision: Decision | None = None
    payload: dict[str, Any] | None = None
    report: Report | None = None
    model: BaseModel | None = None
    decisions: tuple[Decision, ...] = ()
    edited: bool = False
    edited_sha256: str | None = None
    original_sha256: str | None = None
    original_payload: dict[str, Any] | None = None
    dropped_keys: tuple[str, ...] = ()
    defaulted: tuple[str, ...] = ()
    #: For ``withdrawn``, ``expired`` and ``already_delivered``: the one line that says
    #: who withdrew it and why, when it expired, or that it was delivered already.
    ended: str = ""


def _paths(report: Report, code: Code) -> tuple[str, ...]:
    """The field paths of ``report``'s findings of one code, in the report's order."""
    return tuple(f.path for f in report.findings if f.code is code)


class Pickup:
    """One wait's look at a handoff, and how the wait's end is recorded.

    The deadline is set when the pickup is made, so a wait that turns to blocking keeps
    its caller's timeout. ``expected_sha256`` (or a ``HandoffRef``'s) is the digest of
    the file the caller wrote: other bytes are never delivered (``changed``), even if
    someone rewrote the file and had that approved. A tool call's approval is delivered
    once (``RunStore.create_delivery``); a later wait ends ``already_delivered`` unless
    ``redeliver`` (crash recovery: the caller knows the first delivery never ran).
    """

    def __init__(
        self,
        context: GateContext,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        timeout: float | None = None,
        on_refused: Callable[[str], None] = print_refusal,
        expected_sha256: str = "",
        redeliver: bool = False,
    ) -> None:
        if not isinstance(run, str | os.PathLike):
            raise TypeError(f"run must be a path or a run id, not {type(run).__name__}")
        self.run = os.fspath(run)
        self.handoff_id = handoff_id_of(ref_or_id)
        self.store = store = context.store
        if not has_handoff(self.store, self.run, self.handoff_id):
            raise FileNotFoundError(f"no handoff {self.handoff_id} in {self.run}")
        self.registry: Registry = context.contracts
        self.policy = policy = context.policy
        self.deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        self.on_refused = on_refused
        self.refusals_seen: set[str] = set()
        if not expected_sha256 and isinstance(ref_or_id, HandoffRef):
            expected_sha256 = ref_or_id.sha256
        self.expected_sha256 = expected_sha256
        self.redeliver = redeliver
        self._looked = False
        #: A run folder as it was when the wait started: a copy, a link or another
        #: folder put at its address later is never looked at (``FolderMechanics``).
        self.folder = store if isinstance(store, FolderMechanics) else None
        self.identity = "" if self.folder is None else self.folder.run_identity(self.run)
        #: Read once: a wait looks again and again, and the envelope is append-only.
        self.expires_at = stored_deadline(store, self.run, self.handoff_id, policy)

    def report(self) -> Report:
        """The handoff's inspection report as it stands."""
        return inspect_in_run(
            self.run, self.handoff_id, self.registry, policy=self.policy, store=self.store
        )

    def expired(self) -> bool:
        """Whether the timeout has run out (never, without one)."""
        return self.deadline is not None and self.deadline <= time.monotonic()

    def settled(self) -> WaitResult | None:
        """The result the decision records allow now, refusals said once; ``None``: go on.
        ``RunReplaced`` when the run's address names another run than at the start. A
        reject stands with its reason even beside a withdrawal."""
        if self.folder is not None and self.folder.run_identity(self.run) != self.identity:
            raise RunReplaced(
                f"{self.run} is no longer the run this wait started on (moved, or another "
                "folder or a link put in its place); nothing delivered"
            )
        if not self._looked:
            # Hashed in chunks, once, at the first look; a decided wait compares its report.
            expected = not self.expected_sha256 or (
                self.store.handoff_sha256(self.run, self.handoff_id) == self.expected_sha256
            )
            self._looked = True  # after the look: a store that was unreachable looks again
            if not expected:
                return self.finish(WaitResult(WaitOutcome.CHANGED, report=self.report()))
        end = ending(self.store, self.run, self.handoff_id, self.expires_at)
        found = settle(self.store, self.run, self.handoff_id, self.registry, self.policy)
        for line in record_refusals(
            self.store, self.run, self.handoff_id, found, self.refusals_seen
        ):
            self.on_refused(line)
        if end is not None and end.state is HandoffState.WITHDRAWN:
            if found.outcome is HandoffState.REJECTED:  # the reject stands, with its reason
                return self.finish(self._result(found, found.outcome))
            return self.unsettled(WaitOutcome.WITHDRAWN, end.why)
        if end is not None:
            late = decided_late(self.expires_at, [d.decided_at for d in found.decisions])
            if found.outcome is None or late:
                return self.unsettled(WaitOutcome.EXPIRED, end.why)
        if found.outcome is None:
            return None
        return self.finish(self._result(found, found.outcome))

    def _result(self, found: Settlement, outcome: HandoffState) -> WaitResult:
        decision = found.decisions[0] if found.decisions else None
        report = found.report or self.report()
        if self.expected_sha256 and report.sha256 != self.expected_sha256:
            return WaitResult(
                WaitOutcome.CHANGED, decision=decision, report=report, decisions=found.decisions
            )
        if outcome is HandoffState.APPROVED:
            edit = found.edit
            delivered = report if edit is None else edit
            return WaitResult(
                WaitOutcome.APPROVED,
                decision=decision,
                payload=delivered.delivered,
                report=report,
                model=delivered.model,
                decisions=found.decisions,
                dropped_keys=_paths(delivered, Code.UNKNOWN_KEY),
                # none for a tool call, which crosses as approved (the tool applies its own)
                defaulted=() if _is_tool_call(report) else _paths(delivered, Code.DEFAULTED_FIELD),
                edited=edit is not None,
                edited_sha256=None if edit is None else edit.sha256,
                original_sha256=report.sha256,
                original_payload=report.delivered,
            )
        return WaitResult(
            WaitOutcome(outcome.value), decision=decision, report=report, decisions=found.decisions
        )

    def unsettled(self, outcome: WaitOutcome, ended: str = "") -> WaitResult:
        """A timeout, cancel, withdrawal or expiry, with the report as it stands (never
        approving)."""
        return self.finish(WaitResult(outcome, report=self.report(), ended=ended))

    def finish(self, result: WaitResult) -> WaitResult:
        """Record in the audit log how the wait ended, and return ``result``."""
        if result.outcome is WaitOutcome.APPROVED and _is_tool_call(result.report):
            return self._deliver_once(result)
        audit.append(
            self.run,
            audit.Event.WAIT_RETURNED,
            store=self.store,
            handoff=self.handoff_id,
            outcome=result.outcome.value,
            **({"edited_sha256": result.edited_sha256} if result.edited else {}),
        )
        return result

    def _deliver_once(self, result: WaitResult) -> WaitResult:
        """Claim a tool call's delivery with its ``wait_returned`` event (``delivered``);
        a claim already made ends ``already_delivered``, or, with ``redeliver``, logs a
        second delivery (``redelivered``) and returns the approval again."""
        event = {
            "event": audit.Event.WAIT_RETURNED.value,
            "at": audit.now_iso(),
            "handoff": self.handoff_id,
            "outcome": result.outcome.value,
            **({"edited_sha256": result.edited_sha256} if result.edited else {}),
        }
        record = json.dumps({"handoff": self.handoff_id, "at": event["at"]}).encode()
        try:
            self.store.create_delivery(
                self.run, self.handoff_id, record, {**event, "delivered": True}
            )
        except DeliveryExists:
            if not self.redeliver:
                return self.finish(
                    WaitResult(
                        WaitOutcome.ALREADY_DELIVERED,
                        decision=result.decision,
                        report=result.report,
                        decisions=result.decisions,
                        ended=f"{self.handoff_id}'s approval was delivered already; "
                        "nothing is delivered twice",
                    )
                )
            self.store.append_event(self.run, {**event, "redelivered": True})
        return result


def _is_tool_call(report: Report | None) -> bool:
    """Whether the handoff is a tool call (``kind: "tool_call"``), delivered once."""
    envelope = report.envelope if report is not None else None
    return envelope is not None and envelope.tool is not None
