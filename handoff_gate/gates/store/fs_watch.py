"""One change watcher per directory per process, shared by every waiter on it.

The per-user default allows 128 inotify instances, so a watcher per waiter ran out at
about a hundred concurrent waits. The first subscriber to a directory starts a thread
that wakes every subscriber on each batch of changes; the last to leave stops it. When
the system refuses a watcher, the thread wakes subscribers on a timer instead, and says
so once per process. A wake-up is only a hint: subscribers re-read the real state.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import watchfiles

from handoff_gate.gates.store.fs_listing import WITHDRAWALS

#: watchfiles batching: report a change after ``STEP_MS`` of quiet, at most ``DEBOUNCE_MS``.
STEP_MS = 5
DEBOUNCE_MS = 50
#: How often the watcher thread looks up from the kernel to see whether it should stop.
RUST_TIMEOUT_MS = 250
#: How often subscribers are woken without events (fallback, or ``force_polling``).
POLL_MS = 100
#: So a test or an operator can count watcher threads.
THREAD_PREFIX = "handoff-gate-watch"

_log = logging.getLogger("handoff_gate.watch")

Wake = Callable[[], None]


@dataclass(eq=False)
class _Watcher:
    directory: Path
    force_polling: bool
    subscribers: dict[int, tuple[str | None, Wake]] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    polling: bool = False

    def wake_all(self, names: set[str] | None = None) -> None:
        with _lock:
            wakes = [
                wake
                for name, wake in self.subscribers.values()
                if names is None or name is None or name in names
            ]
        for wake in wakes:
            try:
                wake()
            except Exception:  # noqa: S112 - one broken waiter must not starve the rest
                continue

    def run(self) -> None:
        self.polling = self.force_polling
        try:
            self._watch()
        except (OSError, RuntimeError) as exc:
            if self.stop.is_set():
                return
            _refused(self.directory, exc)
        if self.stop.is_set():
            return
        self.polling = True
        self.wake_all()  # events may have been lost while the watcher failed
        while not self.stop.wait(POLL_MS / 1000):
            self.wake_all()

    def _watch(self) -> None:
        for changes in watchfiles.watch(
            self.directory,
            step=STEP_MS,
            debounce=DEBOUNCE_MS,
            rust_timeout=RUST_TIMEOUT_MS,
            yield_on_timeout=True,
            stop_event=self.stop,
            force_polling=self.force_polling,
            poll_delay_ms=POLL_MS,
            recursive=False,
        ):
            if self.stop.is_set():
                return
            if changes:
                self.wake_all({Path(path).name for _, path in changes})


_lock = threading.Lock()
_watchers: dict[tuple[Path, bool], _Watcher] = {}
_next_token = 0
_warned = False


def _refused(directory: Path, exc: BaseException) -> None:
    """Say once per process that watching failed and polling took over."""
    global _warned
    with _lock:
        first, _warned = not _warned, True
    if first:
        reason = " ".join(str(exc).split())[:200]
        _log.warning(
            "handoff-gate: cannot watch %s for changes (%s); polling every %d ms instead",
            directory,
            reason,
            POLL_MS,
        )


class WatchSubscription:
    """A registered wake-up callback; ``close()`` unregisters it."""

    __slots__ = ("_closed", "_token", "_watcher")

    def __init__(self, watcher: _Watcher, token: int) -> None:
        self._watcher = watcher
        self._token = token
        self._closed = False

    @property
    def polling(self) -> bool:
        return self._watcher.polling

    def close(self) -> None:
        with _lock:
            if self._closed:
                return
            self._closed = True
            watcher = self._watcher
            watcher.subscribers.pop(self._token, None)
            if watcher.subscribers:
                return
            watcher.stop.set()
            key = (watcher.directory, watcher.force_polling)
            if _watchers.get(key) is watcher:
                del _watchers[key]


def subscribe(
    directory: Path, wake: Wake, *, name: str | None = None, force_polling: bool = False
) -> WatchSubscription:
    """Call ``wake()`` (quick and thread-safe) from the watcher thread whenever
    ``directory`` changes. With ``name``, only changes to that entry wake it, so a
    decision wakes its own waiter and not the hundreds of others on the same run."""
    global _next_token
    key = (directory.absolute(), force_polling)
    with _lock:
        watcher = _watchers.get(key)
        if watcher is None:
            watcher = _Watcher(key[0], force_polling)
            _watchers[key] = watcher
            watcher.thread = threading.Thread(
                target=watcher.run, name=f"{THREAD_PREFIX}:{key[0].name}", daemon=True
            )
            start = True
        else:
            start = False
        _next_token += 1
        watcher.subscribers[_next_token] = (name, wake)
        subscription = WatchSubscription(watcher, _next_token)
    if start and watcher.thread is not None:
        watcher.thread.start()
    return subscription


def watcher_threads() -> list[threading.Thread]:
    """Stopped ones exit within a re-check."""
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]


def watched_directories() -> list[Path]:
    with _lock:
        return sorted(path for path, _ in _watchers)


def subscriber_count(directory: Path) -> int:
    with _lock:
        return sum(
            len(w.subscribers) for (path, _), w in _watchers.items() if path == directory.absolute()
        )


class DecisionWatch:
    """A wait's wake-ups in a run folder, aimed at where its decision will appear next:
    ``decisions/{id}/`` once it exists for signed records (a change inside a subfolder
    is no change of ``decisions/``), else ``decisions/``, else the run. ``withdrawals/``
    is watched by name when it exists; a withdrawal that makes the folder is seen by the
    wait's periodic re-check, without a second watcher per run."""

    def __init__(
        self,
        run_dir: Path,
        decisions: Path,
        handoff_id: str,
        wake: Wake,
        *,
        signed: bool,
        poll: bool,
    ) -> None:
        self._run_dir = run_dir
        self._decisions = decisions
        self._handoff_id = handoff_id
        self._wake = wake
        self._signed = signed
        self._poll = poll
        self._subscription: WatchSubscription | None = None
        self._watched: Path | None = None
        self._withdrawals: WatchSubscription | None = None

    def rearm(self) -> bool:
        principals = self._decisions / self._handoff_id
        if self._signed and principals.is_dir():
            target, name = principals, None
        elif self._decisions.is_dir():
            target = self._decisions
            name = self._handoff_id if self._signed else f"{self._handoff_id}.json"
        else:
            target, name = self._run_dir, None
        moved = self._rearm_withdrawals()
        if target == self._watched:
            return moved
        self._close_decisions()
        self._subscription = subscribe(target, self._wake, name=name, force_polling=self._poll)
        self._watched = target
        return True

    def _rearm_withdrawals(self) -> bool:
        folder = self._run_dir / WITHDRAWALS
        if self._withdrawals is not None or not folder.is_dir():
            return False
        self._withdrawals = subscribe(
            folder, self._wake, name=self._handoff_id, force_polling=self._poll
        )
        return True

    def _close_decisions(self) -> None:
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
            self._watched = None

    def close(self) -> None:
        self._close_decisions()
        if self._withdrawals is not None:
            self._withdrawals.close()
            self._withdrawals = None
