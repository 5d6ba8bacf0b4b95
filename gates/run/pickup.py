"""Picking up a handoff: is it decided, and what does a wait return for it now.

Most waits find the decision already there (a resumed pipeline, a reviewer who was
quicker than the producer), so answering that takes no watching machinery: a
``Pickup`` reads the decision records, settles them (``run.quorum``), inspects the
handoff again on approval and writes the ``wait_returned`` event. ``run.waiting`` builds
the blocking wait on top of it, and is the only module that loads the change watcher;
``handoff-gate wait`` imports that module only when its first look finds no decision.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.run import audit
from handoff_gate.gates.run.decision_record import Decision
from handoff_gate.gates.run.ending import decided_late, ending, stored_deadline
from handoff_gate.gates.run.quorum import Settlement, record_refusals, settle
from handoff_gate.gates.run.report_in_run import inspect_in_run
from handoff_gate.gates.store.base import RunStore, has_handoff
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from pydantic import BaseModel

    from handoff_gate.gates.trust.policy import Policy


class WaitOutcome(StrEnum):
    """How a wait ended: a settled state (``HandoffState``'s approved, rejected,
    changed, expired and withdrawn, spelled the same), or one of the two ends only a
    wait has (``timeout``, ``cancelled``)."""

    APPROVED = "approved"
    REJECTED = "rejected"
    TIMEOUT = "timeout"
    CHANGED = "changed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True, slots=True)
class WaitResult:
    """How a wait ended.

    ``report`` is always the handoff's current inspection report (for a reject too, so
    its findings can go back to the producer). ``payload`` (the validated, allow-listed
    fields) and ``model`` (the contract's model instance) are set only for ``approved``.
    ``decision`` is the deciding record (the reject, or the first approval);
    ``decisions`` every record that counted (all approvals of a quorum).
    """

    outcome: WaitOutcome
    decision: Decision | None = None
    payload: dict[str, Any] | None = None
    report: Report | None = None
    model: BaseModel | None = None
    decisions: tuple[Decision, ...] = ()
    #: For ``withdrawn`` and ``expired``: the one line that says who withdrew it and why,
    #: or when it expired.
    ended: str = ""


def print_refusal(line: str) -> None:
    """The default for ``on_refused``: an ignored decision record is said on stderr."""
    print(f"handoff-gate: {line}", file=sys.stderr)


class Pickup:
    """One wait's look at a handoff, and how the wait's end is recorded.

    The deadline is set when the pickup is made, so a wait that turns to blocking after
    its first look keeps the timeout its caller asked for; each refused decision record
    is reported once over every look (``refusals_seen``).
    """

    def __init__(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        registry: Registry,
        timeout: float | None,
        policy: Policy | None,
        store: RunStore,
        on_refused: Callable[[str], None],
    ) -> None:
        if not isinstance(run, str | os.PathLike):
            raise TypeError(f"run must be a path or a run id, not {type(run).__name__}")
        self.run = os.fspath(run)
        self.handoff_id = handoff_id_of(ref_or_id)
        self.store = store
        if not has_handoff(self.store, self.run, self.handoff_id):
            raise FileNotFoundError(f"no handoff {self.handoff_id} in {self.run}")
        self.registry = registry
        self.policy = policy
        self.deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        self.on_refused = on_refused
        self.refusals_seen: set[str] = set()
        #: Read once: a wait looks again and again, and the envelope is append-only.
        self.expires_at = stored_deadline(store, self.run, self.handoff_id)

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

        A withdrawal ends the wait whatever the records say; the deadline (judged by this
        clock) ends it while undecided, or when an approval is dated after it.
        """
        end = ending(self.store, self.run, self.handoff_id, self.expires_at)
        if end is not None and end.state is HandoffState.WITHDRAWN:
            return self.unsettled(WaitOutcome.WITHDRAWN, end.why)
        found = settle(self.store, self.run, self.handoff_id, self.registry, self.policy)
        for line in record_refusals(
            self.store, self.run, self.handoff_id, found, self.refusals_seen
        ):
            self.on_refused(line)
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
        if outcome is HandoffState.APPROVED:
            return WaitResult(
                WaitOutcome.APPROVED,
                decision,
                report.delivered,
                report,
                report.model,
                found.decisions,
            )
        return WaitResult(
            WaitOutcome(outcome.value), decision, report=report, decisions=found.decisions
        )

    def unsettled(self, outcome: WaitOutcome, ended: str = "") -> WaitResult:
        """A timeout, cancel, withdrawal or expiry, with the report as it stands (never
        approving)."""
        return self.finish(WaitResult(outcome, report=self.report(), ended=ended))

    def finish(self, result: WaitResult) -> WaitResult:
        """Record in the audit log how the wait ended, and return ``result``."""
        audit.append(
            self.run,
            audit.Event.WAIT_RETURNED,
            store=self.store,
            handoff=self.handoff_id,
            outcome=result.outcome.value,
        )
        return result
