"""Where the app's data comes from, over any ``RunStore``: the process's store hints, a
listing thread and an inspection thread.

Each hint of the process's one watch (``Gate.events``) marks a handoff, a run or the whole
store as dirty. One thread turns marks into listings (in order, so a stale listing never
wins), comparing stamps so that only what changed is inspected again; another inspects,
the handoff on screen first. Results reach the app as messages through ``post``. Each
thread uses a store object of its own (``copy``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from contextlib import closing, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from handoff_gate.gates.store.base import Change, RunStore, WatchLapse
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.tui.messages import Inspected, Listed, WatchFailed
from handoff_gate.tui.scan import Dirty, Inspection, InspectQueue, RunListing, RunQueue

if TYPE_CHECKING:
    from handoff_gate.tui.review_core import ReviewCore

#: How long to wait before listing again after a listing failed (the store is down).
RETRY_S = 2.0
#: Results are posted in batches at most this long (the handoff on screen at once).
BATCH_S = 0.1
#: What the process's watch sends: a hint, or that watching lapsed.
Hint = Change | WatchLapse


class Feed:
    """Listing needs no core; inspecting is given the app's ``ReviewCore`` once made."""

    def __init__(self, store: RunStore, post: Callable[[Message], object]) -> None:
        self.store = store
        self._post = post
        self._unsubscribe: Callable[[], None] | None = None
        self._relist = RunQueue()
        self._inspect = InspectQueue()
        self._stop = threading.Event()
        #: The runs the listing thread has looked at, not what the screen has merged: a
        #: hint in a run listed but not yet merged would ask for a look at the runs,
        #: which finds no new run, and its handoff would never be listed.
        self._known: frozenset[Path] = frozenset()

    @property
    def backlog(self) -> int:
        return len(self._inspect)

    def close(self) -> None:
        self._stop.set()
        if self._unsubscribe is not None:
            with suppress(Exception):  # the app is quitting: the source is not ours to fix
                self._unsubscribe()
        self._relist.close()
        self._inspect.close()

    def inspect(self, ref: HandoffRef, *, urgent: bool = False) -> None:
        self._inspect.put(ref, urgent=urgent)

    def hurry(self, ref: HandoffRef) -> None:
        self._inspect.hurry(ref)

    def relist(self, run_dir: Path) -> None:
        self._relist.put(run_dir)

    # ------------------------------------------------------------ the watch

    def listen(self, subscribe: Callable[[Callable[[Hint], None]], Callable[[], None]]) -> None:
        """The first hint (``Change()``) brings the first listing."""
        self._unsubscribe = subscribe(self.changed)

    def changed(self, change: Hint) -> None:
        """Called on the watch thread."""
        if isinstance(change, WatchLapse):
            self._post(WatchFailed(change.reason))
            return
        if change.run is None:
            self._relist.put_everything()
            return
        run = self._key(self.store, change.run)
        known = run is not None and run in self._known
        self._relist.put(run if known else None, change.handoff_id)

    @staticmethod
    def _key(store: RunStore, run: str) -> Path | None:
        try:
            return Path(store.run_label(run))
        except ValueError:
            return None

    # ------------------------------------------------------------ listings

    def relist_loop(self) -> None:
        """A big first look is posted in time-boxed parts."""
        with closing(self.store.copy()) as store:
            initial = True
            while (dirty := self._relist.take()) is not None:
                try:
                    self._list_marked(store, dirty, initial)
                except Exception as exc:  # the store's or its driver's: report, retry
                    self._post(WatchFailed(_one_line(exc)))
                    self._stop.wait(RETRY_S)
                    self._relist.put_everything()
                    continue
                initial = False

    def _list_marked(self, store: RunStore, dirty: Dirty, initial: bool) -> None:
        runs: frozenset[Path] | None = None
        targets = set(dirty.runs)
        if dirty.root or dirty.everything:
            found = (self._key(store, run) for run in store.runs())
            runs = frozenset(run for run in found if run is not None)
            targets |= runs if dirty.everything else runs - self._known
            self._known = runs
        self._known = self._known | targets
        listings = [
            listing_of(store, run, ids) for run, ids in dirty.ids.items() if run not in targets
        ]
        started = time.monotonic()
        for run in sorted(targets):
            listings.append(listing_of(store, run))
            if time.monotonic() - started > BATCH_S:
                self._post(Listed(tuple(listings), None, initial))
                listings, started = [], time.monotonic()
        self._post(Listed(tuple(listings), runs, initial))

    # ------------------------------------------------------------ inspection

    def inspect_loop(self, core: ReviewCore) -> None:
        """Results are posted in time-boxed batches."""
        batch: list[Inspection] = []
        started = time.monotonic()
        with closing(self.store.copy()) as store:
            while (taken := self._inspect.take(block=not batch)) is not None or batch:
                urgent = False
                if taken is not None:
                    ref, urgent = taken
                    if not batch:
                        started = time.monotonic()
                    batch.append(core.inspect(ref, store))
                if batch and (taken is None or urgent or time.monotonic() - started > BATCH_S):
                    self._post(Inspected(tuple(batch)))
                    batch = []
                if self._inspect.closed:
                    return

    def inspect_now(self, core: ReviewCore, ref: HandoffRef) -> Inspection:
        """On the calling thread (a worker's, never the UI's)."""
        with closing(self.store.copy()) as store:
            return core.inspect(ref, store)

    def handoff_bytes(self, ref: HandoffRef) -> bytes:
        """On the calling thread (a worker's)."""
        with closing(self.store.copy()) as store:
            return store.handoff_bytes(ref.run, ref.id, MAX_HANDOFF_BYTES)


def listing_of(store: RunStore, run: Path, ids: Collection[str] | None = None) -> RunListing:
    address = str(run)
    found = store.listing(address, ids)
    live = store.waiters(address, ids)
    waiters = None if live is None else {i: tuple(w.started for w in ws) for i, ws in live.items()}
    refs = tuple(HandoffRef(address, listed.id) for listed in found)
    stamps = {listed.id: listed.stamp for listed in found}
    decisions = {listed.id: listed.decision_stamp for listed in found}
    if ids is None:
        return RunListing(
            run, refs, stamps, decisions, waiters=waiters, contracts=_contracts(store, address)
        )
    removed = frozenset(ids).difference(stamps)
    return RunListing(
        run, refs, stamps, decisions, complete=False, removed=removed, waiters=waiters
    )


def _contracts(store: RunStore, run: str) -> tuple[str, ...] | None:
    try:
        return tuple(sorted(f"{c.schema_id}@{c.sha256}" for c in store.contracts(run)))
    except (OSError, ValueError):
        return None


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if isinstance(exc, (OSError, ValueError)) else f"{type(exc).__name__}: {text}"
