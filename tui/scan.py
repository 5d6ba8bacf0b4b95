"""Reading runs off the UI thread: cheap listings first, full inspections behind them.

Everything here runs in worker threads and only calls ``gates``; results travel to
the app as small immutable values. A listing costs a directory read and a ``stat`` per
file, and needs none of the core's inspection modules, so the first screen is painted
without them; an inspection (``inspecting``) parses and validates one handoff.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.store.filesystem import (
    DECISIONS,
    FilesystemStore,
    find_runs,
    handoff_path,
    list_handoffs,
)
from handoff_gate.gates.store.waiters import waiters_in as live_waiters_in
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.model import NO_TRUST, Key, Stamp, Trust, key_of

if TYPE_CHECKING:
    from handoff_gate.gates.run.decision_record import Decision

#: The shared filesystem store: stateless, so every thread may use it.
LOCAL = FilesystemStore()


def stamp_of(stat: os.stat_result) -> Stamp:
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


@dataclass(frozen=True, slots=True)
class RunListing:
    """Handoffs of one run with the stamps of their files and decisions.

    A complete listing names every handoff of the run. A partial one covers only some
    ids (those a filesystem event named): ``removed`` lists the ones that are gone. A
    ``None`` decision stamp means there is no decision file. ``waiters`` gives, per id,
    the start times of the live ``wait`` processes blocked on it (filesystem runs only;
    ``None`` when the store cannot tell).
    """

    run_dir: Path
    refs: tuple[HandoffRef, ...]
    stamps: dict[str, Stamp]
    decision_stamps: dict[str, Stamp | None]
    complete: bool = True
    removed: frozenset[str] = frozenset()
    waiters: dict[str, tuple[str, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Inspection:
    """One handoff inspected from its current bytes, with its decision and state."""

    key: Key
    report: Report
    decision: Decision | None
    decision_error: str
    state: HandoffState
    trust: Trust = field(default_factory=lambda: NO_TRUST)


def runs_under(root: Path) -> list[Path]:
    try:
        return find_runs(root)
    except OSError:
        return []


def list_run(run_dir: Path) -> RunListing:
    """A listing that tolerates files vanishing mid-scan (they are simply left out)."""
    try:
        found = list_handoffs(run_dir)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop
        found = []
    refs: list[HandoffRef] = []
    stamps: dict[str, Stamp] = {}
    for ref in found:
        stamp = stamp_at(handoff_path(run_dir, ref.id))
        if stamp is not None:
            stamps[ref.id] = stamp
            refs.append(ref)
    return RunListing(
        run_dir, tuple(refs), stamps, _decision_stamps(run_dir), waiters=waiters_in(run_dir)
    )


def waiters_in(run_dir: Path, ids: set[str] | None = None) -> dict[str, tuple[str, ...]]:
    """Start times of the live waiters of each handoff (of ``ids``, or all) in the run."""
    found = live_waiters_in(run_dir, ids)
    return {handoff_id: tuple(w.started for w in live) for handoff_id, live in found.items()}


def stamp_at(path: Path) -> Stamp | None:
    try:
        return stamp_of(path.stat())
    except (OSError, ValueError):
        return None


def touch_ids(run_dir: Path, ids: set[str]) -> RunListing:
    """A partial listing of the handoffs an event named: far cheaper than a whole run.

    Ids come from file names; ``handoff_path`` rejects any that are malformed or would
    leave the run. Symlinks are skipped, as ``list_handoffs`` does.
    """
    refs: list[HandoffRef] = []
    stamps: dict[str, Stamp] = {}
    removed: set[str] = set()
    decisions: dict[str, Stamp | None] = {}
    for handoff_id in sorted(ids):
        try:
            path = handoff_path(run_dir, handoff_id)
        except (OSError, ValueError, RuntimeError):
            continue
        stamp = stamp_at(path) if path.is_file() and not path.is_symlink() else None
        if stamp is None:
            removed.add(handoff_id)
            continue
        refs.append(HandoffRef(str(run_dir), handoff_id))
        stamps[handoff_id] = stamp
        decisions[handoff_id] = decision_stamp(run_dir, handoff_id)
    return RunListing(
        run_dir,
        tuple(refs),
        stamps,
        decisions,
        complete=False,
        removed=frozenset(removed),
        waiters=waiters_in(run_dir, ids),
    )


def decision_stamp(run_dir: Path, handoff_id: str) -> Stamp | None:
    """The unsigned record's stamp, or the signed records' folder's (it changes as each
    principal's record is added)."""
    record = run_dir.joinpath(DECISIONS, handoff_id)
    return stamp_at(record.with_name(f"{handoff_id}.json")) or stamp_at(record)


def _decision_stamps(run_dir: Path) -> dict[str, Stamp | None]:
    stamps: dict[str, Stamp | None] = {}
    try:
        with os.scandir(run_dir / DECISIONS) as found:
            names = [item.name for item in found]
    except OSError:
        return stamps
    for name in names:
        if name.startswith("."):
            continue
        if name.endswith(".json"):
            stamps[name.removesuffix(".json")] = stamp_at(run_dir / DECISIONS / name)
        elif name not in stamps:  # a folder of signed records, one per principal
            stamps[name] = stamp_at(run_dir / DECISIONS / name)
    return stamps


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

    def take(self, *, block: bool) -> tuple[HandoffRef, bool] | None:
        """The next handoff and whether someone is waiting for it on screen.

        ``None`` when closed, or when empty and not ``block``.
        """
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
    """What events marked since the last look: the root, whole runs, or single ids."""

    root: bool = False
    runs: set[Path] = field(default_factory=set)
    ids: dict[Path, set[str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.root or bool(self.runs) or bool(self.ids)


class RunQueue:
    """Runs to re-list, coalesced: a burst of events on one run becomes one listing."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._dirty = Dirty()
        self._closed = False

    def put_root(self) -> None:
        """Look for new or deleted runs under the root."""
        with self._cond:
            self._dirty.root = True
            self._cond.notify()

    def put_run(self, run_dir: Path) -> None:
        with self._cond:
            self._dirty.runs.add(run_dir)
            self._cond.notify()

    def put_id(self, run_dir: Path, handoff_id: str) -> None:
        """One handoff (or its decision) changed."""
        with self._cond:
            self._dirty.ids.setdefault(run_dir, set()).add(handoff_id)
            self._cond.notify()

    def take(self) -> Dirty | None:
        """Everything marked so far, waiting for at least one mark; ``None`` once closed."""
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
