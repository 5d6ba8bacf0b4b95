"""The real ``handoff-gate`` command over PostgreSQL: a pipeline and a reviewer in separate
folders, each logged in as its own role, sharing nothing but the database URL."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pg_server import PgServer

from handoff_gate.gates.store.postgres_schema import PIPELINE_ROLE, REVIEWER_ROLE
from handoff_gate.gates.vocab.environment import STORE_ENV
from handoff_gate.schemas import example_path

PLAN = example_path("plan/v1")
BOUND = 60


def _gate(home: Path, url: str, *args: str, stdin: str | None = None) -> subprocess.Popen[str]:
    """``handoff-gate ARGS`` run in its own folder with only the store URL to go on."""
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env[STORE_ENV] = url
    return subprocess.Popen(
        [sys.executable, "-m", "handoff_gate.cli", *args],
        cwd=home,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _done(proc: subprocess.Popen[str], stdin: str | None = None) -> tuple[int, str, str]:
    out, err = proc.communicate(stdin, timeout=BOUND)
    return proc.returncode, out, err


def _submit(home: Path, url: str) -> str:
    """``handoff-gate submit`` of the example plan into run ``nightly``; its id."""
    rc, out, err = _done(
        _gate(
            home, url, "submit", "nightly", "--phase", "plan", "--schema", "plan/v1", "-", stdin=""
        ),
        PLAN.read_text(),
    )
    assert rc == 0, err
    return out.strip()


def _urls(server: PgServer, conn: psycopg.Connection[Any]) -> tuple[str, str, str]:
    db = conn.info.dbname
    return (
        server.url(db, user=PIPELINE_ROLE),
        server.url(db, user=REVIEWER_ROLE),
        server.url(db),
    )


@pytest.mark.parametrize(("action", "code"), [("approve", 0), ("reject", 1)])
def test_submit_wait_decide_across_hosts(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path, action: str, code: int
) -> None:
    pipeline_url, reviewer_url, _ = _urls(pg_server, schema_db)
    ci, laptop = tmp_path / "ci-runner", tmp_path / "laptop"
    hid = _submit(ci, pipeline_url)
    waiter = _gate(ci, pipeline_url, "wait", "nightly", hid, "--timeout", str(BOUND))
    try:
        listed = _gate(laptop, reviewer_url, "list", "--json")
        rc, out, err = _done(listed)
        assert rc == 0, err
        assert [(row["run"], row["id"], row["state"]) for row in json.loads(out)] == [
            ("nightly", hid, "pending")
        ]
        decided = _gate(
            laptop,
            reviewer_url,
            "decide",
            "nightly",
            hid,
            action,
            "--reason",
            "too vague",
            "--reviewer",
            "ana",
        )
        rc, out, err = _done(decided)
        assert rc == 0, err
        rc, out, err = _done(waiter)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert rc == code, err
    if action == "approve":
        assert json.loads(out)["problem_statement"]
    else:
        assert "too vague" in err
    assert list(ci.iterdir()) == [] and list(laptop.iterdir()) == []
    verified = _gate(laptop, reviewer_url, "audit", "nightly", "--verify")
    rc, out, err = _done(verified)
    assert rc == 0, out + err


def test_the_pipeline_role_cannot_decide(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    pipeline_url, _, _ = _urls(pg_server, schema_db)
    hid = _submit(tmp_path / "ci", pipeline_url)
    decided = _gate(tmp_path / "ci", pipeline_url, "decide", "nightly", hid, "approve")
    rc, _, err = _done(decided)
    assert rc == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert schema_db.execute("SELECT count(*) FROM decisions").fetchone() == (0,)


def test_a_database_that_is_down_or_not_set_up_is_exit_2_with_one_line(
    pg_server: PgServer, pg_url: str, tmp_path: Path
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"postgresql://nobody@127.0.0.1:{s.getsockname()[1]}/x"
    for url, says in ((dead, "unavailable"), (pg_url, "store init")):
        rc, out, err = _done(_gate(tmp_path, url, "list"))
        assert rc == 2, err
        assert says in err and err.count("\n") == 1 and "Traceback" not in err
    rc, out, err = _done(_gate(tmp_path, pg_url, "store", "init"))
    assert rc == 0, err
    rc, out, err = _done(_gate(tmp_path, pg_url, "list", "--json"))
    assert (rc, json.loads(out)) == (0, [])


def test_waiters_outlive_a_server_crash_and_get_a_decision_made_after_it(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """A notification is only a hint: a decision made while the waiters were reconnecting
    reaches every one of them, because each re-reads after any reconnect."""
    pipeline_url, reviewer_url, _ = _urls(pg_server, schema_db)
    hid = _submit(tmp_path / "ci", pipeline_url)
    waiters = [
        _gate(
            tmp_path / f"w{n}",
            pipeline_url,
            "wait",
            "nightly",
            hid,
            "--timeout",
            str(BOUND),
            "--notify",
            "echo blocking >&2",
        )
        for n in range(4)
    ]
    for waiter in waiters:
        assert waiter.stderr is not None
        while "blocking" not in (line := waiter.stderr.readline()):
            assert line, "the waiter ended before it blocked"
    pg_server.stop("immediate")
    pg_server.start()
    rc, out, err = _done(
        _gate(
            tmp_path / "laptop",
            reviewer_url,
            "decide",
            "nightly",
            hid,
            "approve",
            "--reviewer",
            "ana",
        )
    )
    assert rc == 0, err
    for waiter in waiters:
        rc, out, err = _done(waiter)
        assert rc == 0, err
        assert json.loads(out)["problem_statement"]


def test_on_a_database_submit_and_wait_speak_of_a_database_run(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    pipeline_url, _, _ = _urls(pg_server, schema_db)
    args = ("submit", "nightly", "--phase", "plan", "--schema", "plan/v1", "-")
    first = _done(_gate(tmp_path, pipeline_url, *args, stdin=""), PLAN.read_text())
    again = _done(_gate(tmp_path, pipeline_url, *args, stdin=""), PLAN.read_text())
    assert (first[0], again[0]) == (0, 0), first[2] + again[2]
    assert first[2].splitlines()[0] == "new run nightly"
    assert "new run" not in again[2]
    rc, _, err = _done(
        _gate(tmp_path, pipeline_url, "wait", "nightly", "0001-plan", "--timeout", "0")
    )
    assert rc == 3, err
    assert "any process that can write the database run can approve" in err
    assert "director" not in err and "folder" not in err
    assert not (tmp_path / "nightly").exists()
