"""TUI scale: ``handoff-gate watch`` on 100 runs x 100 handoffs, and one 100,000-leaf payload.

The root is watched through the real command on a pseudo-terminal: first useful paint
is the first handoff row on the terminal; peak memory is the process's VmHWM once its
CPU went quiet (every handoff inspected). The baseline is the minimal Textual app that
imports pydantic. The detail view is timed inside a headless app (``bench.tui_probe``):
from moving the cursor onto the handoff to the last line of the field tree's first screen.
"""

from __future__ import annotations

from bench.config import Context
from bench.figures import Figure, Target
from bench.payloads import inventory_leaves
from bench.procs import finish, start_module
from bench.pty_paint import Paint, first_paint
from bench.runs import fill_run, replicate
from bench.stats import summarize
from gates.store import submit
from schemas import example_path

MARKER = "-step"


def _root(ctx: Context) -> tuple[int, str]:
    p = ctx.profile
    template = ctx.workdir / "template" / "run-template"
    fill_run(template, p.handoffs_per_run, phase="step", decided_every=4)
    replicate(template, ctx.workdir / "root", p.runs)
    return p.runs * p.handoffs_per_run, str(ctx.workdir / "root")


def _list_figures(ctx: Context) -> list[Figure]:
    total, root = _root(ctx)
    gate = str(ctx.bin_dir / "handoff-gate")
    watch: list[Paint] = []
    minimal: list[Paint] = []
    for _ in range(ctx.profile.scale_reps):
        minimal.append(
            first_paint(
                [ctx.python, "-m", "bench.minimal_app", MARKER], MARKER.encode(), settle=True
            )
        )
        watch.append(
            first_paint([gate, "watch", root, "--quiet"], MARKER.encode(), settle=True, bound_s=120)
        )
    size = f"{ctx.profile.runs} runs x {ctx.profile.handoffs_per_run} handoffs"
    return [
        Figure(
            name="scale.first_paint",
            unit="ms",
            value=summarize([w.seconds * 1000 for w in watch]),
            baseline_name="minimal Textual app",
            baseline=summarize([m.seconds * 1000 for m in minimal]),
            target=Target(stat="p95", limit=1500),
            note=f"{size}: spawn -> first row painted",
        ),
        Figure(
            name="scale.peak_rss",
            unit="MB",
            value=summarize([w.peak_rss_mb for w in watch]),
            baseline_name="minimal Textual app",
            baseline=summarize([m.peak_rss_mb for m in minimal]),
            target=Target(stat="p95", limit=300),
            note=f"{size}: VmHWM once CPU idled",
        ),
        Figure(
            name="scale.all_inspected",
            unit="s",
            value=summarize([w.settled_s for w in watch]),
            baseline_name="minimal Textual app",
            baseline=summarize([m.settled_s for m in minimal]),
            note=f"spawn -> CPU idle: {total} handoffs listed and inspected in the background",
        ),
    ]


def _detail_figure(ctx: Context) -> Figure:
    run_dir = ctx.workdir / "detail" / "run-detail"
    submit(run_dir, example_path("design/v1").read_bytes(), phase="small", schema_id="design/v1")
    big = inventory_leaves(ctx.profile.leaves)
    submit(run_dir, big, phase="big", schema_id="bench_inventory/v1")
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
        note=f"{ctx.profile.leaves:,} leaves, {len(big) / 2**20:.1f} MB: cursor -> first screen",
    )


def run(ctx: Context) -> list[Figure]:
    return [*_list_figures(ctx), _detail_figure(ctx)]
