"""Handoff visible through PostgreSQL: ``submit`` into a store -> the row painted in the TUI.

The TUI runs headless on a ``PostgresStore`` (``bench.tui_store_probe``, what
``handoff-gate --store URL watch`` runs) and counts a row as visible when
``HandoffList.render_line`` paints it. The writer (``bench.pg_writer``) stamps each handoff
once ``submit`` returned, i.e. once its row is committed. The baseline is the filesystem
measurement of ``bench.visible``: the same TUI watching a run directory, the writer's
atomic rename stamped. Each series gets a fresh database holding one handoff; the writer
starts only once the TUI listed it, which is after its listener subscribed.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import finish, start_module
from bench.stats import summarize
from bench.visible import ISOLATED_GAP_MS, _series, _tui
from handoff_gate.gates.api import submit
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.schemas import example_path
from tests.pg_server import PgServer

TARGET = Target(stat="p95", limit=50.0, max_ratio=1.5)
RUN = "run-vis"


def _ready(proc: Any, ready: Path, bound_s: float = 60.0) -> None:
    """Block until the probe listed what was in the store (so it listens), or fail."""
    deadline = time.monotonic() + bound_s
    while not ready.exists():
        if proc.poll() is not None:
            raise RuntimeError(f"TUI probe exited early: {finish(proc, 1)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"TUI probe not ready within {bound_s} s")
        time.sleep(0.005)


def _pg_series(ctx: Context, server: PgServer, label: str, count: int) -> dict[str, Any]:
    """Per submitted handoff: ms until painted, ms until listed, and how many never were."""
    url = server.url(server.create_database())
    with psycopg.connect(url, autocommit=True) as admin:
        init_schema(admin, roles=False)
    with PostgresStore(url) as store:
        payload = example_path("plan/v1").read_bytes()
        submit(RUN, payload, phase="step", schema_id="plan/v1", store=store)
    gap = ISOLATED_GAP_MS
    bound = 15 + count * gap[1] / 1000
    ready = ctx.workdir / f"{label}.ready"
    probe = start_module(
        "bench.tui_store_probe",
        url,
        "--expect",
        str(count),
        "--bound",
        str(bound),
        "--ready",
        str(ready),
    )
    _ready(probe, ready)
    writer = start_module(
        "bench.pg_writer", url, RUN, "--count", str(count), "--gap-ms", *(str(g) for g in gap)
    )
    written: dict[str, float] = finish(writer, 120)
    seen = finish(probe, bound + 30)

    def ms(stamps: dict[str, float]) -> list[float]:
        return [(stamps[name] - t) * 1000 for name, t in written.items() if name in stamps]

    return {
        "painted": ms(seen["painted"]),
        "listed": ms(seen["listed"]),
        "unpainted": sum(1 for name in written if name not in seen["painted"]),
    }


def visible_figure(ctx: Context, server: PgServer) -> Figure:
    half = max(1, ctx.profile.latency_reps // 2)
    fs: list[float] = []
    pg: list[float] = []
    listed: list[float] = []
    unpainted = fs_unpainted = 0
    for round_ in range(2):  # two rounds each, interleaved, so drift hits both
        fs_series = _series(ctx, f"fs-{round_}", _tui, half, ISOLATED_GAP_MS)
        fs += fs_series["painted"]
        fs_unpainted += fs_series["unpainted"]
        series = _pg_series(ctx, server, f"pg-{round_}", half)
        pg += series["painted"]
        listed += series["listed"]
        unpainted += series["unpainted"]
    return Figure(
        name="pg.visible",
        unit="ms",
        value=summarize(pg),
        baseline_name="same TUI on a run directory (visible.isolated)",
        baseline=summarize(fs),
        target=TARGET,
        note=f"submit committed -> row painted in watch --store; listed p95 "
        f"{summarize(listed).p95:.0f} ms; never painted: {unpainted} (filesystem {fs_unpainted})",
        extra={"unpainted": unpainted, "baseline_unpainted": fs_unpainted},
    )
