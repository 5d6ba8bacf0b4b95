"""TUI scale: ``handoff-gate watch`` on 100 runs x 100 handoffs, and one 100,000-leaf payload.

The root is watched through the real command on a pseudo-terminal: first useful paint
is the first handoff row on the terminal; peak memory is the process's VmHWM once its
CPU went quiet (every handoff inspected). The baseline is the minimal Textual app that
imports pydantic. The detail view is timed inside a headless app (``bench.tui_probe``):
from moving the cursor onto the handoff to the last line of the field tree's first screen.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.payloads import inventory_leaves
from bench.procs import compile_project, finish, start_module
from bench.pty_paint import first_paint
from bench.runs import fill_run
from bench.stats import summarize
from handoff_gate.gates.api import submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.filesystem import FilesystemStore, find_runs, list_handoffs
from handoff_gate.schemas import example_path

MARKER = "-step"


def _fill(run_dir: Path, count: int) -> None:
    fill_run(run_dir, count, phase="step", decided_every=4)


def _root(ctx: Context) -> tuple[int, str]:
    """Runs x handoffs, every run filled through ``submit``/``decide`` under its own name.

    Copies of one run would be cheaper, but each copy's envelopes and decisions name the
    template's run: the core blocks every such handoff as misplaced and finds every
    decision unusable, which is not a reviewer's root (and moves a quarter of the rows
    into the pending list while they load). Two processes fill the runs.
    """
    p = ctx.profile
    root = ctx.workdir / "root"
    runs = [root / f"run-{i:03d}" for i in range(p.runs)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        list(pool.map(_fill, runs, [p.handoffs_per_run] * p.runs))
    return p.runs * p.handoffs_per_run, str(root)


def _inspect_all_estimate(root: Path, sample: int) -> list[float]:
    """Seconds to inspect every handoff under ``root`` one by one, extrapolated from a sample.

    This is the work the TUI cannot avoid; the rest of its time to idle is its own.
    """
    registry = load_registry()
    store = FilesystemStore()
    refs = [ref for run in find_runs(root) for ref in list_handoffs(run)]
    step = max(1, len(refs) // sample)
    times = []
    for ref in refs[::step][:sample]:
        t0 = time.perf_counter()
        inspect_in_run(ref.run, ref.id, registry, store=store)
        times.append(time.perf_counter() - t0)
    per = statistics.median(times)
    return [per * len(refs)]


def _list_figures(ctx: Context) -> list[Figure]:
    total, root = _root(ctx)
    gate = str(ctx.bin_dir / "handoff-gate")
    argv = [gate, "watch", root, "--quiet"]
    minimal_argv = [ctx.python, "-m", "bench.minimal_app", MARKER]
    # One run to idle (memory, time to inspect everything), the rest to first paint only.
    loaded = first_paint(argv, MARKER.encode(), settle=True, bound_s=180)
    minimal_loaded = first_paint(minimal_argv, MARKER.encode(), settle=True)
    watch = [loaded.seconds * 1000]
    minimal = [minimal_loaded.seconds * 1000]
    for _ in range(ctx.profile.scale_reps - 1):
        minimal.append(first_paint(minimal_argv, MARKER.encode()).seconds * 1000)
        watch.append(first_paint(argv, MARKER.encode()).seconds * 1000)
    size = f"{ctx.profile.runs} runs x {ctx.profile.handoffs_per_run} handoffs"
    return [
        Figure(
            name="scale.first_paint",
            unit="ms",
            value=summarize(watch),
            baseline_name="minimal Textual app",
            baseline=summarize(minimal),
            target=Target(stat="p95", limit=1500),
            note=f"{size}: spawn -> first row painted; project bytecode cached (compileall)",
        ),
        Figure(
            name="scale.peak_rss",
            unit="MB",
            value=summarize([loaded.peak_rss_mb]),
            baseline_name="minimal Textual app",
            baseline=summarize([minimal_loaded.peak_rss_mb]),
            target=Target(stat="p95", limit=300),
            note=f"{size}: VmHWM once every handoff was inspected (CPU idle)",
        ),
        Figure(
            name="scale.all_inspected",
            unit="s",
            value=summarize([loaded.settled_s]),
            baseline_name="inspect_in_run x N",
            baseline=summarize(_inspect_all_estimate(Path(root), 200)),
            note=f"spawn -> CPU idle: {total} handoffs listed and inspected in the background; "
            "baseline extrapolated from 200",
        ),
    ]


def _detail_figure(ctx: Context) -> Figure:
    run_dir = ctx.workdir / "detail" / "run-detail"
    run_dir.mkdir(parents=True, exist_ok=True)
    registry = load_registry("bench.contracts")
    submit(run_dir, example_path("design/v1").read_bytes(), phase="small", schema_id="design/v1")
    big = inventory_leaves(ctx.profile.leaves)
    ref = submit(run_dir, big, phase="big", schema_id="bench_inventory/v1", registry=registry)
    inspect_ms = []
    for _ in range(3):
        t0 = time.perf_counter()
        inspect_in_run(run_dir, ref.id, registry, store=FilesystemStore())
        inspect_ms.append((time.perf_counter() - t0) * 1000)
    proc = start_module(
        "bench.tui_probe", "detail", str(run_dir), "--reps", str(max(3, ctx.profile.scale_reps * 3))
    )
    result = finish(proc, 300)
    return Figure(
        name="scale.detail_first_screen",
        unit="ms",
        value=summarize(result["big"]),
        baseline_name="same view, 2 KB design",
        baseline=summarize(result["small"]),
        target=Target(stat="p95", limit=500),
        note=f"{ctx.profile.leaves:,} leaves, {len(big) / 2**20:.1f} MB: cursor -> first screen "
        f"once inspected; inspecting it (background, once): {statistics.median(inspect_ms):.0f} ms",
        extra={"inspection_ms": statistics.median(inspect_ms)},
    )


def run(ctx: Context) -> list[Figure]:
    compile_project(ctx.python)  # time what an installed package starts from (see procs)
    return [*_list_figures(ctx), _detail_figure(ctx)]
