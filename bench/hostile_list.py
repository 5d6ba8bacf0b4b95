"""``handoff-gate list`` over every run, with and without runs storing hostile schemas.

Once, one run storing an 18-level ``anyOf`` + ``$ref`` schema made every reviewer's
``list`` of all runs take 27 s (it built the contract to judge the run's handoff). A
run's stored schema must cost ``list`` what any contract costs. Two stores list the
same number of handoffs: one holds a run per hostile shape of ``bench/hostile.py`` (each
with a small payload its schema accepts: the schema is what is hostile, not the
payload) beside plain runs, the other plain runs in their place. The real command lists
each in its own process, taking turns; on run directories and, when this machine has
PostgreSQL server binaries, in a database.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psycopg

import handoff_gate as hg
from bench.config import Context
from bench.figures import Figure, Target
from bench.hostile import chained, many_options, nested_any_of
from bench.stats import summarize
from handoff_gate.gates.store.postgres_schema import init_schema
from tests.pg_server import PgServer, PgUnavailable

PLAIN_RUNS = 20
PLAIN = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
#: (run, schema, a small payload it accepts)
HOSTILE = [
    ("hostile-anyof", nested_any_of(18), {"v": {"a": "x", "b": {"a": "y"}}}),
    ("hostile-defs", chained(150), {"v": 7}),
    ("hostile-refs", chained(600), {"v": 7}),
    ("hostile-oneof", many_options(40), {"v": [{"k": n} for n in range(40)]}),
]
TARGET = Target(stat="median", max_ratio=1.2)


def _fill(store: str, *, hostile: bool) -> None:
    """``PLAIN_RUNS`` plain runs, then a run per hostile shape or as many plain ones:
    both stores list the same number of handoffs."""
    with hg.Gate(store) as gate:
        for n in range(PLAIN_RUNS + (0 if hostile else len(HOSTILE))):
            payload = json.dumps({"title": f"task {n}"}).encode()
            gate.submit(f"run-{n:02d}", payload, phase="p", schema_id="t/v1", json_schema=PLAIN)
        if hostile:
            for run, schema, good in HOSTILE:
                data = json.dumps(good).encode()
                gate.submit(run, data, phase="p", schema_id="h/v1", json_schema=schema)


def _list_command(store: str) -> list[str]:
    gate = str(Path(sys.executable).with_name("handoff-gate"))
    if store.startswith("postgresql://"):
        return [gate, "--store", store, "list"]
    return [gate, "list", store]


def _timed(command: list[str], expected: int) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
    took = time.perf_counter() - t0
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != expected:
        raise RuntimeError(f"list gave exit {done.returncode}, {len(lines)} lines: {done.stderr}")
    return took * 1000


def _figure(kind: str, plain: str, with_hostile: str, reps: int) -> Figure:
    listed = PLAIN_RUNS + len(HOSTILE)
    runs = {
        "plain": (_list_command(plain), listed),
        "hostile": (_list_command(with_hostile), listed),
    }
    times: dict[str, list[float]] = {"plain": [], "hostile": []}
    for command, expected in runs.values():  # warm-up: the page cache, the server
        _timed(command, expected)
    for i in range(reps):
        order = ["plain", "hostile"] if i % 2 == 0 else ["hostile", "plain"]
        for name in order:
            command, expected = runs[name]
            times[name].append(_timed(command, expected))
    return Figure(
        name=f"json_schema.list_with_hostile_runs_{kind}",
        unit="ms",
        value=summarize(times["hostile"]),
        baseline_name=f"the same list with {len(HOSTILE)} plain runs in their place",
        baseline=summarize(times["plain"]),
        target=TARGET,
        note=f"`handoff-gate list` in its own process; {PLAIN_RUNS} plain runs beside",
    )


def _pg_stores(server: PgServer) -> tuple[str, str]:
    urls = []
    for _ in range(2):
        url = server.url(server.create_database())
        with psycopg.connect(url, autocommit=True) as admin:
            init_schema(admin, roles=False)
        urls.append(url)
    return urls[0], urls[1]


def run(ctx: Context) -> list[Figure]:
    reps = max(1, ctx.profile.startup_reps)
    plain, with_hostile = str(ctx.workdir / "plain"), str(ctx.workdir / "hostile")
    _fill(plain, hostile=False)
    _fill(with_hostile, hostile=True)
    figures = [_figure("fs", plain, with_hostile, reps)]
    try:
        server = PgServer.create()
    except PgUnavailable as exc:
        print(f"[hostile_list] PostgreSQL left out: {exc}", file=sys.stderr)
        return figures
    try:
        pg_plain, pg_hostile = _pg_stores(server)
        _fill(pg_plain, hostile=False)
        _fill(pg_hostile, hostile=True)
        figures.append(_figure("pg", pg_plain, pg_hostile, reps))
    finally:
        server.destroy()
    return figures
