"""Decision pickup through PostgreSQL (issue 10): ``decide`` returns in this process -> a
``wait`` on a ``PostgresStore``, blocked in another process since before, returns.

Baseline, same server and same run, taking turns with the gate's waiter: a bare psycopg
``LISTEN`` waiter woken by the schema's ``INSERT`` trigger on ``decisions`` (its NOTIFY),
which then reads the decision row. The server is a throwaway cluster started the way the
tests start theirs (``tests/pg_server.py``, the one copy of that helper). A waiter counts
as armed once the server shows its connection's ``LISTEN`` in ``pg_stat_activity``; only
then is the decision made. Without PostgreSQL binaries the benchmark is left out.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any
from urllib.parse import urlencode

import psycopg

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import finish, start_module
from bench.stats import summarize
from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.schemas import example_path
from tests.pg_server import PgServer, PgUnavailable

TARGET = Target(stat="p95", limit=25.0, max_ratio=1.5)
RUN = "pickup-run"
_ARMED = (
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND query ILIKE 'LISTEN%%'"
)


def _armed(admin: psycopg.Connection[Any], proc: Any, name: str, bound_s: float = 30.0) -> None:
    """Block until the waiter's LISTEN shows on the server (it is armed), or fail."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"waiter exited early: {finish(proc, 1)}")
        row = admin.execute(_ARMED, (name,)).fetchone()
        if row is not None and row[0] >= 1:
            return
        time.sleep(0.002)
    raise TimeoutError(f"waiter {name} did not LISTEN within {bound_s} s")


def _measure(server: PgServer, reps: int) -> dict[str, list[float]]:
    dbname = server.create_database()
    with psycopg.connect(server.url(dbname), autocommit=True) as admin:
        init_schema(admin, roles=False)
        registry = load_registry()
        payload = example_path("design/v1").read_bytes()
        series: dict[str, list[float]] = {"gate": [], "bare": []}
        random.seed(10)
        with PostgresStore(server.url(dbname)) as store:
            for rep in range(reps):
                for kind in series if rep % 2 else reversed(series):
                    ref = submit(RUN, payload, phase="design", schema_id="design/v1", store=store)
                    name = f"hg-bench-{kind}-{rep}"
                    url = f"{server.url(dbname)}?{urlencode({'application_name': name})}"
                    proc = start_module("bench.pg_waiters", kind, url, RUN, ref.id)
                    _armed(admin, proc, name)
                    time.sleep(random.uniform(0.0, 0.02))
                    decide(RUN, ref.id, "approve", reviewer="bench", registry=registry, store=store)
                    decided = time.perf_counter()
                    result = finish(proc, 60)
                    if result.get("outcome") != "approved" or not result.get("payload"):
                        raise RuntimeError(f"{kind} waiter did not get the approval: {result}")
                    series[kind].append((float(result["t"]) - decided) * 1000)
    return series


def run(ctx: Context) -> list[Figure]:
    try:
        server = PgServer.create()
    except PgUnavailable as exc:
        print(f"[pg] left out: {exc}", file=sys.stderr)
        return []
    try:
        series = _measure(server, ctx.profile.latency_reps)
    finally:
        server.destroy()
    return [
        Figure(
            name="pg.wait_api",
            unit="ms",
            value=summarize(series["gate"]),
            baseline_name="bare psycopg LISTEN waiter (INSERT trigger NOTIFY)",
            baseline=summarize(series["bare"]),
            target=TARGET,
            note="decide -> wait(store=PostgresStore) in its own process returns; same server",
        )
    ]
