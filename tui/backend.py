"""What ``core.Core`` loads: inspection and decisions over the core's modules.

Importing this module imports the contracts' machinery, the validators and the decision
and policy code; the app reaches it only through a loader (see ``core``), so none of it
sits on the path to the first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.run.decision_record import describe
from handoff_gate.tui.deciding import Decider
from handoff_gate.tui.inspecting import inspect_ref

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.run.decision_record import Decision
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.store.filesystem import HandoffRef
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.gates.vocab.actions import Action, Category
    from handoff_gate.tui.messages import Decided
    from handoff_gate.tui.model import Entry
    from handoff_gate.tui.notice import Notice
    from handoff_gate.tui.scan import Inspection


class CoreBackend:
    """``core.Backend`` for one registry, policy, key and store."""

    def __init__(
        self,
        registry: Registry,
        *,
        reviewer: str | None,
        key: SigningKey | None,
        policy: Policy | None,
        store: RunStore | None,
    ) -> None:
        """``store``: a non-local store, or ``None`` for runs on this filesystem."""
        self.registry = registry
        self.policy = policy
        self.decider = Decider(registry, reviewer=reviewer, key=key, policy=policy, store=store)

    def inspect(self, ref: HandoffRef, store: RunStore | None) -> Inspection:
        return inspect_ref(ref, self.registry, store=store, policy=self.policy)

    def refusal(self, entry: Entry) -> Notice | None:
        return self.decider.refusal(entry)

    def decide(
        self,
        entry: Entry,
        action: Action,
        sha256: str,
        reason: str | None,
        category: Category | None,
    ) -> Decided:
        return self.decider.decide(entry, action, sha256, reason, category)

    def describe(self, decision: Decision) -> str:
        return describe(decision)
