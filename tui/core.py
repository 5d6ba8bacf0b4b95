"""The app's way to the core: inspection and decisions, loaded after the first paint.

Inspecting and deciding need the contracts, the validators, the decision records and
the policy code: about 100 ms of imports, more than the rest of the app's start. The
app is built with a *loader* for them instead (``backend.Backend`` is what it loads)
and paints first: the inspection thread, which starts once the first screen is up, is
the first to ask for them. Everything the app shows before that comes from listings
(``scan``), which need none of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from handoff_gate.gates.run.decision_record import Decision
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.vocab.actions import Action, Category
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.tui.messages import Decided
    from handoff_gate.tui.model import Entry
    from handoff_gate.tui.notice import Notice
    from handoff_gate.tui.scan import Inspection


class Backend(Protocol):
    """Inspection and decisions for one app: what ``Core`` loads."""

    def inspect(self, ref: HandoffRef, store: RunStore) -> Inspection:
        """Inspect one handoff in ``store`` (the calling thread's own); never raises."""
        ...

    def refusal(self, entry: Entry) -> Notice | None:
        """Why an inspected ``entry`` cannot be decided from here (``None``: it can)."""
        ...

    def decide(
        self,
        entry: Entry,
        action: Action,
        sha256: str,
        reason: str | None,
        category: Category | None,
    ) -> Decided:
        """Write the decision (blocking); a refusal comes back in the message."""
        ...

    def describe(self, decision: Decision) -> str:
        """A decision in a few words, for the toast that confirms it."""
        ...


class Core:
    """A ``Backend`` loaded once, by whichever thread needs it first.

    ``read_only`` and ``store`` are known before loading: the header shows them.
    """

    def __init__(self, load: Callable[[], Backend], *, read_only: bool, store: RunStore) -> None:
        """``store``: where the reviewed runs live."""
        self.read_only = read_only
        self.store = store
        self._load = load
        self._backend: Backend | None = None
        self._lock = threading.Lock()

    @property
    def backend(self) -> Backend:
        with self._lock:
            if self._backend is None:
                self._backend = self._load()
            return self._backend

    def inspect(self, ref: HandoffRef, store: RunStore) -> Inspection:
        return self.backend.inspect(ref, store)

    def refusal(self, entry: Entry) -> Notice | None:
        return self.backend.refusal(entry)

    def decide(
        self,
        entry: Entry,
        action: Action,
        sha256: str,
        reason: str | None = None,
        category: Category | None = None,
    ) -> Decided:
        return self.backend.decide(entry, action, sha256, reason, category)

    def describe(self, decision: Decision) -> str:
        return self.backend.describe(decision)
