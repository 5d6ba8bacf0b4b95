"""Connections to the PostgreSQL run store that fail in one line (:class:`StoreUnavailable`,
so the CLI prints a sentence, never a traceback), and a LISTEN loop that outlives a
server restart. Settings follow libpq (``PG*`` variables, ``~/.pgpass``).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from handoff_gate.gates.store.base import StoreUnavailable as StoreUnavailable

#: Defaults under the caller's own settings. TCP keepalives make a peer that vanished
#: without closing the socket (host down, network cut) noticed within about 25 seconds
#: instead of never, which matters most to a connection idling in LISTEN.
_DEFAULTS = {
    "fallback_application_name": "handoff-gate",
    "keepalives": "1",
    "keepalives_idle": "10",
    "keepalives_interval": "5",
    "keepalives_count": "3",
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_MAX_MESSAGE = 500


@dataclass(frozen=True, slots=True)
class Notification:
    """Only a hint that something changed: re-read to know what."""

    channel: str
    payload: str
    pid: int


@dataclass(frozen=True, slots=True)
class Lost:
    """The listening connection broke (or a reconnect attempt failed); retrying follows."""

    reason: str


@dataclass(frozen=True, slots=True)
class Reconnected:
    """Listening again after a loss: notifications sent meanwhile are gone, so re-query."""


#: The one :class:`Reconnected` value :func:`listen` yields.
RECONNECTED = Reconnected()
#: What :func:`listen` yields; ``None`` means ``timeout`` passed with nothing to report.
ListenEvent = Notification | Lost | Reconnected | None


def one_line(exc: BaseException) -> str:
    """A driver or server message as one printable line: lines joined, control characters
    dropped (server text is untrusted), bounded in length."""
    parts = (_CONTROL.sub(" ", line).strip() for line in str(exc).splitlines())
    text = "; ".join(p for p in parts if p) or type(exc).__name__
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def connect(
    url: str, *, timeout: float = 5.0, autocommit: bool = True
) -> psycopg.Connection[tuple[Any, ...]]:
    """``timeout``: libpq counts whole seconds, at least 2. Autocommit by default, so work
    that must be atomic says so with ``conn.transaction()``; LISTEN needs it too."""
    try:
        params = {**_DEFAULTS, **conninfo_to_dict(url)}
    except psycopg.Error as exc:
        raise StoreUnavailable(f"invalid store URL: {one_line(exc)}") from None
    params["connect_timeout"] = str(max(2, math.ceil(timeout)))
    try:
        return psycopg.connect(make_conninfo("", **params), autocommit=autocommit)
    except psycopg.Error as exc:
        raise StoreUnavailable(f"store unavailable: {one_line(exc)}") from None


def _listening(url: str, channel: str, timeout: float) -> psycopg.Connection[tuple[Any, ...]]:
    conn = connect(url, timeout=timeout)
    try:
        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
    except psycopg.Error as exc:
        conn.close()
        raise StoreUnavailable(f"store unavailable: {one_line(exc)}") from None
    return conn


def _reconnect(
    url: str, channel: str, timeout: float, backoff: float, max_backoff: float
) -> Generator[ListenEvent, None, psycopg.Connection[tuple[Any, ...]]]:
    """Retry with doubling pauses, yielding each failure so the caller may give up."""
    delay = backoff
    while True:
        time.sleep(delay)
        try:
            return _listening(url, channel, timeout)
        except StoreUnavailable as exc:
            yield Lost(str(exc))
        delay = min(delay * 2, max_backoff)


def listen(
    url: str,
    channel: str,
    *,
    timeout: float = 1.0,
    backoff: float = 0.1,
    max_backoff: float = 5.0,
    announce: bool = False,
) -> Generator[ListenEvent, None, None]:
    """Yield notifications on ``channel``, ``None`` after ``timeout`` quiet seconds, and
    after a lost connection a :class:`Lost` per failed attempt, then :data:`RECONNECTED`.
    The first connection is not retried: a wrong URL or login raises at once.
    ``announce`` reports the first LISTEN too, for a caller that must re-query then."""
    conn = _listening(url, channel, timeout)
    try:
        if announce:
            yield RECONNECTED
        while True:
            try:
                quiet = True
                for note in conn.notifies(timeout=timeout):
                    quiet = False
                    yield Notification(note.channel, note.payload, note.pid)
                if quiet:
                    yield None
            except psycopg.Error as exc:
                conn.close()
                yield Lost(f"store connection lost: {one_line(exc)}")
                conn = yield from _reconnect(url, channel, timeout, backoff, max_backoff)
                yield RECONNECTED
    finally:
        conn.close()
