"""Connecting fails in one line; listening outlives a crash and restart of the server."""

from __future__ import annotations

import json
import socket
from typing import Any

import psycopg
import pytest
from pg_rows import add_decision, add_handoff, add_run
from pg_server import PgServer
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from handoff_gate.gates.store.pg_connect import (
    RECONNECTED,
    Lost,
    Notification,
    StoreUnavailable,
    connect,
    listen,
    one_line,
)
from handoff_gate.gates.store.postgres_schema import CHANNEL

#: Upper bound on events read while waiting for one; each takes at most the listen timeout.
EVENTS = 200


def _dead_port() -> int:
    """A port nothing listens on: bound and closed, so it was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _assert_one_line(exc: pytest.ExceptionInfo[StoreUnavailable]) -> str:
    text = str(exc.value)
    assert text and "\n" not in text and "\r" not in text
    assert exc.value.__cause__ is None and exc.value.__suppress_context__
    return text


def test_a_dead_port_is_one_line() -> None:
    with pytest.raises(StoreUnavailable) as exc:
        connect(f"postgresql://nobody@127.0.0.1:{_dead_port()}/x", timeout=2)
    text = _assert_one_line(exc)
    assert text.startswith("store unavailable:") and "refused" in text


def test_a_bad_url_is_one_line() -> None:
    with pytest.raises(StoreUnavailable) as exc:
        connect("postgresql://host:notaport:5/db?sslmode")
    assert _assert_one_line(exc).startswith("invalid store URL:")


def test_an_unknown_role_is_one_line(pg_url: str) -> None:
    with pytest.raises(StoreUnavailable) as exc:
        connect(make_conninfo(pg_url, user="no_such_role"))
    assert '"no_such_role" does not exist' in _assert_one_line(exc)


def test_a_connection_is_in_autocommit(pg_url: str, pg_server: PgServer) -> None:
    with connect(pg_url) as conn:
        assert conn.autocommit
        assert conn.execute("SELECT current_setting('application_name')").fetchone() == (
            "handoff-gate",
        )
    dbname = str(conninfo_to_dict(pg_url)["dbname"])
    with connect(pg_server.socket_url(dbname), autocommit=False) as conn:
        assert not conn.autocommit
        assert conn.info.host == str(pg_server.socket_dir)


def test_one_line_drops_control_characters() -> None:
    assert one_line(ValueError("a\n\tb\x1b[31mc\x07")) == "a; b [31mc"
    assert one_line(ValueError("")) == "ValueError"
    assert len(one_line(ValueError("x" * 10_000))) == 500


def test_listen_to_a_dead_port_fails_at_once() -> None:
    with pytest.raises(StoreUnavailable):
        next(listen(f"postgresql://nobody@127.0.0.1:{_dead_port()}/x", CHANNEL))


def _next_notice(events: Any) -> Notification:
    for _ in range(EVENTS):
        event = next(events)
        if isinstance(event, Notification):
            return event
        assert event is None
    raise AssertionError("no notification")


def test_listen_survives_a_crash_and_restart(
    schema_db: psycopg.Connection[Any], pg_server: PgServer
) -> None:
    url = schema_db.info.dsn
    events = listen(url, CHANNEL, timeout=0.2, backoff=0.05, max_backoff=0.2)
    try:
        assert next(events) is None
        hid = add_handoff(schema_db, add_run(schema_db))
        note = _next_notice(events)
        assert json.loads(note.payload) == {"run": "run-1", "handoff": hid, "kind": "handoff"}

        pg_server.stop("immediate")
        try:
            lost = next(events)
            assert isinstance(lost, Lost) and "lost" in lost.reason
            retry = next(events)
            assert isinstance(retry, Lost) and "refused" in retry.reason
        finally:
            pg_server.start()
        for _ in range(EVENTS):
            event = next(events)
            if event is RECONNECTED:
                break
            assert isinstance(event, Lost)
        else:
            raise AssertionError("never reconnected")

        with psycopg.connect(url, autocommit=True) as again:
            add_decision(again, "run-1", hid, "alice")
        note = _next_notice(events)
        assert json.loads(note.payload) == {"run": "run-1", "handoff": hid, "kind": "decision"}
    finally:
        events.close()
