"""Where the list's cursor goes after a decision, and stepping between handoffs that wait.

Pure functions over the entries and the keys listed, so the rules are read in one place:
after a decision the next handoff of the same run that needs a person, else the next run;
a background refresh never chooses a row.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from handoff_gate.tui.model import Entry, Key


def next_after(entries: dict[Key, Entry], listed: Sequence[Hashable], decided: Key) -> Key | None:
    """Where the cursor goes after a decision: the next handoff of the same run that
    needs a person (by sequence, wrapping), else the first one of the next run."""
    run_dir = decided[0]
    shown = set(listed)
    open_ = [e for e in entries.values() if e.waiting and e.key != decided and e.key in shown]
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
    """The next (``direction`` 1) or previous (-1) listed handoff needing a decision,
    wrapping around; ``None`` when no other one does."""
    for step in range(1, len(keys)):
        key = keys[(cursor + direction * step) % len(keys)]
        entry = entries.get(key) if isinstance(key, tuple) else None
        if entry is not None and entry.waiting:
            return entry.key
    return None
