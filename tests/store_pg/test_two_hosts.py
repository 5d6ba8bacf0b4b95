"""A pipeline and a reviewer on two "hosts": separate processes in separate folders that
share only the database URL, each logged in as its own role; and waiters that outlive an
immediate server restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pg_server import PgServer

from handoff_gate.gates.run import audit
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import PIPELINE_ROLE, REVIEWER_ROLE
from handoff_gate.gates.store.select import STORE_ENV

SCRIPT = Path(__file__).with_name("host_roles.py")
BOUND = 60
WAITERS = 4


def _host(tmp_path: Path, name: str, url: str, *args: str) -> subprocess.Popen[str]:
    """Start ``host_roles.py`` in its own empty folder with only the store URL to go on."""
    home = tmp_path / name
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env[STORE_ENV] = url
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), *args],
        cwd=home,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _urls(server: PgServer, conn: psycopg.Connection[Any]) -> tuple[str, str]:
    db = conn.info.dbname
    return server.url(db, user=PIPELINE_ROLE), server.url(db, user=REVIEWER_ROLE)


@pytest.mark.parametrize(("action", "code"), [("approve", 0), ("reject", 1)])
def test_a_pipeline_waits_for_a_reviewer_on_another_host(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path, action: str, code: int
) -> None:
    pipeline_url, reviewer_url = _urls(pg_server, schema_db)
    pipeline = _host(tmp_path, "ci-runner", pipeline_url, "pipeline", "nightly")
    assert pipeline.stdout is not None
    assert pipeline.stdout.readline() == "submitted 0001-plan\n"
    assert pipeline.stdout.readline() == "listening\n"
    reviewer = _host(
        tmp_path, "laptop", reviewer_url, "reviewer", "nightly", "0001-plan", action, "too vague"
    )
    assert reviewer.wait(BOUND) == 0, reviewer.communicate()
    out, err = pipeline.communicate(timeout=BOUND)
    assert pipeline.returncode == code, err
    decision = json.loads(out)
    assert (decision["action"], decision["reason"]) == (action, "too vague")
    store = PostgresStore(pg_server.url(schema_db.info.dbname))
    with store:
        assert audit.verify_chain("nightly", store) == []
        events = [e["event"] for e in audit.read_events("nightly", store)]
    assert events == ["handoff_submitted", "decision_written"]
    assert list((tmp_path / "ci-runner").iterdir()) == []  # nothing on the pipeline's disk


def test_the_pipeline_role_cannot_decide_and_leaves_nothing_behind(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    pipeline_url, _ = _urls(pg_server, schema_db)
    pipeline = _host(tmp_path, "ci-runner", pipeline_url, "pipeline", "nightly")
    assert pipeline.stdout is not None
    assert pipeline.stdout.readline() == "submitted 0001-plan\n"
    forger = _host(tmp_path, "ci-2", pipeline_url, "reviewer", "nightly", "0001-plan", "approve")
    _, err = forger.communicate(timeout=BOUND)
    pipeline.kill()
    pipeline.communicate()
    assert forger.returncode == 2
    assert err.count("\n") == 1
    assert err.startswith("refused: the database refused the write: permission denied")
    assert schema_db.execute("SELECT count(*) FROM decisions").fetchone() == (0,)
    assert schema_db.execute("SELECT count(*) FROM events").fetchone() == (1,)


def test_waiters_see_a_decision_made_after_the_server_crashed_and_came_back(
    pg_server: PgServer, schema_db: psycopg.Connection[Any], tmp_path: Path
) -> None:
    pipeline_url, reviewer_url = _urls(pg_server, schema_db)
    submitter = _host(tmp_path, "ci", pipeline_url, "pipeline", "nightly")
    assert submitter.stdout is not None
    assert submitter.stdout.readline() == "submitted 0001-plan\n"
    waiters = [
        _host(tmp_path, f"w{n}", pipeline_url, "waiter", "nightly", "0001-plan")
        for n in range(WAITERS)
    ]
    for waiter in [submitter, *waiters]:
        assert waiter.stdout is not None
        assert waiter.stdout.readline() == "listening\n"
    pg_server.stop("immediate")
    pg_server.start()
    reviewer = _host(
        tmp_path, "laptop", reviewer_url, "reviewer", "nightly", "0001-plan", "approve"
    )
    assert reviewer.wait(BOUND) == 0, reviewer.communicate()
    for waiter in [submitter, *waiters]:
        out, err = waiter.communicate(timeout=BOUND)
        assert waiter.returncode == 0, err
        assert json.loads(out)["action"] == "approve"
