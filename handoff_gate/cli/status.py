"""One handoff's standing for ``list`` and ``show``: its state, verdict, decision, waiter.

An unusable decision record is a state of its own, with the exact problem spelled out
(which fields failed validation, or why it could not be read), since "changed" or "N
problem(s)" tells a reviewer nothing they can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.run.decision_record import Decision, DecisionCorrupt
from handoff_gate.gates.run.phase_rule import NoRule
from handoff_gate.gates.run.quorum import Outcome, settle
from handoff_gate.gates.run.report_in_run import inspect_in_run
from handoff_gate.gates.run.waiters import live_waiters
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import HandoffRef
from handoff_gate.gates.view.decision_problem import standing, unusable_reason
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy


@dataclass(frozen=True, slots=True)
class HandoffStatus:
    """What ``list`` prints for a handoff; ``problem`` is set only for ``unusable``."""

    ref: HandoffRef
    run: str
    report: Report
    state: HandoffState
    decision: Decision | None
    problem: str | None
    waiter: bool

    def to_json(self) -> dict[str, Any]:
        """The ``list --json`` object (documented in docs/protocol.md)."""
        d = self.decision
        return {
            "run": self.run,
            "id": self.ref.id,
            "phase": self.ref.phase,
            "schema": self.report.schema_id,
            "state": self.state.value,
            "verdict": self.report.verdict.value,
            "waiter": self.waiter,
            "reviewer": d.reviewer if d else None,
            "category": d.category.value if d and d.category else None,
            "reason": d.reason if d else None,
            "decided_at": d.decided_at if d else None,
            "problem": self.problem,
        }


_SETTLED = {
    Outcome.APPROVED: HandoffState.APPROVED,
    Outcome.REJECTED: HandoffState.REJECTED,
    Outcome.CHANGED: HandoffState.CHANGED,
}


def status_of(
    ref: HandoffRef,
    contracts: Registry,
    *,
    store: RunStore,
    policy: Policy | None = None,
) -> HandoffStatus:
    """Inspect the handoff in its run and settle its decisions, trusting neither.

    Under a policy the state follows the quorum (``pending`` until enough approvers
    signed); ``decision`` is the deciding record, or the first approval so far.
    """
    run = str(ref.run_dir)
    name = ref.run_dir.name if store.is_local else run
    report = inspect_in_run(run, ref.id, contracts, policy=policy, store=store)
    waiter = bool(live_waiters(ref.run_dir, ref.id)) if store.is_local else False

    def status(
        state: HandoffState, decision: Decision | None, problem: str | None
    ) -> HandoffStatus:
        return HandoffStatus(ref, name, report, state, decision, problem, waiter)

    try:
        found = settle(store, run, ref.id, contracts, policy)
    except DecisionCorrupt as exc:
        return status(HandoffState.UNUSABLE, None, unusable_reason(exc))
    except NoRule as exc:
        return status(HandoffState.BLOCKED, None, str(exc))
    decision = found.decisions[0] if found.decisions else None
    if policy is None or found.outcome is None:
        state, problem = standing(report, decision if policy is None else None)
        return status(state, decision, problem or None)
    return status(_SETTLED[found.outcome], decision, None)
