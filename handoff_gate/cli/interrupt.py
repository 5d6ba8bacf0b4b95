"""Ctrl-C and SIGTERM as a stop event, for the commands that block (``wait``, ``hook``).

A blocked command must end through its own path (logged, its waiter record removed, a
hook's handoff withdrawn) rather than by an exception landing wherever the main thread
happens to be.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def stop_on_interrupt() -> Iterator[threading.Event]:
    """Ctrl-C (and SIGTERM) end the wait through its stop event: it then returns
    ``cancelled`` by the same path as any other outcome, logged once, with its waiter
    record removed, instead of an exception landing wherever the main thread happens to be.

    The caller's handlers are put back afterwards (``main`` may run inside a caller's
    process). Off the main thread no handler can be set; signals are its owner's then.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(sig, handler)
