"""What is particular to the PostgreSQL store: its failures are one line, a database
without the schema says how to make one, ``store init`` makes it, and ids are checked
before they reach SQL."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from typing import Any

import psycopg
import pytest
from pg_rows import add_event, add_handoff, add_run
from pg_server import PgServer

from handoff_gate.cli.main import main
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.base import Change, WatchLapse
from handoff_gate.gates.store.durable import OversizeError
from handoff_gate.gates.store.log_chain import chained_line
from handoff_gate.gates.store.pg_connect import StoreUnavailable
from handoff_gate.gates.store.pg_hints import RunWakes, hint_for
from handoff_gate.gates.store.postgres import PostgresStore, StoreRefused
from handoff_gate.gates.store.postgres_schema import (
    LATEST,
    REVIEWER_ROLE,
    SchemaMissing,
    lock_run,
)
from handoff_gate.gates.store.select import StoreURLError, store_for

BOUND = 60


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"postgresql://nobody@127.0.0.1:{port}/x"


def _store_init(*argv: str) -> int:
    """``store init`` through the real command line (``--store URL`` is a global option,
    given before the command): a failure is one line and exit 2."""
    if argv[:1] == ("--store",):
        return main([*argv[:2], "store", "init", *argv[2:]])
    return main(["store", "init", *argv])


def test_a_database_without_the_schema_says_to_run_store_init(pg_url: str) -> None:
    with PostgresStore(pg_url) as store, pytest.raises(SchemaMissing, match="store init"):
        store.exists("run-1")


def test_a_server_that_is_down_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with PostgresStore(_dead_url()) as store, pytest.raises(StoreUnavailable) as caught:
        store.handoff_ids("run-1")
    assert "\n" not in str(caught.value)
    assert _store_init("--store", _dead_url()) == 2
    err = capsys.readouterr().err
    assert err.startswith("handoff-gate store: store unavailable:")
    assert err.count("\n") == 1


def test_store_init_creates_the_schema_twice_over_and_the_store_then_works(
    pg_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _store_init("--store", pg_url, "--roles") == 0
    monkeypatch.setenv("HANDOFF_GATE_STORE", pg_url)
    assert _store_init() == 0
    out = capsys.readouterr().out
    assert out.count(f"schema at version {LATEST}") == 2
    assert REVIEWER_ROLE in out
    store = store_for(pg_url)
    assert isinstance(store, PostgresStore)
    with store:
        assert store.runs() == []
        store.add_handoff("b-run", "plan", lambda seq, hid: b"{}")
        store.add_handoff("a-run", "plan", lambda seq, hid: b"{}")
        assert store.runs() == ["a-run", "b-run"]
        assert store.exists("a-run")
        assert not store.exists("c-run")


def test_store_init_without_a_database_url_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HANDOFF_GATE_STORE", raising=False)
    assert _store_init() == 2
    assert "postgresql:// URL" in capsys.readouterr().err


@pytest.mark.parametrize("run", ["", "../etc", "a/b", "-x", "a b", "x" * 201, "ü"])
def test_run_ids_are_checked_before_any_query(run: str) -> None:
    store = PostgresStore(_dead_url())  # never connected: the check comes first
    with pytest.raises(ValueError, match="not a run id"):
        store.handoff_ids(run)


def test_a_reviewer_cannot_submit(pg_server: PgServer, schema_db: psycopg.Connection[Any]) -> None:
    url = pg_server.url(schema_db.info.dbname, user=REVIEWER_ROLE)
    with PostgresStore(url) as store, pytest.raises(StoreRefused, match="permission denied"):
        store.add_handoff("run-1", "plan", lambda seq, hid: b"{}")
    assert schema_db.execute("SELECT count(*) FROM runs").fetchone() == (0,)


def test_a_waiter_wakes_for_a_change_made_between_two_waits(
    pg_url: str, schema_db: psycopg.Connection[Any]
) -> None:
    woken = threading.Semaphore(0)
    with PostgresStore(pg_url) as waiter, PostgresStore(pg_url) as writer:
        wakes = waiter.subscribe("run-1", "0001-plan", woken.release, signed=False)
        try:
            assert wakes.rearm() and not wakes.rearm()
            assert woken.acquire(timeout=BOUND)  # at once: listening just began
            hid = writer.add_handoff("run-1", "plan", lambda seq, hid: b"{}").id
            assert woken.acquire(timeout=BOUND)  # the handoff's notice
            writer.create_decision("run-1", hid, None, b"{}", {"event": "decision_written"})
            assert woken.acquire(timeout=BOUND)
        finally:
            wakes.close()
        assert list(waiter.decision_records("run-1", hid)) == [None]


def test_a_store_object_outlives_server_restarts_for_reads_and_writes(
    pg_server: PgServer, schema_db: psycopg.Connection[Any]
) -> None:
    with PostgresStore(schema_db.info.dsn) as store:
        hid = store.add_handoff("run-1", "plan", lambda seq, hid: b"{}").id
        pg_server.stop("immediate")
        pg_server.start()
        store.create_decision("run-1", hid, "alice", b"{}", {"event": "decision_written"})
        pg_server.stop("immediate")
        pg_server.start()
        assert list(store.decision_records("run-1", hid)) == ["alice"]
        assert b"".join(store.log_chunks("run-1")).count(b"\n") == 1


def test_choosing_the_store_loads_the_driver_only_for_a_database_url() -> None:
    code = (
        "import sys; from handoff_gate.gates.store.select import store_for; store_for(''); "
        "from handoff_gate.cli.main import build_parser; build_parser(); "
        "assert 'psycopg' not in sys.modules, 'psycopg loaded'; "
        "store_for('postgres://u@h/db'); assert 'psycopg' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=BOUND)
    with pytest.raises(StoreURLError):
        store_for("mysql://u@h/db")


def test_numbers_past_9999_keep_growing(pg_url: str, schema_db: psycopg.Connection[Any]) -> None:
    add_run(schema_db)
    add_handoff(schema_db, seq=9999)
    with PostgresStore(pg_url) as store:
        assert store.add_handoff("run-1", "plan", lambda seq, hid: b"{}").id == "10000-plan"
        assert store.handoff_ids("run-1") == ["9999-plan", "10000-plan"]


def test_a_notice_wakes_only_waiters_of_its_run_unless_it_is_unreadable() -> None:
    woken: list[str] = []
    wakes = RunWakes("postgresql://nowhere/db", "run-1", lambda: woken.append("woken"))
    for payload in ['{"run": "run-1", "handoff": "0001-plan"}', '{"run": "run-2"}', "no", "[1]"]:
        wakes._hinted(hint_for(payload))  # re-reading costs less than missing a change
    wakes._hinted(WatchLapse("store connection lost"))  # its own read then fails, retried
    assert len(woken) == 4
    wakes.close()
    wakes._hinted(Change())
    assert len(woken) == 4


def test_an_append_overtaken_by_a_writer_holding_the_lock_waits_and_chains_after_it(
    schema_db: psycopg.Connection[Any],
) -> None:
    """The appender reads line 1, then its insert of line 2 waits for the run's lock; the
    holder commits its own line 2, so the appender chains its line again as line 3."""
    event = {"event": audit.Event.WAIT_RETURNED.value, "handoff": "0001-plan"}
    with PostgresStore(schema_db.info.dsn) as store:
        store.add_handoff("run-1", "plan", lambda seq, hid: b"{}")
        store.append_event("run-1", event)
        appender = threading.Thread(target=store.append_event, args=("run-1", event))
        with schema_db.transaction():
            lock_run(schema_db, "run-1")
            last = schema_db.execute("SELECT line FROM events WHERE n = 1").fetchone()
            assert last is not None
            add_event(schema_db, "run-1", 2, chained_line(bytes(last[0]), event)[0])
            appender.start()
            assert _lock_waiters(schema_db.info.dsn) == 1
        appender.join(BOUND)
        assert b"".join(store.log_chunks("run-1")).count(b"\n") == 3
        assert audit.verify_chain("run-1", store) == []


def _lock_waiters(url: str) -> int:
    """How many sessions wait for an advisory lock, once one does (or after ``BOUND``)."""
    with psycopg.connect(url, autocommit=True) as watcher:
        for _ in range(BOUND * 100):
            row = watcher.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).fetchone()
            if row is not None and row[0]:
                return int(row[0])
            threading.Event().wait(0.01)
    return 0


def test_a_waiting_store_reads_ahead_with_the_decisions_and_still_reads_right(
    schema_db: psycopg.Connection[Any],
) -> None:
    """Once it waits, reading a decided handoff's records also brings its bytes and the
    run's last line. Each serves one later call: bytes over that call's limit are refused
    as before, and a line another writer followed meanwhile is chained again."""
    event = {"event": audit.Event.WAIT_RETURNED.value, "handoff": "0001-plan"}
    url = schema_db.info.dsn
    with PostgresStore(url) as waiter, PostgresStore(url) as writer:
        hid = writer.add_handoff("run-1", "plan", lambda seq, hid: b'{"x": 1}').id
        waiter.subscribe("run-1", hid, lambda: None, signed=True).close()  # it waits now
        assert waiter.decision_records("run-1", hid) == {}
        writer.create_decision("run-1", hid, "bob", b"{}", event)
        writer.create_decision("run-1", hid, "alice", b"[]", event)
        assert list(waiter.decision_records("run-1", hid).items()) == [
            ("alice", b"[]"),
            ("bob", b"{}"),
        ]
        with pytest.raises(OversizeError):
            waiter.handoff_bytes("run-1", hid, 3)
        waiter.decision_records("run-1", hid)
        assert waiter.handoff_bytes("run-1", hid, 100) == b'{"x": 1}'
        writer.append_event("run-1", event)  # after the waiter read the last line
        waiter.append_event("run-1", event)
        assert b"".join(waiter.log_chunks("run-1")).count(b"\n") == 4
        assert audit.verify_chain("run-1", waiter) == []
