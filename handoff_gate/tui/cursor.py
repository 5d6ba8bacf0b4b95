"""Where the list's cursor goes: on start, after a decision, and stepping between handoffs.

The rules follow where the work is: a handoff this reviewer can decide now
(``Entry.decidable``). Blocked and decided handoffs stay listed, reachable with the arrow
keys, but are never chosen for the reader; row order never changes for any of this.
After a decision the cursor follows the decided run for a moment (``RunFollow``): a
pipeline writes its next step a moment after the decision it waited for, often after the
cursor moved on.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Iterator, Sequence
from pathlib import Path

from handoff_gate.tui.model import Entry, Key


def start_target(entries: dict[Key, Entry], listed: Sequence[Hashable]) -> Key | None:
    """The oldest decidable handoff a pipeline is waiting on, else the oldest decidable one;
    ``None`` (stay on the first row) when none can be decided."""
    decidable = [e for e in _listed_entries(entries, reversed(listed)) if e.decidable]
    waited = [e for e in decidable if e.waiters]
    first = (waited or decidable)[:1]
    return first[0].key if first else None


def next_after(entries: dict[Key, Entry], listed: Sequence[Hashable], decided: Key) -> Key | None:
    """The next decidable handoff of the same run (by sequence, wrapping), else the first
    one of the next run."""
    run_dir = decided[0]
    shown = set(listed)
    open_ = [e for e in entries.values() if e.decidable and e.key != decided and e.key in shown]
    seq = entries[decided].ref.seq if decided in entries else 0
    same = sorted((e for e in open_ if e.key[0] == run_dir), key=lambda e: e.ref.seq)
    if same:
        later = [e for e in same if e.ref.seq > seq]
        return (later or same)[0].key
    others = sorted(open_, key=lambda e: (e.key[0], e.ref.seq))
    after = [e for e in others if e.key[0] > run_dir]
    return (after or others)[0].key if others else None


def step_waiting(
    entries: dict[Key, Entry], keys: Sequence[Hashable], cursor: int, direction: int
) -> Key | None:
    """``n``/``p``: the next (1) or previous (-1) decidable handoff, wrapping around."""
    for step in range(1, len(keys)):
        key = keys[(cursor + direction * step) % len(keys)]
        entry = entries.get(key) if isinstance(key, tuple) else None
        if entry is not None and entry.decidable:
            return entry.key
    return None


def _listed_entries(entries: dict[Key, Entry], keys: Iterable[Hashable]) -> Iterator[Entry]:
    for key in keys:
        entry = entries.get(key) if isinstance(key, tuple) else None
        if entry is not None:
            yield entry


#: After a decision sent the cursor to another run, a handoff that arrives in the decided
#: run this soon (the pipeline's next step) takes the cursor back, if it has not moved.
FOLLOW_RUN_S = 5.0


class RunFollow:
    def __init__(self) -> None:
        self._follow: tuple[Path, Hashable | None, float] | None = None

    def start(self, run_dir: Path, parked: Hashable | None) -> None:
        self._follow = (run_dir, parked, time.monotonic() + FOLLOW_RUN_S)

    def target(
        self, arrived: Iterable[Key], entries: dict[Key, Entry], current: Hashable | None
    ) -> Key | None:
        """The arrival the cursor should go to (``None``: stay); the follow ends once it
        found one, ran out of time or the cursor moved off where the decision put it."""
        follow = self._follow
        if follow is None:
            return None
        run_dir, parked, until = follow
        if time.monotonic() > until or current != parked:
            self._follow = None
            return None
        for key in arrived:
            entry = entries.get(key)
            if entry is not None and key[0] == run_dir and entry.waiting:
                self._follow = None
                return key
        return None
