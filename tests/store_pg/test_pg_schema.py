"""The schema's guarantees, checked against a real server with plain SQL."""

from __future__ import annotations

import json
import threading
from typing import Any

import psycopg
import pytest
from pg_rows import add_decision, add_event, add_handoff, add_run
from psycopg import errors
from psycopg.conninfo import make_conninfo

from handoff_gate.gates.store.postgres_schema import (
    CHANNEL,
    LATEST,
    PIPELINE_ROLE,
    REVIEWER_ROLE,
    SchemaMissing,
    SchemaTooNew,
    init_schema,
    lock_run,
    require_schema,
    schema_version,
)

BOUND = 30


def test_a_fresh_database_has_no_schema(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        assert schema_version(conn) is None
        with pytest.raises(SchemaMissing, match="run `handoff-gate store init`"):
            require_schema(conn)


def test_init_twice_changes_nothing_the_second_time(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert init_schema(conn, roles=True) == LATEST
        add_handoff(conn, add_run(conn))
        assert init_schema(conn, roles=True) == LATEST
        assert require_schema(conn) == LATEST
        assert conn.execute("SELECT count(*) FROM handoffs").fetchone() == (1,)


def test_concurrent_inits_all_succeed(pg_url: str) -> None:
    """Four connections start migrating at once; the advisory lock lets one work."""
    gate, results, failures = threading.Barrier(4), [], []

    def init() -> None:
        try:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                gate.wait(BOUND)
                results.append(init_schema(conn, roles=True))
        except Exception as exc:
            failures.append(exc)

    threads = [threading.Thread(target=init) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(BOUND)
    assert failures == []
    assert results == [LATEST] * 4


def test_a_newer_schema_is_refused(schema_db: psycopg.Connection[Any]) -> None:
    schema_db.execute("UPDATE handoff_gate_meta SET version = %s", (LATEST + 1,))
    with pytest.raises(SchemaTooNew, match="upgrade handoff-gate"):
        require_schema(schema_db)
    with pytest.raises(SchemaTooNew):
        init_schema(schema_db, roles=False)


BAD_RUN_IDS = ["", "-x", ".hidden", "a/b", "a b", "x" * 201, "run\n", "ünï"]


def test_bad_run_ids_are_refused(schema_db: psycopg.Connection[Any]) -> None:
    for run in BAD_RUN_IDS:
        with pytest.raises(errors.CheckViolation):
            add_run(schema_db, run)
    add_run(schema_db, "A1._-" + "x" * 195)


def test_handoff_rows_must_be_self_consistent(schema_db: psycopg.Connection[Any]) -> None:
    run = add_run(schema_db)
    with pytest.raises(errors.CheckViolation):
        schema_db.execute(
            "INSERT INTO handoffs (run, seq, id, phase, data, sha256) "
            "VALUES (%s, 1, %s, %s, %s, %s)",
            (run, "0001-plan", "plan", b"{}", "0" * 64),
        )
    with pytest.raises(errors.CheckViolation):
        schema_db.execute(
            "INSERT INTO handoffs (run, seq, id, phase, data, sha256) "
            "VALUES (%s, 2, '0001-plan', 'plan', '', encode(sha256(''), 'hex'))",
            (run,),
        )
    with pytest.raises(errors.ForeignKeyViolation):
        add_handoff(schema_db, "no-such-run")


def test_seq_id_and_idempotency_key_are_unique(schema_db: psycopg.Connection[Any]) -> None:
    run = add_run(schema_db)
    add_handoff(schema_db, run, 1, key="k1")
    with pytest.raises(errors.UniqueViolation):
        add_handoff(schema_db, run, 1, phase="other")
    with pytest.raises(errors.UniqueViolation):
        add_handoff(schema_db, run, 2, key="k1")
    add_handoff(schema_db, run, 2)
    add_handoff(schema_db, run, 3)
    assert schema_db.execute("SELECT count(*) FROM handoffs").fetchone() == (3,)


def test_one_decision_per_principal(schema_db: psycopg.Connection[Any]) -> None:
    hid = add_handoff(schema_db, add_run(schema_db))
    add_decision(schema_db, "run-1", hid, "alice")
    add_decision(schema_db, "run-1", hid, "bob")
    with pytest.raises(errors.UniqueViolation):
        add_decision(schema_db, "run-1", hid, "alice", b'{"action":"reject"}')
    with pytest.raises(errors.ForeignKeyViolation):
        add_decision(schema_db, "run-1", "0002-plan", "alice")


CHANGES = [
    "UPDATE runs SET created_at = now()",
    "DELETE FROM runs",
    "TRUNCATE runs CASCADE",
    "UPDATE handoffs SET data = 'x', sha256 = encode(sha256('x'), 'hex')",
    "DELETE FROM handoffs",
    "TRUNCATE handoffs CASCADE",
    "UPDATE decisions SET data = 'x'",
    "DELETE FROM decisions",
    "TRUNCATE decisions",
    "UPDATE events SET line = 'x'",
    "DELETE FROM events",
    "TRUNCATE events",
]


def test_append_only_even_for_the_owner(schema_db: psycopg.Connection[Any]) -> None:
    hid = add_handoff(schema_db, add_run(schema_db))
    add_decision(schema_db, "run-1", hid, "alice")
    add_event(schema_db, "run-1", 1)
    assert schema_db.execute(
        "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
    ).fetchone() == (True,)
    for statement in CHANGES:
        with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
            schema_db.execute(statement)
    counts = schema_db.execute(
        "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM handoffs), "
        "(SELECT count(*) FROM decisions), (SELECT count(*) FROM events)"
    ).fetchone()
    assert counts == (1, 1, 1, 1)


def test_events_are_numbered_without_gap_or_fork(schema_db: psycopg.Connection[Any]) -> None:
    run = add_run(schema_db)
    with pytest.raises(errors.CheckViolation, match="not next"):
        add_event(schema_db, run, 2)
    add_event(schema_db, run, 1)
    with pytest.raises(errors.IntegrityError):
        add_event(schema_db, run, 1)
    add_event(schema_db, run, 2)
    add_event(schema_db, add_run(schema_db, "run-2"), 1)


def test_lock_run_makes_the_second_appender_wait(schema_db: psycopg.Connection[Any]) -> None:
    """While one writer holds the run's lock a second one waits, then sees the new row."""
    run = add_run(schema_db)
    url = schema_db.info.dsn
    seen: list[int] = []

    def second_writer() -> None:
        with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
            lock_run(conn, run)
            row = conn.execute("SELECT max(n) FROM events WHERE run = %s", (run,)).fetchone()
            assert row is not None
            seen.append(row[0])
            add_event(conn, run, row[0] + 1)

    with schema_db.transaction():
        lock_run(schema_db, run)
        add_event(schema_db, run, 1)
        writer = threading.Thread(target=second_writer)
        writer.start()
        with psycopg.connect(url, autocommit=True) as watcher:
            waiting = 0
            for _ in range(BOUND * 100):
                row = watcher.execute(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                ).fetchone()
                waiting = row[0] if row else 0
                if waiting:
                    break
                threading.Event().wait(0.01)
        assert waiting == 1
    writer.join(BOUND)
    assert seen == [1]
    assert schema_db.execute("SELECT max(n) FROM events").fetchone() == (2,)


def test_inserts_notify_listeners(schema_db: psycopg.Connection[Any]) -> None:
    with psycopg.connect(schema_db.info.dsn, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        hid = add_handoff(schema_db, add_run(schema_db))
        add_decision(schema_db, "run-1", hid, "alice")
        add_event(schema_db, "run-1", 1)
        notes = list(listener.notifies(timeout=BOUND, stop_after=2))
    assert [json.loads(n.payload) for n in notes] == [
        {"run": "run-1", "handoff": hid, "kind": "handoff"},
        {"run": "run-1", "handoff": hid, "kind": "decision"},
    ]
    assert {n.channel for n in notes} == {CHANNEL}


def _as(conn: psycopg.Connection[Any], role: str) -> psycopg.Connection[Any]:
    return psycopg.connect(make_conninfo(conn.info.dsn, user=role), autocommit=True)


def test_the_pipeline_role_cannot_decide(schema_db: psycopg.Connection[Any]) -> None:
    with _as(schema_db, PIPELINE_ROLE) as pipeline:
        hid = add_handoff(pipeline, add_run(pipeline))
        add_event(pipeline, "run-1", 1)
        assert pipeline.execute("SELECT count(*) FROM decisions").fetchone() == (0,)
        assert require_schema(pipeline) == LATEST
        with pytest.raises(errors.InsufficientPrivilege):
            add_decision(pipeline, "run-1", hid, "pipeline")
        with pytest.raises(errors.InsufficientPrivilege):
            pipeline.execute("UPDATE handoffs SET phase = 'x'")


def test_the_reviewer_role_cannot_submit(schema_db: psycopg.Connection[Any]) -> None:
    hid = add_handoff(schema_db, add_run(schema_db))
    with _as(schema_db, REVIEWER_ROLE) as reviewer:
        add_decision(reviewer, "run-1", hid, "alice")
        add_event(reviewer, "run-1", 1)
        assert reviewer.execute("SELECT count(*) FROM handoffs").fetchone() == (1,)
        with pytest.raises(errors.InsufficientPrivilege):
            add_handoff(reviewer, "run-1", 2)
        with pytest.raises(errors.InsufficientPrivilege):
            add_run(reviewer, "run-2")


def _add_contract(conn: psycopg.Connection[Any], schema_id: str = "plan/v1") -> None:
    conn.execute(
        "INSERT INTO contracts (run, schema_id, sha256, kind, document) "
        "VALUES ('run-1', %s, %s, 'json-schema', '{}')",
        (schema_id, "a" * 64),
    )


def test_stored_contracts_are_the_pipelines_to_add_and_nobodys_to_change(
    schema_db: psycopg.Connection[Any],
) -> None:
    with _as(schema_db, PIPELINE_ROLE) as pipeline:
        add_run(pipeline)
        with psycopg.connect(schema_db.info.dsn, autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANNEL}")
            _add_contract(pipeline)
            (note,) = list(listener.notifies(timeout=BOUND, stop_after=1))
        assert json.loads(note.payload) == {"run": "run-1", "kind": "contract"}
        with pytest.raises(errors.UniqueViolation):
            _add_contract(pipeline)
        with pytest.raises(errors.InsufficientPrivilege):
            pipeline.execute("UPDATE contracts SET document = 'x'")
    with _as(schema_db, REVIEWER_ROLE) as reviewer:
        assert reviewer.execute("SELECT count(*) FROM contracts").fetchone() == (1,)
        with pytest.raises(errors.InsufficientPrivilege):
            _add_contract(reviewer, "plan/v2")
    for change in ("UPDATE contracts SET sha256 = sha256", "DELETE FROM contracts"):
        with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
            schema_db.execute(change)
    with pytest.raises(errors.CheckViolation):
        _add_contract(schema_db, "../x")
