"""The PostgreSQL store against its own pipeline role: temporary tables that shadow the
real ones, privileges PUBLIC has by default, a lock kept forever, rows too long to hold.
Each test acts as the role would, on a real server."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli
from pg_rows import add_event, add_handoff, add_run
from pg_server import PgServer
from psycopg import errors, sql
from psycopg.conninfo import make_conninfo

from handoff_gate.gates.store.lock_bound import LOCK_TIMEOUT_ENV
from handoff_gate.gates.store.log_lines import log_lines
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import (
    LATEST,
    MIGRATIONS,
    PIPELINE_ROLE,
    REVIEWER_ROLE,
    init_schema,
)
from handoff_gate.gates.vocab.environment import STORE_ENV
from handoff_gate.gates.vocab.limits import MAX_LOG_LINE
from handoff_gate.schemas import example_path

BOUND = 60
TOP = 2**63 - 1
EVENT = {"event": "decision_written", "handoff": "0001-plan"}


def _as(conn: psycopg.Connection[Any], role: str) -> psycopg.Connection[Any]:
    return psycopg.connect(make_conninfo(conn.info.dsn, user=role), autocommit=True)


def _shadow(pipeline: psycopg.Connection[Any], run: str, top: int) -> None:
    pipeline.execute("CREATE TEMP TABLE events (run text, n bigint, line bytea)")
    pipeline.execute("INSERT INTO pg_temp.events VALUES (%s, %s, '')", (run, top))


def test_a_temp_events_table_does_not_steer_the_numbering(
    schema_db: psycopg.Connection[Any],
) -> None:
    """Given TEMP (as PUBLIC has by default), the pipeline role shadows ``events``: the
    numbering trigger must still read the real table, so event 2^63-1 is refused, a
    shadow holding 2^63-1 changes nothing, and the reviewer's next decision is event 3."""
    db = sql.Identifier(schema_db.info.dbname)
    schema_db.execute(
        sql.SQL("GRANT TEMPORARY ON DATABASE {} TO {}").format(db, sql.Identifier(PIPELINE_ROLE))
    )
    with _as(schema_db, PIPELINE_ROLE) as pipeline:
        add_handoff(pipeline, add_run(pipeline, "run-1"))
        add_event(pipeline, "run-1", 1)
        _shadow(pipeline, "run-1", TOP - 1)
        with pytest.raises(errors.CheckViolation, match="not next after 1"):
            pipeline.execute(
                "INSERT INTO public.events (run, n, line) VALUES ('run-1', %s, '')", (TOP,)
            )
        pipeline.execute("TRUNCATE pg_temp.events")
        pipeline.execute("INSERT INTO pg_temp.events VALUES ('run-1', %s, '')", (TOP,))
        pipeline.execute("INSERT INTO public.events (run, n, line) VALUES ('run-1', 2, '{}')")
    assert schema_db.execute("SELECT max(n) FROM events").fetchone() == (2,)
    url = make_conninfo(schema_db.info.dsn, user=REVIEWER_ROLE)
    with PostgresStore(url) as reviewer:
        reviewer.create_decision("run-1", "0001-plan", "alice", b"{}", EVENT)
    assert schema_db.execute("SELECT max(n) FROM events").fetchone() == (3,)


def test_store_init_roles_takes_temp_and_create_from_public(pg_url: str) -> None:
    """A database made before PostgreSQL 15 lets PUBLIC create in ``public``; every
    database lets PUBLIC make temporary tables. ``store init --roles`` takes both."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("GRANT CREATE ON SCHEMA public TO PUBLIC")
        init_schema(admin, roles=True)
        for role in (PIPELINE_ROLE, REVIEWER_ROLE):
            row = admin.execute(
                "SELECT has_database_privilege(%s, current_database(), 'TEMPORARY'), "
                "has_schema_privilege(%s, 'public', 'CREATE')",
                (role, role),
            ).fetchone()
            assert row == (False, False), role
        with _as(admin, PIPELINE_ROLE) as pipeline:
            with pytest.raises(errors.InsufficientPrivilege):
                _shadow(pipeline, "run-1", TOP - 1)
            with pytest.raises(errors.InsufficientPrivilege):
                pipeline.execute("CREATE TABLE public.events (run text, n bigint)")


def _function_paths(conn: psycopg.Connection[Any]) -> dict[str, list[str] | None]:
    rows = conn.execute(
        "SELECT proname, proconfig FROM pg_proc WHERE proname LIKE 'handoff_gate_%' "
        "ORDER BY proname"
    ).fetchall()
    return {name: config for name, config in rows}


def test_a_version_1_database_upgrades_in_place(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(
            "CREATE TABLE handoff_gate_meta (singleton boolean PRIMARY KEY DEFAULT true "
            "CHECK (singleton), version integer NOT NULL CHECK (version >= 0))"
        )
        for step in MIGRATIONS[0]:
            admin.execute(step)
        admin.execute("INSERT INTO handoff_gate_meta (version) VALUES (1)")
        add_handoff(admin, add_run(admin, "run-1"))
        add_event(admin, "run-1", 1)
        assert init_schema(admin, roles=True) == LATEST == 6
        assert admin.execute("SELECT count(*) FROM withdrawals").fetchone() == (0,)
        assert admin.execute("SELECT count(*) FROM deliveries").fetchone() == (0,)
        paths = _function_paths(admin)
        assert len(paths) == 5  # version 3 adds the contracts notify trigger
        assert all(path == ["search_path=pg_catalog, pg_temp"] for path in paths.values())
        assert admin.execute("SELECT count(*) FROM handoffs").fetchone() == (1,)
        add_event(admin, "run-1", 2)
        with pytest.raises(errors.CheckViolation):
            add_event(admin, "run-1", 4)
        with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
            admin.execute("DELETE FROM events")


def test_a_log_row_too_long_to_hold_is_streamed_in_pieces(
    schema_db: psycopg.Connection[Any],
) -> None:
    run = add_run(schema_db, "run-1")
    long, huge = b"a" * (200 * 1024), b"b" * (2 * MAX_LOG_LINE)
    for n, line in enumerate((b"{}", long, huge, b"{}"), start=1):
        add_event(schema_db, run, n, line)
    with PostgresStore(schema_db.info.dsn) as store:
        lines = list(log_lines(store, run))
        assert b"".join(store.log_chunks(run)) == b"{}\n%b\n%b\n{}\n" % (long, huge)
    assert [line.raw for line in lines] == [b"{}", long, None, b"{}"]
    assert lines[2].size == len(huge)
    assert lines[2].digest == hashlib.sha256(huge).hexdigest()


def _gate(url: str, home: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env |= {STORE_ENV: url, LOCK_TIMEOUT_ENV: "0.3"}
    encoded = stdin.encode() if stdin is not None else None
    done = cli(*args, stdin=encoded, env=env, cwd=home)
    return done.returncode, done.stdout, done.stderr


def _failure(err: str) -> str:
    lines = [line for line in err.splitlines() if not line.startswith("handoff-gate: no --policy")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_a_lock_kept_by_the_pipeline_role_ends_decide_and_wait_with_exit_2(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    db = schema_db.info.dbname
    pipeline_url, reviewer_url = (pg_server.url(db, user=r) for r in (PIPELINE_ROLE, REVIEWER_ROLE))
    plan = example_path("plan/v1").read_text()
    submit = ("submit", "nightly", "--phase", "plan", "--schema", "plan/v1", "-")
    code, first, err = _gate(pipeline_url, tmp_path, *submit, stdin=plan)
    assert code == 0, err
    code, second, err = _gate(pipeline_url, tmp_path, *submit, stdin=plan)
    assert code == 0, err
    code, _, err = _gate(reviewer_url, tmp_path, "decide", "nightly", first.strip(), "approve")
    assert code == 0, err
    with psycopg.connect(pipeline_url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s, hashtext('nightly'))", (0x6867,))
        pid = holder.info.backend_pid
        code, out, err = _gate(
            reviewer_url, tmp_path, "decide", "nightly", second.strip(), "reject"
        )
        assert code == 2, out
        line = _failure(err)
        assert f"locked by another database session (pid {pid}, role {PIPELINE_ROLE})" in line
        assert "nothing was written" in line and LOCK_TIMEOUT_ENV in line
        code, out, err = _gate(
            pipeline_url, tmp_path, "wait", "nightly", first.strip(), "--timeout", "5"
        )
        assert code == 2 and out == ""
        assert "locked by another database session" in _failure(err)
    decided = schema_db.execute("SELECT handoff_id FROM decisions").fetchall()
    assert decided == [(first.strip(),)]


def test_only_the_pipeline_role_may_withdraw_and_a_withdrawal_is_append_only(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    db = schema_db.info.dbname
    pipeline_url, reviewer_url = (pg_server.url(db, user=r) for r in (PIPELINE_ROLE, REVIEWER_ROLE))
    plan = example_path("plan/v1").read_text()
    submit = ("submit", "nightly", "--phase", "plan", "--schema", "plan/v1", "-")
    code, out, err = _gate(pipeline_url, tmp_path, *submit, stdin=plan)
    assert code == 0, err
    handoff = out.strip()
    code, _, err = _gate(reviewer_url, tmp_path, "withdraw", "nightly", handoff)
    assert code == 2 and "permission denied" in err.lower(), err
    assert schema_db.execute("SELECT count(*) FROM withdrawals").fetchone() == (0,)
    code, out, err = _gate(pipeline_url, tmp_path, "withdraw", "nightly", handoff, "--reason", "x")
    assert code == 0, err
    with pytest.raises(errors.InsufficientPrivilege):
        schema_db.execute("DELETE FROM withdrawals")
    code, _, err = _gate(reviewer_url, tmp_path, "decide", "nightly", handoff, "approve")
    assert code == 1 and "withdrawn" in err
