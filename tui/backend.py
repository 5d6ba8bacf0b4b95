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
    from handoff_gate.gates.run.decision_record import Decision
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.tui.scan import Inspection


class CoreBackend(Decider):
    """``core.Backend`` for one registry, policy, key and store: the ``Decider`` that
    decides from this app, and inspection under the same registry and policy."""

    def inspect(self, ref: HandoffRef, store: RunStore) -> Inspection:
        return inspect_ref(ref, self.registry, store=store, policy=self.policy)

    def describe(self, decision: Decision) -> str:
        return describe(decision)
