"""An asyncio wait on a database outlives the server going away, as a blocking wait does:
it tries again until its deadline, and then gets the decision made after the restart."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from pg_server import PgServer

import handoff_gate as hg
from handoff_gate.schemas import example_path

BOUND = 60
PLAN = example_path("plan/v1").read_bytes()


async def test_wait_async_outlives_a_server_crash_and_gets_the_decision_after_it(
    pg_server: PgServer, pg_url: str, schema_db: psycopg.Connection[Any]
) -> None:
    url = pg_url  # schema_db has given this database the schema and roles
    blocked = asyncio.Event()
    with hg.Gate(url) as pipeline:
        ref = pipeline.submit("nightly", PLAN, phase="plan", schema_id="plan/v1")
        task = asyncio.create_task(
            pipeline.wait_async("nightly", ref, timeout=BOUND, on_block=lambda _: blocked.set())
        )
        await asyncio.wait_for(blocked.wait(), BOUND)
        pg_server.stop("immediate")
        await asyncio.sleep(1.0)  # the waiter's listener loses its connection and retries
        assert not task.done(), "the wait ended while the server was down"
        pg_server.start()
        with hg.Gate(url) as reviewer:
            reviewer.decide("nightly", ref, "approve", reviewer="ana")
        result = await asyncio.wait_for(task, BOUND)
    assert result.outcome == "approved"
    assert result.payload is not None
