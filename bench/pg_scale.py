"""``handoff-gate --store URL watch`` over 10,000 handoffs in PostgreSQL (issue 10).

The store is filled through ``submit`` and ``decide`` (real envelopes, sha256 and audit
events; about a millisecond each), in the shape of ``bench.scale``: runs x handoffs,
contracts mixed, every fourth approved. The command runs on a pseudo-terminal: first
useful paint is the first handoff row on the terminal; peak memory is the client's VmHWM
once its CPU went quiet (everything listed and inspected). The baseline is the same
command on the same shape as run directories. The settled screen must show every handoff
listed (``showing pending x/TOTAL``), so a fast paint of a partial list cannot pass.
"""

from __future__ import annotations

import psycopg

from bench.config import Context
from bench.figures import Figure, Target
from bench.pty_paint import first_paint
from bench.runs import MIX
from bench.scale import MARKER, _root
from bench.stats import summarize
from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.postgres import PostgresStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.schemas import example_path
from tests.pg_server import PgServer


def fill_store(url: str, runs: int, per_run: int, *, decided_every: int = 4) -> int:
    """Submit ``runs`` x ``per_run`` example handoffs; approve every ``decided_every``-th."""
    registry = load_registry()
    payloads = {schema_id: example_path(schema_id).read_bytes() for schema_id in MIX}
    with PostgresStore(url) as store:
        for r in range(runs):
            run = f"run-{r:03d}"
            for i in range(per_run):
                schema_id = MIX[i % len(MIX)]
                ref = submit(
                    run,
                    payloads[schema_id],
                    phase="step",
                    schema_id=schema_id,
                    from_role="planner",
                    to_role="builder",
                    registry=registry,
                    store=store,
                )
                if decided_every and i % decided_every == 0:
                    decide(run, ref.id, "approve", reviewer="bench", registry=registry, store=store)
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM handoffs").fetchone()
    return int(row[0]) if row else 0


def scale_figures(ctx: Context, server: PgServer) -> list[Figure]:
    p = ctx.profile
    url = server.url(server.create_database())
    with psycopg.connect(url, autocommit=True) as admin:
        init_schema(admin, roles=False)
    total = fill_store(url, p.runs, p.handoffs_per_run)
    if total != p.runs * p.handoffs_per_run:
        raise RuntimeError(f"store holds {total} handoffs, not {p.runs * p.handoffs_per_run}")
    _, root = _root(ctx)
    gate = str(ctx.bin_dir / "handoff-gate")
    pg_argv = [gate, "--store", url, "watch", "--quiet"]
    fs_argv = [gate, "watch", root, "--quiet"]
    marker = MARKER.encode()
    loaded = first_paint(pg_argv, marker, settle=True, bound_s=240)
    fs_loaded = first_paint(fs_argv, marker, settle=True, bound_s=240)
    all_listed = f"/{total}" in loaded.screen
    if not all_listed:
        raise RuntimeError(f"watch --store never showed all {total} handoffs listed")
    pg = [loaded.seconds * 1000]
    fs = [fs_loaded.seconds * 1000]
    for _ in range(p.scale_reps - 1):
        fs.append(first_paint(fs_argv, marker).seconds * 1000)
        pg.append(first_paint(pg_argv, marker).seconds * 1000)
    size = f"{p.runs} runs x {p.handoffs_per_run} handoffs"
    base = f"watch ROOT, same {size} as run directories"
    return [
        Figure(
            name="pg.scale_first_row",
            unit="ms",
            value=summarize(pg),
            baseline_name=base,
            baseline=summarize(fs),
            target=Target(stat="p95", limit=1500),
            note=f"{total} handoffs in PostgreSQL: spawn -> first row painted",
            extra={"all_listed": all_listed},
        ),
        Figure(
            name="pg.scale_peak_rss",
            unit="MB",
            value=summarize([loaded.peak_rss_mb]),
            baseline_name=base,
            baseline=summarize([fs_loaded.peak_rss_mb]),
            target=Target(stat="p95", limit=300),
            note=f"{total} handoffs: client VmHWM once all listed and inspected (CPU idle; "
            f"{loaded.settled_s:.1f} s, filesystem {fs_loaded.settled_s:.1f} s)",
            extra={"settled_s": loaded.settled_s, "baseline_settled_s": fs_loaded.settled_s},
        ),
    ]
