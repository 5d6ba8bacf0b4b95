"""One watch of a store per process, and one inspection of each handoff, for every listener.

The store's ``watch`` runs once and each hint goes to every subscriber (the review
screen and ``--notify-url``'s announcer); a standing one listener asked for serves the
next while the handoff's listing stamps are unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from handoff_gate.gates.standing.standing import Standing, standing
from handoff_gate.gates.store.base import Change, ListedHandoff, RunStore, WatchLapse, watchable
from handoff_gate.gates.vocab.safe_text import os_reason

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef

Hint = Change | WatchLapse
RETRY_S = 2.0  # before watching again after the store's watch raised
THREAD_NAME = "handoff-gate-events"


@dataclass
class _Look:
    """A standing being made (``done`` unset) or made, the stamps listed before it."""

    stamps: tuple[ListedHandoff, ...]
    had: set[object]
    done: threading.Event = field(default_factory=threading.Event)
    found: Standing | None = None


class EventSource:
    """The store's hints for every subscriber, and standings shared between them, made
    under ``contracts`` (loaded on first use) and ``policy``; ``poll``: the watch must
    not rely on change events. It watches from the first subscriber to the last."""

    def __init__(
        self,
        store: RunStore,
        contracts: Callable[[], Registry],
        policy: Policy | None = None,
        *,
        poll: bool = False,
    ) -> None:
        self.store, self.policy, self.poll = store, policy, poll
        self._contracts = functools.cache(contracts)  # loaded once, on first use
        self._lock = threading.Lock()
        self._listeners: list[Callable[[Hint], None]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Watching is up (a ``Change()`` came, no lapse since): a late subscriber gets a
        #: ``Change()`` of its own, since it has listed nothing yet.
        self._live = False
        self._looks: dict[tuple[str, str], _Look] = {}

    def subscribe(self, listener: Callable[[Hint], None]) -> Callable[[], None]:
        """Send ``listener`` every hint from now on, a ``Change()`` first (on the watching
        thread: it must be quick); returns the call that unsubscribes it."""
        with self._lock:
            self._listeners.append(listener)
            live = self._live
            if self._thread is None:
                self._stop.clear()
                self._thread = threading.Thread(target=self._watch, name=THREAD_NAME, daemon=True)
                self._thread.start()
        if live:
            listener(Change())
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Callable[[Hint], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if self._listeners or self._thread is None:
                return
            thread, self._thread, self._live = self._thread, None, False
            self._stop.set()
        if thread is not threading.current_thread():
            thread.join()

    def _watch(self) -> None:
        """Until the last subscriber leaves; a watch that raised is a lapse to all."""
        stop = self._stop
        while not stop.is_set():
            try:
                watchable(self.store).watch(self._hinted, stop, poll=self.poll)
            except Exception as exc:  # the store's or its driver's: say it, watch again
                self._hinted(WatchLapse(f"watching the store failed: {os_reason(exc)}"))
            stop.wait(RETRY_S)

    def _hinted(self, hint: Hint) -> None:
        with self._lock:
            self._live = not isinstance(hint, WatchLapse)
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):  # one listener's failure is not another's
                listener(hint)

    def standing(self, ref: HandoffRef, store: RunStore, *, listener: object) -> Standing:
        """The handoff's standing for ``listener``, with ``store`` (the calling thread's):
        the one another listener got (waiting while it is made), under this ``ref``, if
        its stamps are unchanged and ``listener`` has not had it; else a new ``look``."""
        try:
            key = (store.run_label(ref.run), ref.id)
            stamps = tuple(store.listing(ref.run, [ref.id]))
        except Exception:  # the store's or its driver's: no sharing, the look says why
            return self.look(ref, store)
        with self._lock:
            look = self._looks.get(key)
            shared = look is not None and listener not in look.had and look.stamps == stamps
            if look is None or not shared:
                look = self._looks[key] = _Look(stamps, {listener})
            else:
                look.had.add(listener)
                if len(look.had) >= len(self._listeners):
                    del self._looks[key]  # every listener has had it: nothing to keep
        if shared:
            look.done.wait()
            return self.look(ref, store) if look.found is None else replace(look.found, ref=ref)
        try:
            look.found = self.look(ref, store)
        finally:
            look.done.set()
        return look.found

    def look(self, ref: HandoffRef, store: RunStore) -> Standing:
        """A new look at one handoff (``gates.standing.standing``): the inspection that
        sharing saves, made here and nowhere else in the source."""
        return standing(store, ref, self._contracts(), policy=self.policy)
