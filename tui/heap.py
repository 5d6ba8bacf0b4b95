"""Freezing the review's settled heap out of the cyclic garbage collector.

Full collections of the modules, widgets and entries paused the screen for 60-100 ms and
slowed the background inspection; those objects are long-lived and entries have no
cycles, so reference counting still frees them. The screen says when its heap has
settled; this decides whether that is worth a freeze.
"""

from __future__ import annotations

import gc

#: New entries it takes before the heap is frozen out of garbage collection again.
FREEZE_MIN = 1000


class HeapFreeze:
    """Freezes at first, then whenever the entries have doubled; ``release`` on the way out."""

    def __init__(self) -> None:
        self._frozen_at: int | None = None

    def settle(self, count: int, *, settled: bool, backlog: int) -> None:
        """Freeze if the heap has settled and grown: ``settled`` when a look at the whole
        root is through, or else when the inspection ``backlog`` has drained; ``count``
        is the number of entries known."""
        grown = self._frozen_at is None or count >= 2 * self._frozen_at + FREEZE_MIN
        if (settled or backlog == 0) and grown:
            gc.freeze()
            self._frozen_at = count

    def release(self) -> None:
        """Hand what was frozen back to the collector (the screen is going away)."""
        if self._frozen_at is not None:
            gc.unfreeze()
