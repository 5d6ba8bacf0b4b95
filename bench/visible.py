"""Handoff visible: a writer's atomic rename into a watched run -> the row rendered in the TUI.

The TUI runs headless (``App.run_test``) in a process of its own; the row counts as
visible when ``HandoffList.render_line`` paints it. The baseline is a bare watchfiles
watcher with the TUI's own step and debounce, seeing the same writer's renames. Each
series starts its observer, waits until its inotify watches are armed, then starts the
writer process; both stamp with CLOCK_MONOTONIC.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import finish, start_module, wait_until_watching
from bench.runs import staged
from bench.stats import summarize
from handoff_gate.gates.store.fs_hints import WATCH_DEBOUNCE_MS, WATCH_STEP_MS

TARGET = Target(stat="p95", limit=25.0, max_ratio=1.5)
ISOLATED_GAP_MS = (120.0, 220.0)
BURST_GAP_MS = (5.0, 5.0)

Observer = Callable[[Path, int, float], list[str]]


def _bare(root: Path, expect: int, bound: float) -> list[str]:
    return [
        "bench.bare",
        "watch",
        str(root),
        "--expect",
        str(expect),
        "--bound",
        str(bound),
        "--step",
        str(WATCH_STEP_MS),
        "--debounce",
        str(WATCH_DEBOUNCE_MS),
    ]


def _tui(root: Path, expect: int, bound: float) -> list[str]:
    return ["bench.tui_probe", "visible", str(root), "--expect", str(expect), "--bound", str(bound)]


def _series(
    ctx: Context, label: str, observer: Observer, count: int, gap: tuple[float, float]
) -> dict[str, Any]:
    """Per rename: ms until painted (TUI) or seen (bare), ms until listed, and the losses."""
    area = ctx.workdir / label
    watched, stage = staged(area, "run-vis", count)
    root = watched.parent
    # The observer gives up this long after it started: arming plus the writer's schedule.
    bound = 15 + count * gap[1] / 1000
    proc = start_module(*observer(root, count, bound))
    wait_until_watching(proc, root)
    writer = start_module(
        "bench.writer", str(stage), str(watched / "handoffs"), "--gap-ms", *(str(g) for g in gap)
    )
    written: dict[str, float] = finish(writer, 120)
    seen = finish(proc, bound + 30)
    # The bare watcher's "seen" is both its paint and its list.
    painted, listed = (seen["painted"], seen["listed"]) if "painted" in seen else (seen, seen)

    def ms(stamps: dict[str, float]) -> list[float]:
        return [(stamps[name] - t) * 1000 for name, t in written.items() if name in stamps]

    return {
        "painted": ms(painted),
        "listed": ms(listed),
        "unpainted": sum(1 for name in written if name not in painted),
        "lost": sum(1 for name in written if name not in listed),
    }


def run(ctx: Context) -> list[Figure]:
    n, burst = ctx.profile.latency_reps, ctx.profile.burst
    half = max(1, n // 2)
    bare: list[float] = []
    tui: list[float] = []
    unpainted = 0
    for round_ in range(2):  # two rounds each, interleaved, so drift hits both
        bare += _series(ctx, f"bare-{round_}", _bare, half, ISOLATED_GAP_MS)["painted"]
        series = _series(ctx, f"tui-{round_}", _tui, half, ISOLATED_GAP_MS)
        tui += series["painted"]
        unpainted += series["unpainted"]
    bare_burst = _series(ctx, "bare-burst", _bare, burst, BURST_GAP_MS)
    tui_burst = _series(ctx, "tui-burst", _tui, burst, BURST_GAP_MS)
    settings = f"step={WATCH_STEP_MS} ms, debounce={WATCH_DEBOUNCE_MS} ms"
    return [
        Figure(
            name="visible.isolated",
            unit="ms",
            value=summarize(tui),
            baseline_name="bare watchfiles",
            baseline=summarize(bare),
            target=TARGET,
            note=f"rename -> row painted; {settings}; never painted: {unpainted}",
            extra={"unpainted": unpainted},
        ),
        Figure(
            name="visible.burst",
            unit="ms",
            value=summarize(tui_burst["listed"]),
            baseline_name="bare watchfiles",
            baseline=summarize(bare_burst["listed"]),
            note=f"{burst} renames 5 ms apart -> row in the list; lost: {tui_burst['lost']} "
            f"(bare {bare_burst['lost']}); painted: {burst - tui_burst['unpainted']}/{burst}"
            + (
                f", p95 {summarize(tui_burst['painted']).p95:.0f} ms"
                if tui_burst["painted"]
                else ""
            ),
            extra={
                "lost": tui_burst["lost"],
                "baseline_lost": bare_burst["lost"],
                "painted": burst - tui_burst["unpainted"],
                "painted_ms": summarize(tui_burst["painted"]).to_json()
                if tui_burst["painted"]
                else None,
            },
        ),
    ]
