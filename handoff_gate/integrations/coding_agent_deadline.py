"""The hook's one deadline, kept whatever holds the hook up.

A coding agent kills its hook at its own hook timeout and then runs the tool, so a hook
that answers late has answered "allow". Every step of the hook therefore comes out of
one deadline counted from the hook's start, and a watchdog thread answers for a hook
still busy shortly before it: the harness's deny, one line on stderr, and exit 2,
whatever is still locked or still reading. A stop signal brings the watchdog's answer
forward to :data:`GRACE` seconds from then, so the hook withdraws its handoff and
denies in that time or the watchdog denies for it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from handoff_gate.integrations.coding_agents import Answer, Harness, ToolEvent

#: The signals that end a hook with a deny: without a handler, SIGHUP and SIGUSR1 would
#: kill it with an exit the agent reads as "run the tool".
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1)
#: The watchdog answers this long before the deadline (at most a tenth of it): the
#: answer must be written and the process gone before the agent's own timer ends.
MARGIN = 0.5
#: How long before the watchdog's cutoff every lock wait gives up.
LOCK_LEAD = 0.25
#: After a signal, the time the hook has to withdraw and answer before the watchdog does.
GRACE = 1.0
#: Of the time left, what the wait leaves for the withdrawal and the answer after it (at
#: most a third of the deadline): a withdrawal waits for the log's lock at most this long.
RESERVE = 2.0


class Stopped(Exception):
    """A stop signal arrived before the event was read: the hook blocks (exit 2)."""


class Deadline:
    """The hook's deadline and the watchdog that keeps it.

    ``answer`` is the one way an answer leaves the process: of the hook's own answer and
    the watchdog's, exactly one is written. ``event`` (once parsed) lets the watchdog
    answer in the harness's own deny form as well as with exit 2.
    """

    def __init__(self, harness: Harness, seconds: float, *, started: float | None = None) -> None:
        self.harness = harness
        self.seconds = seconds
        begun = time.monotonic() if started is None else started
        self.at = begun + seconds
        #: When the watchdog answers, unless a signal brings it forward.
        self.cutoff = self.at - min(MARGIN, seconds / 10)
        self.event: ToolEvent | None = None
        self.why = f"its deadline ({seconds:g} s) passed before the review could end"
        #: The signal that stopped the hook, if one did: its answer is then exit 2.
        self.signalled: str | None = None
        self._answered = False
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self.stop = threading.Event()

    def wait_seconds(self) -> float:
        """How long the wait may block: to the cutoff, less what the withdrawal and the
        answer after it need (never below 0)."""
        reserve = min(RESERVE, self.seconds / 3)
        return max(0.0, self.cutoff - reserve - time.monotonic())

    def locks_until(self) -> float:
        """When every lock wait must have given up: a moment before the watchdog's
        cutoff, so a held lock ends the hook through its own answer, which names it."""
        return self.cutoff - min(LOCK_LEAD, self.seconds / 20)

    def start(self) -> None:
        """Start the watchdog (a daemon thread: it never keeps the process alive)."""
        threading.Thread(target=self._watch, name="hook-deadline", daemon=True).start()

    def hurry(self, why: str) -> None:
        """Stop the wait and answer within :data:`GRACE` seconds (a signal arrived)."""
        self.stop.set()
        with self._changed:
            self.why = self.signalled = why
            self.cutoff = min(self.cutoff, time.monotonic() + GRACE)
            self._changed.notify_all()

    def answer(self, answer: Answer) -> int:
        """Write the hook's answer unless the watchdog answered first (then wait here
        for the watchdog to end the process); the exit code to return."""
        with self._lock:
            if self._answered:  # pragma: no cover - the watchdog exits the process
                threading.Event().wait()
            self._answered = True
            _write_all(1, answer.stdout.encode())
            _write_all(2, answer.stderr.encode())
        return answer.code

    def _watch(self) -> None:
        with self._changed:
            while (left := self.cutoff - time.monotonic()) > 0:
                self._changed.wait(left)
        self._give_up()

    def _give_up(self) -> None:
        with self._lock:
            if self._answered:
                return
            self._answered = True
            line = f"handoff-gate hook {self.harness.name}: {self.why}; the call is blocked"
            if self.event is not None:
                _write_all(1, self.harness.deny(self.event, line).stdout.encode())
            _write_all(2, (line + "\n").encode())
            os._exit(2)


def process_started() -> float:
    """The ``time.monotonic()`` at which this process started, so its imports count
    against the deadline too (Linux: ``/proc/self/stat``'s start time against the boot
    clock); now, where that cannot be read or looks wrong (over a minute, negative)."""
    now = time.monotonic()
    try:
        stat = Path("/proc/self/stat").read_bytes()
        ticks = int(stat[stat.rfind(b")") + 2 :].split()[19])  # field 22, starttime
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0 <= age < 60 else now


def _write_all(fd: int, data: bytes) -> None:
    """Every byte to ``fd``, unbuffered (a write to a pipe may take only part); a reader
    that went away gets nothing more, and the exit code still says it all."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        pass


@contextmanager
def signals_deny(deadline: Deadline) -> Iterator[None]:
    """While the hook runs, each of :data:`STOP_SIGNALS` stops it with a deny
    (``Deadline.hurry``) instead of killing it; the caller's handlers are put back."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers: the signals are its owner's
        return

    def stopped(signum: int, frame: FrameType | None) -> None:
        why = f"stopped by {signal.Signals(signum).name}"
        deadline.hurry(why)
        if deadline.event is None:  # still reading the event: nothing to withdraw yet
            raise Stopped(why)

    previous = {sig: signal.signal(sig, stopped) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(sig, handler)


def flush_streams() -> None:
    """Push out whatever Python buffered before the answer is written to the raw fds."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
