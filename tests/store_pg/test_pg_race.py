"""Eight processes decide the same handoff as the same principal: the database keeps one."""

from __future__ import annotations

from typing import Any

import psycopg
import racers
from pg_rows import add_decision, add_handoff, add_run
from psycopg import errors

RACERS = 8
BOUND = 60


def _decide(url: str, hid: str, n: int, gate: Any, out: Any) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        gate.wait(BOUND)
        try:
            add_decision(conn, "run-1", hid, "alice", f'{{"racer":{n}}}'.encode())
        except errors.UniqueViolation:
            out.put("lost")
        else:
            out.put("won")


def test_racing_deciders_leave_exactly_one_decision(schema_db: psycopg.Connection[Any]) -> None:
    hid = add_handoff(schema_db, add_run(schema_db))
    ctx = racers.context()
    gate, out = ctx.Barrier(RACERS), ctx.Queue()
    url = schema_db.info.dsn
    procs = [ctx.Process(target=_decide, args=(url, hid, n, gate, out)) for n in range(RACERS)]
    for p in procs:
        p.start()
    results = sorted(out.get(timeout=BOUND) for _ in range(RACERS))
    for p in procs:
        p.join(BOUND)
        assert p.exitcode == 0
    assert results == ["lost"] * (RACERS - 1) + ["won"]
    rows = schema_db.execute(
        "SELECT principal, count(*) FROM decisions WHERE run = 'run-1' GROUP BY principal"
    ).fetchall()
    assert rows == [("alice", 1)]
