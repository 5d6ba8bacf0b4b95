"""After a decision, the cursor follows the decided run for a moment: a pipeline writes
its next step a moment after the decision it waited for, often after the cursor moved on.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable
from pathlib import Path

from handoff_gate.tui.model import Entry, Key

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
