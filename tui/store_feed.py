"""The app's feed over a database store: every run in it, woken by LISTEN/NOTIFY.

The same messages as the filesystem ``Feed`` (``Listed``, ``Inspected``, ``WatchFailed``),
so the app does not know where runs live. A run is keyed by ``Path(run_id)`` (see
``model.Key``). Each thread has its own store object (a ``PostgresStore`` holds one
connection and is for one thread): one lists, one inspects, one listens.

A notification is only a hint: it names a run and a handoff, which are re-read; after
every (re)connection of the listener everything is re-listed and re-inspected, since a
change made while nobody listened sent no hint that could still arrive.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.ids import ID_PATTERN
from handoff_gate.tui.feed import BATCH_S, RETRY_S, Feed
from handoff_gate.tui.messages import Listed, WatchFailed
from handoff_gate.tui.model import Stamp
from handoff_gate.tui.scan import Inspection, RunListing

if TYPE_CHECKING:
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.tui.review_core import ReviewCore

#: How long one LISTEN poll blocks before the listener checks whether it should stop.
LISTEN_TICK_S = 0.2
#: Longest pause between reconnect attempts of the listener.
MAX_BACKOFF_S = 1.0


def store_label(store: RunStore) -> str:
    """What the title says about a store (``RunStore.label``): never a password."""
    return store.label()


def _ref(run: str, handoff_id: str) -> HandoffRef:
    return HandoffRef(run, handoff_id)


def _runs_of(store: RunStore) -> list[str]:
    return store.runs()


class StoreFeed(Feed):
    """The background side of the app over a non-local ``RunStore``."""

    def __init__(
        self,
        store: RunStore,
        post: Callable[[Message], object],
    ) -> None:
        super().__init__(Path(store_label(store)), post, poll=False)
        self.store = store
        self._closing = threading.Event()
        #: Per handoff, a number bumped by each hint: a new one makes the app re-inspect.
        self._hinted: dict[tuple[Path, str], Stamp] = {}
        #: Handoffs listed before: a hint about one of these is a change to re-inspect.
        self._seen: set[tuple[Path, str]] = set()
        self._ticks = 0
        self._local = threading.local()

    def start(self) -> None:
        """Nothing yet: the listener's first subscription triggers the first listing, so
        nothing that changes between listing and listening is missed."""

    def close(self) -> None:
        self._closing.set()
        super().close()

    def _store(self) -> RunStore:
        """This thread's own store object."""
        mine: RunStore | None = getattr(self._local, "store", None)
        if mine is None:
            mine = self._local.store = self.store.copy()
        return mine

    def _close_store(self) -> None:
        """Close this thread's store object (its connection) as the thread ends."""
        mine: RunStore | None = getattr(self._local, "store", None)
        self._local.store = None
        if mine is not None and mine is not self.store:
            mine.close()

    def inspect_loop(self, core: ReviewCore) -> None:
        try:
            super().inspect_loop(core)
        finally:
            self._close_store()

    def inspect_now(self, core: ReviewCore, ref: HandoffRef) -> Inspection:
        return core.inspect(ref, self._store())

    def inspect_once(self, core: ReviewCore, ref: HandoffRef) -> Inspection:
        store = self.store.copy()
        try:
            return core.inspect(ref, store)
        finally:
            store.close()

    def handoff_bytes(self, ref: HandoffRef) -> bytes:
        store = self.store.copy()
        try:
            return self.read_with(store, ref)
        finally:
            store.close()

    def _tick(self) -> Stamp:
        self._ticks += 1
        return (self._ticks, 0, 0)

    def listen_loop(self) -> None:
        """Turn notifications into marks until closed; runs in its own thread."""
        from handoff_gate.gates.store.pg_connect import (
            Lost,
            Notice,
            Reconnected,
            StoreUnavailable,
            listen,
        )
        from handoff_gate.gates.store.postgres_schema import CHANNEL

        url = getattr(self.store, "url", "")
        while not self._closing.is_set():
            try:
                events = listen(
                    url, CHANNEL, timeout=LISTEN_TICK_S, max_backoff=MAX_BACKOFF_S, announce=True
                )
                connected = False
                for event in events:
                    if self._closing.is_set():
                        break
                    if isinstance(event, Reconnected):
                        self._relist.put_root()
                        connected = True
                    elif isinstance(event, Lost) and connected:
                        connected = False
                        self._post(WatchFailed(event.reason))
                    elif isinstance(event, Notice):
                        self._hint(event.payload)
                events.close()
            except StoreUnavailable as exc:
                self._post(WatchFailed(str(exc)))
                self._closing.wait(RETRY_S)
                self._relist.put_root()
            except Exception as exc:  # never let the listener take the app down
                self._post(WatchFailed(f"{type(exc).__name__}: {exc}"))
                self._closing.wait(RETRY_S)
                self._relist.put_root()

    def _hint(self, payload: str) -> None:
        """Mark the handoff a notification names (server text: checked, never trusted)."""
        from handoff_gate.gates.store.postgres import RUN_ID_PATTERN

        try:
            value = json.loads(payload)
        except ValueError:
            value = None
        run = value.get("run") if isinstance(value, dict) else None
        handoff = value.get("handoff") if isinstance(value, dict) else None
        if (
            isinstance(run, str)
            and isinstance(handoff, str)
            and RUN_ID_PATTERN.match(run)
            and ID_PATTERN.match(handoff)
        ):
            self._relist.put_id(Path(run), handoff)
        else:
            self._relist.put_root()

    def watch(self) -> None:
        """Nothing to watch on a filesystem: ``listen_loop`` does the watching."""

    def relist_loop(self) -> None:
        """List what was marked: the whole store after a (re)connection, else single ids."""
        try:
            self._relist_until_closed()
        finally:
            self._close_store()

    def _relist_until_closed(self) -> None:
        initial = True
        full_lists = 0
        while (dirty := self._relist.take()) is not None:
            store = self._store()
            try:
                if dirty.root:
                    reinspect = full_lists > 0
                    full_lists += 1
                    runs = frozenset(Path(run) for run in _runs_of(store))
                    self._post_runs(store, sorted(runs), runs, initial, reinspect=reinspect)
                else:
                    listings = [self._touch(store, run, ids) for run, ids in dirty.ids.items()] + [
                        self._list(store, run, reinspect=True) for run in dirty.runs
                    ]
                    self._post(Listed(tuple(listings), None, initial))
            except (OSError, ValueError, RuntimeError) as exc:
                self._post(WatchFailed(str(exc)))
                self._closing.wait(RETRY_S)
                self._relist.put_root()
                continue
            except Exception as exc:  # the driver's own errors: report, retry, never die
                self._post(WatchFailed(f"{type(exc).__name__}: {exc}"))
                self._closing.wait(RETRY_S)
                self._relist.put_root()
                continue
            initial = False

    def _post_runs(
        self,
        store: RunStore,
        targets: list[Path],
        runs: frozenset[Path],
        initial: bool,
        *,
        reinspect: bool,
    ) -> None:
        listings: list[RunListing] = []
        started = time.monotonic()
        for run in targets:
            listings.append(self._list(store, run, reinspect=reinspect))
            if time.monotonic() - started > BATCH_S:
                self._post(Listed(tuple(listings), None, initial))
                listings, started = [], time.monotonic()
        self._post(Listed(tuple(listings), runs, initial))

    def _list(self, store: RunStore, run: Path, *, reinspect: bool) -> RunListing:
        ids = store.handoff_ids(str(run))
        refs = tuple(_ref(str(run), handoff_id) for handoff_id in ids)
        stamps = {ref.id: (ref.seq, 0, 0) for ref in refs}
        decisions: dict[str, Stamp | None] = {}
        for ref in refs:
            if reinspect:
                self._hinted[(run, ref.id)] = self._tick()
            self._seen.add((run, ref.id))
            decisions[ref.id] = self._hinted.get((run, ref.id))
        return RunListing(run, refs, stamps, decisions, waiters=None)

    def _touch(self, store: RunStore, run: Path, ids: set[str]) -> RunListing:
        present = set(store.handoff_ids(str(run)))
        refs = tuple(_ref(str(run), i) for i in sorted(ids & present))
        stamps = {ref.id: (ref.seq, 0, 0) for ref in refs}
        decisions: dict[str, Stamp | None] = {}
        for ref in refs:
            # A handoff hinted for the first time is new: no decision stamp, so it lists as
            # undecided at once (a stamp would hide it under "pending" until inspected).
            # Any later hint is a decision (or a change): a fresh stamp re-inspects it.
            key = (run, ref.id)
            if key in self._seen:
                self._hinted[key] = self._tick()
            self._seen.add(key)
            decisions[ref.id] = self._hinted.get(key)
        removed = frozenset(ids - present)
        return RunListing(
            run, refs, stamps, decisions, complete=False, removed=removed, waiters=None
        )
