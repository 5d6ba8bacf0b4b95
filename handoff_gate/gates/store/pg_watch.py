"""A blocked wait's wake-ups from a database: a thread that LISTENs and calls ``wake``.

The thread owns a store object of its own (its own connections), so the waiter's store
stays for the waiter's thread. A notification is only a hint; so is the wake-up sent
each time listening (re)starts, since a change made while nobody listened sent no hint
that could still arrive. If the server cannot be reached the thread wakes the waiter
(whose own read then fails and is retried by the wait) and tries again with backoff.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from handoff_gate.gates.store.base import StoreUnavailable

#: How long one listen call blocks before the thread checks whether to stop.
_TICK_S = 0.25
#: Longest pause between attempts while the server cannot be reached.
_MAX_BACKOFF_S = 1.0
#: Name prefix of listener threads, so a test or an operator can count them.
THREAD_PREFIX = "handoff-gate-listen"


class Listener(Protocol):
    """What the thread listens with: ``PostgresStore.wait_for_change`` and ``close``."""

    def wait_for_change(self, run: str, timeout: float) -> bool: ...

    def close(self) -> None: ...


class ListenWatch:
    """``Subscription`` for a database run: started by the first ``rearm``."""

    def __init__(
        self, listener: Callable[[], Listener], run: str, wake: Callable[[], None]
    ) -> None:
        self._listener = listener
        self._run = run
        self._wake = wake
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def rearm(self) -> bool:
        if self._thread is not None:
            return False
        self._thread = threading.Thread(
            target=self._listen, name=f"{THREAD_PREFIX}:{self._run}", daemon=True
        )
        self._thread.start()
        return True

    def close(self) -> None:
        self._stop.set()

    def _listen(self) -> None:
        listener = self._listener()
        pause = 0.1
        try:
            while not self._stop.is_set():
                try:
                    changed = listener.wait_for_change(self._run, _TICK_S)
                except StoreUnavailable:
                    self._wake()
                    self._stop.wait(pause)
                    pause = min(pause * 2, _MAX_BACKOFF_S)
                    continue
                pause = 0.1
                if changed and not self._stop.is_set():
                    self._wake()
        finally:
            listener.close()
