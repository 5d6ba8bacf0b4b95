"""Rows written straight with SQL, as the store will: the tests check what the database
itself allows, so they go around any application code."""

from __future__ import annotations

import hashlib
from typing import Any

from psycopg import Connection

DECISION = b'{"action":"approve"}'


def add_run(conn: Connection[Any], run: str = "run-1") -> str:
    conn.execute("INSERT INTO runs (run) VALUES (%s)", (run,))
    return run


def add_handoff(
    conn: Connection[Any],
    run: str = "run-1",
    seq: int = 1,
    phase: str = "plan",
    data: bytes = b'{"format":"handoff-gate/1"}',
    key: str | None = None,
) -> str:
    handoff_id = f"{seq:04d}-{phase}"
    conn.execute(
        "INSERT INTO handoffs (run, seq, id, phase, data, sha256, idempotency_key) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (run, seq, handoff_id, phase, data, hashlib.sha256(data).hexdigest(), key),
    )
    return handoff_id


def add_decision(
    conn: Connection[Any], run: str, handoff_id: str, principal: str, data: bytes = DECISION
) -> None:
    conn.execute(
        "INSERT INTO decisions (run, handoff_id, principal, data) VALUES (%s, %s, %s, %s)",
        (run, handoff_id, principal, data),
    )


def add_event(conn: Connection[Any], run: str, n: int, line: bytes = b"{}") -> None:
    conn.execute("INSERT INTO events (run, n, line) VALUES (%s, %s, %s)", (run, n, line))
