"""``PostgresStore.watch`` and ``subscribe``: LISTEN on a connection of its own, as hints.

The insert triggers notify on ``CHANNEL`` with the run and handoff they touched. The
payload is server text, so it is checked: anything that does not name a valid run and
handoff becomes ``Change()`` (look at everything), as does every (re)connection: a
change made while nobody listened sent no notice that could still arrive.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from handoff_gate.gates.store.base import Change, StoreUnavailable, WatchLapse
from handoff_gate.gates.store.pg_connect import Lost, Notification, Reconnected, listen
from handoff_gate.gates.store.postgres_schema import CHANNEL
from handoff_gate.gates.vocab.ids import ID_PATTERN, RUN_ID_PATTERN

#: How long one LISTEN poll blocks before the watch checks whether it should stop.
LISTEN_TICK_S = 0.2
#: Longest pause between reconnect attempts of the listener.
MAX_BACKOFF_S = 1.0
#: How long to wait before trying again after the server could not be reached at all.
RETRY_S = 2.0
#: So a test or an operator can count a wait's listener threads.
THREAD_PREFIX = "handoff-gate-listen"

OnChange = Callable[[Change | WatchLapse], None]


def hint_for(payload: str) -> Change:
    try:
        value = json.loads(payload)
    except ValueError:
        return Change()
    if not isinstance(value, dict):
        return Change()
    run, handoff = value.get("run"), value.get("handoff")
    if not (isinstance(run, str) and RUN_ID_PATTERN.match(run)):
        return Change()
    if isinstance(handoff, str) and ID_PATTERN.match(handoff):
        return Change(run, handoff)
    return Change(run)


def watch_store(url: str, on_change: OnChange, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            _listen(url, on_change, stop)
        except StoreUnavailable as exc:
            on_change(WatchLapse(str(exc)))
            stop.wait(RETRY_S)
        except Exception as exc:  # the driver's own errors: report, retry, never die
            on_change(WatchLapse(f"{type(exc).__name__}: {exc}"))
            stop.wait(RETRY_S)


def _listen(url: str, on_change: OnChange, stop: threading.Event) -> None:
    events = listen(url, CHANNEL, timeout=LISTEN_TICK_S, max_backoff=MAX_BACKOFF_S, announce=True)
    connected = False
    try:
        for event in events:
            if stop.is_set():
                return
            if isinstance(event, Reconnected):
                connected = True
                on_change(Change())
            elif isinstance(event, Lost) and connected:
                connected = False
                on_change(WatchLapse(event.reason))
            elif isinstance(event, Notification):
                on_change(hint_for(event.payload))
    finally:
        events.close()


class RunWakes:
    """``watch_store`` on a thread of its own from the first ``rearm``, waking for each
    hint that may be about ``run``; a lapse wakes too, and the wait's own read retries."""

    def __init__(self, url: str, run: str, wake: Callable[[], None]) -> None:
        self._url = url
        self._run = run
        self._wake = wake
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def rearm(self) -> bool:
        if self._thread is not None:
            return False
        self._thread = threading.Thread(
            target=watch_store,
            args=(self._url, self._hinted, self._stop),
            name=f"{THREAD_PREFIX}:{self._run}",
            daemon=True,
        )
        self._thread.start()
        return True

    def close(self) -> None:
        self._stop.set()

    def _hinted(self, change: Change | WatchLapse) -> None:
        """A notice about another run is not this wait's; a closed wait is woken no more."""
        about = isinstance(change, WatchLapse) or change.run in (None, self._run)
        if about and not self._stop.is_set():
            self._wake()
