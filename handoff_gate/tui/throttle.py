"""Repaints during bulk updates, at most once per interval: background inspection can
deliver thousands of results a second, and a repaint for each would starve the screen."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.message_pump import MessagePump


class Throttled:
    """``paint`` run through ``node``'s timers at most once per ``interval`` seconds."""

    def __init__(self, node: MessagePump, interval: float, paint: Callable[[], None]) -> None:
        self._node = node
        self._interval = interval
        self._paint = paint
        self._painted = 0.0
        self._pending = False

    @property
    def pending(self) -> bool:
        return self._pending

    def __call__(self, *, now: bool = True) -> None:
        wait = self._painted + self._interval - time.monotonic()
        if not now and wait > 0:
            if not self._pending:
                self._pending = True
                self._node.set_timer(wait, self)
            return
        self._pending = False
        self._painted = time.monotonic()
        self._paint()
