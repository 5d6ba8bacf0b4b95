"""Where the app's data comes from: a watcher, a listing thread and an inspection thread.

Filesystem events are only hints. Each one marks a handoff id, a run or the root as
dirty; one thread turns marks into listings (in order, so a stale listing never wins)
and another inspects handoffs, the one on screen first. Results reach the app as
messages through ``post``; nothing here touches widgets.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from watchfiles import watch

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import AUDIT_FILE, DECISIONS, HANDOFFS
from handoff_gate.gates.store.waiters import WAITERS
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.tui.messages import Inspected, Listed, WatchFailed
from handoff_gate.tui.scan import (
    LOCAL,
    Inspection,
    InspectQueue,
    RunListing,
    RunQueue,
    list_run,
    runs_under,
    touch_ids,
)

if TYPE_CHECKING:
    from handoff_gate.tui.review_core import ReviewCore

#: watchfiles settings: report an isolated change after ~5 ms instead of 50-1600 ms.
WATCH_STEP_MS = 5
WATCH_DEBOUNCE_MS = 50
POLL_DELAY_MS = 100
#: How long to wait before watching again after the watcher failed.
RETRY_S = 2.0
#: Results are posted in batches at most this long (the handoff on screen at once).
BATCH_S = 0.1


class Feed:
    """The background side of the app; ``post`` delivers messages to it. Listing needs
    no core; inspecting is given the app's ``ReviewCore`` once it is made."""

    def __init__(
        self,
        root: Path,
        post: Callable[[Message], object],
        *,
        poll: bool,
    ) -> None:
        self.root = root
        self.poll = poll
        self._post = post
        self._relist = RunQueue()
        self._inspect = InspectQueue()
        self._stop = threading.Event()
        #: The runs the listing thread has looked at (set before it lists them). Events
        #: are sorted by this, not by what the screen has merged yet: an event in a run
        #: listed but not yet merged would otherwise ask for a look at the root, which
        #: finds no new run, and the handoff it announced would never be listed.
        self._known: frozenset[Path] = frozenset()

    @property
    def backlog(self) -> int:
        """Handoffs still waiting for inspection."""
        return len(self._inspect)

    def start(self) -> None:
        self._relist.put_root()

    def close(self) -> None:
        self._stop.set()
        self._relist.close()
        self._inspect.close()

    def inspect(self, ref: HandoffRef, *, urgent: bool = False) -> None:
        self._inspect.put(ref, urgent=urgent)

    def relist(self, run_dir: Path) -> None:
        self._relist.put_run(run_dir)

    def watch(self) -> None:
        """Turn filesystem events under the root into marks until closed; runs in its own
        thread.

        A thread with the blocking watcher, not ``awatch`` on the app's event loop: the
        async one loads anyio's event-loop backend first (about 25 ms, before the first
        paint), and events reach the listing thread without a hop through the loop.
        If the watcher fails or the root folder disappears, the problem is reported;
        watching resumes (by polling after a failure) once the root is back, with a full
        re-list.
        """
        polling = self.poll
        while not self._stop.is_set():
            if self.root.is_dir():
                try:
                    self._watch_root(polling=polling)
                except (OSError, RuntimeError) as exc:
                    self._post(WatchFailed(str(exc)))
                    polling = True
                else:
                    if self._stop.is_set():
                        return
                    self._post(WatchFailed("the folder was removed"))
            self._stop.wait(RETRY_S)
            self._relist.put_root()

    def _watch_root(self, *, polling: bool) -> None:
        """Watch until stopped or until the root folder is gone."""
        for changes in watch(
            self.root,
            step=WATCH_STEP_MS,
            debounce=WATCH_DEBOUNCE_MS,
            force_polling=polling or None,
            poll_delay_ms=POLL_DELAY_MS,
            stop_event=self._stop,
            recursive=True,
            ignore_permission_denied=True,
            rust_timeout=int(RETRY_S * 1000),
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            for _, changed in changes:
                self.hint(Path(changed))
            if not self.root.is_dir():
                return

    def hint(self, path: Path) -> None:
        """Mark what a changed path may affect: one handoff, one run, or the root."""
        runs = self._known
        if self.root in runs:
            run_dir = self.root
        else:
            try:
                parts = path.relative_to(self.root).parts
            except ValueError:
                parts = ()
            run_dir = self.root / parts[0] if parts else self.root
            if run_dir not in runs:
                self._relist.put_root()
                return
        try:
            inner = path.relative_to(run_dir).parts
        except ValueError:
            inner = ()
        if inner[:1] in {(HANDOFFS,), (DECISIONS,)}:
            name = inner[-1]
            if len(inner) == 1:
                self._relist.put_run(run_dir)
            elif len(inner) == 2 and name.endswith(".json") and not name.startswith("."):
                self._relist.put_id(run_dir, name.removesuffix(".json"))
            elif len(inner) >= 2 and inner[0] == DECISIONS and not inner[1].startswith("."):
                self._relist.put_id(run_dir, inner[1])  # a signed record, or its folder
        elif inner[:1] == (WAITERS,):
            if len(inner) == 2 and "." in inner[1]:
                self._relist.put_id(run_dir, inner[1].rpartition(".")[0])
            else:  # the folder itself: records made with it may have sent no event
                self._relist.put_run(run_dir)
        elif inner != (AUDIT_FILE,):
            self._relist.put_run(run_dir)

    def relist_loop(self) -> None:
        """List what was marked; a big first scan is posted in time-boxed parts."""
        initial = True
        while (dirty := self._relist.take()) is not None:
            runs: frozenset[Path] | None = None
            targets = set(dirty.runs)
            if dirty.root:
                runs = frozenset(runs_under(self.root))
                targets |= runs - self._known
                self._known = runs
            self._known = self._known | targets
            listings: list[RunListing] = [
                touch_ids(run, ids) for run, ids in dirty.ids.items() if run not in targets
            ]
            started = time.monotonic()
            for run in sorted(targets):
                listings.append(list_run(run))
                if time.monotonic() - started > BATCH_S:
                    self._post(Listed(tuple(listings), None, initial))
                    listings, started = [], time.monotonic()
            self._post(Listed(tuple(listings), runs, initial))
            initial = False

    def inspect_now(self, core: ReviewCore, ref: HandoffRef) -> Inspection:
        """Inspect one handoff on the calling thread (a worker's, never the UI's)."""
        return core.inspect(ref, LOCAL)

    def handoff_bytes(self, ref: HandoffRef) -> bytes:
        """The handoff's stored bytes, read on the calling thread (a worker's)."""
        return self.read_with(LOCAL, ref)

    @staticmethod
    def read_with(store: RunStore, ref: HandoffRef) -> bytes:
        return store.handoff_bytes(ref.run, ref.id, MAX_HANDOFF_BYTES)

    def inspect_once(self, core: ReviewCore, ref: HandoffRef) -> Inspection:
        """Inspect one handoff from a short-lived worker thread (what ``d`` compares with)."""
        return self.inspect_now(core, ref)

    def inspect_loop(self, core: ReviewCore) -> None:
        """Inspect queued handoffs with ``core``, posting results in time-boxed batches."""
        batch: list[Inspection] = []
        started = time.monotonic()
        while (taken := self._inspect.take(block=not batch)) is not None or batch:
            urgent = False
            if taken is not None:
                ref, urgent = taken
                if not batch:
                    started = time.monotonic()
                batch.append(self.inspect_now(core, ref))
            if batch and (taken is None or urgent or time.monotonic() - started > BATCH_S):
                self._post(Inspected(tuple(batch)))
                batch = []
            if self._inspect.closed:
                return
