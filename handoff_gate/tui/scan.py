"""What the feed's threads pass around: listings, inspections and the queues between them."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.model import NO_TRUST, Key, Stamp, Trust, key_of

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Decision


@dataclass(frozen=True, slots=True)
class RunListing:
    """Handoffs of one run with the stamps of their files and decisions (``None``: no
    decision record). A partial listing covers the ids a hint named; ``removed`` are the
    ones gone. ``waiters``: per id, the start times of live ``wait`` processes (``None``:
    the store cannot tell)."""

    run_dir: Path
    refs: tuple[HandoffRef, ...]
    stamps: dict[str, Stamp]
    decision_stamps: dict[str, Stamp | None]
    complete: bool = True
    removed: frozenset[str] = frozenset()
    waiters: dict[str, tuple[str, ...]] | None = None
    #: ``id@sha256`` of the run's stored contracts (``None``: not looked): when they change,
    #: a handoff blocked for want of its contract may now be reviewable.
    contracts: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Inspection:
    key: Key
    report: Report
    decision: Decision | None
    decision_error: str
    state: HandoffState
    trust: Trust = field(default_factory=lambda: NO_TRUST)
    ended: str = ""
    delivered: str = ""


class InspectQueue:
    """Handoffs waiting for inspection; the one a person is looking at jumps the line."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._items: deque[HandoffRef] = deque()
        self._queued: set[Key] = set()
        self._urgent: set[Key] = set()
        self._closed = False

    def put(self, ref: HandoffRef, *, urgent: bool = False) -> None:
        key = key_of(ref)
        with self._cond:
            if key in self._queued:
                if not urgent:
                    return
                self._items = deque(r for r in self._items if key_of(r) != key)
            self._queued.add(key)
            if urgent:
                self._urgent.add(key)
                self._items.appendleft(ref)
            else:
                self._items.append(ref)
            self._cond.notify()

    def hurry(self, ref: HandoffRef) -> None:
        """``put(ref, urgent=True)`` only if it is still waiting: one taken already is
        being inspected, and its result is on its way."""
        with self._cond:
            if key_of(ref) in self._queued:
                self.put(ref, urgent=True)

    def take(self, *, block: bool) -> tuple[HandoffRef, bool] | None:
        """The next handoff and whether it is urgent; ``None`` when closed, or when empty
        and not ``block``."""
        with self._cond:
            while block and not self._items and not self._closed:
                self._cond.wait(timeout=1.0)
            if self._closed or not self._items:
                return None
            ref = self._items.popleft()
            key = key_of(ref)
            self._queued.discard(key)
            urgent = key in self._urgent
            self._urgent.discard(key)
            return ref, urgent

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._items)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


@dataclass
class Dirty:
    """What hints marked since the last look: every run, the set of runs (``root``), whole
    runs, or single ids."""

    everything: bool = False
    root: bool = False
    runs: set[Path] = field(default_factory=set)
    ids: dict[Path, set[str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.everything or self.root or bool(self.runs) or bool(self.ids)


class RunQueue:
    """Runs to re-list, coalesced: a burst of hints on one run becomes one listing."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._dirty = Dirty()
        self._closed = False

    def put_everything(self) -> None:
        """Watching (re)started: any of it may have changed."""
        with self._cond:
            self._dirty.everything = True
            self._cond.notify()

    def put(self, run_dir: Path | None, handoff_id: str | None = None) -> None:
        """One handoff (or its decision), a whole run, or with no ``run_dir`` the set of runs."""
        with self._cond:
            if run_dir is None:
                self._dirty.root = True
            elif handoff_id is None:
                self._dirty.runs.add(run_dir)
            else:
                self._dirty.ids.setdefault(run_dir, set()).add(handoff_id)
            self._cond.notify()

    def take(self) -> Dirty | None:
        """Everything marked so far, once there is a mark; ``None`` once closed."""
        with self._cond:
            while not self._dirty and not self._closed:
                self._cond.wait(timeout=1.0)
            if self._closed:
                return None
            dirty, self._dirty = self._dirty, Dirty()
            return dirty

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
