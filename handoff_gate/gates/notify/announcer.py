"""The announcer: tells ``Targets`` which handoffs of a store wait for a decision.

It learns of new handoffs as the review app does, from an ``EventSource`` (under
``watch --notify-url`` the app's own, so the store is watched once and each handoff
inspected once). What it announces, when, and what a failure does: docs/integration.md,
"What a notification says". Two threads of its own: one lists and judges (with a store
object of its own), one sends, so a failing endpoint delays only the sending thread.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from handoff_gate.gates.notify.announcement import Waiting, announcement, waiting
from handoff_gate.gates.notify.source import EventSource, Hint
from handoff_gate.gates.store.base import Change, RunStore, WatchLapse
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.safe_text import os_reason
from handoff_gate.gates.vocab.states import NEEDS_PERSON

if TYPE_CHECKING:
    from handoff_gate.gates.notify.targets import Targets

#: How long the first new handoff waits for others to go in its notification.
GATHER_S = 3.0
#: How long to wait before looking again after the store could not be read.
RETRY_S = 2.0
#: Notifications waiting for the sending thread; past this, new ones are dropped (with
#: a warning), so an endpoint that hangs never makes the announcer hold more and more.
OUTBOX = 16
#: How long ``stop`` waits for the watching and looking threads (each notices within a
#: tick), and for a send in progress: quitting should not wait out a hanging endpoint,
#: and the sending thread holds nothing that must be released (it is a daemon).
JOIN_S = 5.0
SEND_JOIN_S = 1.0
#: How often a thread waiting for ``begin`` checks whether it was stopped instead.
TICK_S = 0.1
#: Name prefix of the announcer's threads, so a test or an operator can count them.
THREAD_PREFIX = "handoff-gate-notify"

#: A handoff found waiting: where it is, and how a notification names it.
Found = tuple[HandoffRef, Waiting]


def to_stderr(text: str) -> None:
    """The default ``warn``: one line on stderr (a command with no screen of its own)."""
    print(f"handoff-gate: {text}", file=sys.stderr, flush=True)


class Announcer:
    """Announces the handoffs of a store that wait for a decision to ``targets``.

    ``link``: ``serve --public-url`` (never a token). ``warn`` is called from the
    announcer's threads, so it must be quick and thread-safe. ``begin``: the threads
    wait for it (``watch`` passes ``ReviewApp.ready``), since the first look inspects
    every undecided handoff and would otherwise compete with the app's start.
    """

    def __init__(
        self,
        events: EventSource,
        targets: Targets,
        *,
        link: str | None = None,
        gather: float = GATHER_S,
        warn: Callable[[str], None] = to_stderr,
        begin: threading.Event | None = None,
    ) -> None:
        if gather < 0:
            raise ValueError("gather must be 0 or more seconds")
        self.targets = targets
        self.gather = gather
        self.link = link
        self._events = events
        self._warn = warn
        self._begin = begin
        self._stop = threading.Event()
        self._woken = threading.Event()
        self._lock = threading.Lock()
        self._everything = False
        self._runs: set[str] = set()
        #: Every handoff id seen, by run: what is announced is never announced again.
        self._seen: dict[str, set[str]] = {}
        self._outbox: queue.Queue[tuple[str, str] | None] = queue.Queue(OUTBOX)
        self._threads = [
            threading.Thread(target=target, name=f"{THREAD_PREFIX}-{name}", daemon=True)
            for name, target in (
                ("look", self._look_loop),
                ("send", self._send_loop),
            )
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """End the threads; what was gathered and not yet sent is dropped."""
        self._stop.set()
        self._woken.set()
        with contextlib.suppress(queue.Full):
            self._outbox.put_nowait(None)
        for thread in self._threads:
            if thread.ident is not None:
                thread.join(SEND_JOIN_S if thread.name.endswith("-send") else JOIN_S)

    def __enter__(self) -> Announcer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _begun(self) -> bool:
        """Wait for ``begin``; ``False`` when stopped first."""
        while self._begin is not None and not self._begin.wait(TICK_S):
            if self._stop.is_set():
                return False
        return not self._stop.is_set()

    def _hinted(self, change: Hint) -> None:
        """Mark what to list again (on the source's thread). A lapse needs nothing:
        watching resumes with a ``Change()``, and everything is listed again then."""
        if isinstance(change, WatchLapse):
            return
        with self._lock:
            if change.run is None:
                self._everything = True
            else:
                self._runs.add(change.run)
        self._woken.set()

    def _look_loop(self) -> None:
        """Subscribed from ``begin`` on: the first hint, ``Change()``, is the first look."""
        if not self._begun():
            return
        store = self._events.store.copy()
        unsubscribe = self._events.subscribe(self._hinted)
        try:
            self._looking(store)
        finally:
            unsubscribe()
            store.close()

    def _looking(self, store: RunStore) -> None:
        initial, failing = True, False
        gathered: list[Found] = []
        due: float | None = None
        while not self._stop.is_set():
            self._woken.wait(None if due is None else max(due - time.monotonic(), 0))
            if self._stop.is_set():
                return
            self._woken.clear()
            with self._lock:
                everything, runs = self._everything or initial, self._runs
                self._everything, self._runs = False, set()
            found: list[Found] = []
            try:
                self._look(store, everything, runs, found, initial=initial)
            except Exception as exc:  # the store went away: say it once, look again
                if initial:
                    self._seen.clear()  # the summary is made again, from the start
                else:
                    gathered.extend(found)  # what was found before it failed stays
                if not failing:
                    self._warned(f"notifications: cannot read the store: {os_reason(exc)}")
                failing = True
                self._hinted(Change())  # look at everything again
                self._stop.wait(RETRY_S)
                continue
            failing = False
            if initial:
                initial = False
                if found:
                    summary = [shown for _, shown in found]
                    self._post(*announcement(summary, at_start=True, link=self.link))
            else:
                gathered.extend(found)
            if gathered and due is None:
                due = time.monotonic() + self.gather
            if due is not None and time.monotonic() >= due:
                still = _undecided(store, gathered)
                if still:
                    self._post(*announcement(still, link=self.link))
                gathered, due = [], None

    def _look(
        self,
        store: RunStore,
        everything: bool,
        runs: set[str],
        found: list[Found],
        *,
        initial: bool,
    ) -> None:
        """Add to ``found`` each handoff not seen before that needs a person. At the
        first look only the undecided ones are judged (a big store's decided history
        is not inspected for a summary); after it, every new one."""
        if everything:
            runs = runs | set(store.runs())
        for run in sorted(runs):
            seen = self._seen.setdefault(run, set())
            fresh = [listed.id for listed in store.listing(run) if listed.id not in seen]
            if not fresh:
                continue
            judged = fresh
            if initial:
                decided = set(store.decided_ids(run))
                judged = [handoff_id for handoff_id in fresh if handoff_id not in decided]
            for handoff_id in judged:
                ref = HandoffRef(run, handoff_id)
                now = self._events.standing(ref, store, listener=self)
                if now.state in NEEDS_PERSON:
                    shown = waiting(now, policy_in_force=self._events.policy is not None)
                    found.append((ref, shown))
                seen.add(handoff_id)
            seen.update(fresh)

    def _post(self, title: str, body: str) -> None:
        try:
            self._outbox.put_nowait((title, body))
        except queue.Full:
            self._warned(
                f"notifications: dropped one ({title}): the ones before it are still being sent"
            )

    def _send_loop(self) -> None:
        while not self._stop.is_set() and (message := self._outbox.get()) is not None:
            title, body = message
            try:
                failures = [str(f) for f in self.targets.send(title, body)]
            except Exception as exc:  # never the announcer's end: a warning
                failures = [f"a notification failed: {os_reason(exc)}"]
            for failure in failures:
                self._warned(failure)

    def _warned(self, text: str) -> None:
        """Pass on a warning; one that cannot be shown (stderr closed) must not end the
        thread that found it."""
        with contextlib.suppress(Exception):
            self._warn(text)


def _undecided(store: RunStore, gathered: list[Found]) -> list[Waiting]:
    """The gathered handoffs nobody has started deciding since they were found: one a
    reviewer decided (or approved once, of a quorum) during the gathering needs no call
    to come and look. A run whose decisions cannot be listed keeps all of its own."""
    decided: dict[str, set[str]] = {}
    for run in {ref.run for ref, _ in gathered}:
        try:
            decided[run] = set(store.decided_ids(run))
        except Exception:  # the store's or its driver's: announce rather than drop
            decided[run] = set()
    return [shown for ref, shown in gathered if ref.id not in decided[ref.run]]
