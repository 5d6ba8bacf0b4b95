"""Inspection cost: ``gates.inspection.inspect`` against plain ``model_validate_json``.

Both get the same bytes and the same contract; the gap is what fail-closed inspection
(duplicate-key parse, secret and unsafe-text scans, findings) costs on top of validation.
Worst-case inputs are timed per MB at two sizes, in the same rounds: if the larger costs
much more per MB, something is super-linear.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from bench import payloads
from bench.config import Context
from bench.figures import Figure, Target
from bench.payloads import MB
from bench.stats import summarize
from handoff_gate.gates.inspection import inspect
from handoff_gate.gates.registry import load_registry

#: No series runs longer than this once it has its minimum of repetitions.
SERIES_BUDGET_S = 5.0
MIN_REPS = 3


def _once(fn: Callable[[], Any]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _validate_json(model: Any, data: bytes) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return model.model_validate_json(data)
        except ValueError as exc:  # a failed validation is still the baseline's full cost
            return exc

    return run


def _interleave(reps: int, *calls: Callable[[], Any]) -> list[list[float]]:
    """Time each call once per round, rotating who goes first, so drift hits all alike."""
    times: list[list[float]] = [[] for _ in calls]
    for call in calls:  # warm-up: first calls build caches and validators
        _once(call)
    started = time.perf_counter()
    for i in range(reps):
        for k in range(len(calls)):
            j = (i + k) % len(calls)
            times[j].append(_once(calls[j]))
        if i + 1 >= MIN_REPS and time.perf_counter() - started > SERIES_BUDGET_S:
            break
    return times


def _ms(xs: list[float], per: float = 1.0) -> list[float]:
    return [x * 1000 / per for x in xs]


def _outcome(report: Any) -> dict[str, Any]:
    return {
        "verdict": report.verdict.value,
        "codes": sorted({f.code.value for f in report.findings}),
    }


def _versus_baseline(
    ctx: Context, name: str, schema_id: str, data: bytes, reps: int, max_ratio: float | None
) -> Figure:
    registry = load_registry("bench.contracts")
    report = inspect(data, schema_id, registry)
    ours, base = _interleave(
        reps, partial(inspect, data, schema_id, registry), _validate_json(registry[schema_id], data)
    )
    note = f"{len(data) / 1024:.0f} KB, {report.verdict.value}"
    if not report.approvable:
        note += " (expected approvable: " + ",".join(_outcome(report)["codes"]) + ")"
    return Figure(
        name=name,
        unit="ms",
        value=summarize(_ms(ours)),
        baseline_name="model_validate_json",
        baseline=summarize(_ms(base)),
        target=Target(stat="median", max_ratio=max_ratio) if max_ratio else None,
        note=note,
        extra={"bytes": len(data), **_outcome(report)},
    )


def _growth(ctx: Context, name: str, build: Callable[[int], bytes]) -> Figure:
    """ms per MB at the larger size against ms per MB at the smaller size of one input class.

    Both sizes (and the baseline at the larger one) are timed in the same rounds.
    """
    registry = load_registry("bench.contracts")
    model = registry["bench_inventory/v1"]
    small_mb, big_mb = ctx.profile.growth_mb
    small, big = build(int(small_mb * MB)), build(int(big_mb * MB))
    report = inspect(big, "bench_inventory/v1", registry)
    t_small, t_big, t_base_small, t_base = _interleave(
        ctx.profile.cost_big_reps,
        partial(inspect, small, "bench_inventory/v1", registry),
        partial(inspect, big, "bench_inventory/v1", registry),
        _validate_json(model, small),
        _validate_json(model, big),
    )
    per_small = _ms(t_small, len(small) / MB)
    per_big = _ms(t_big, len(big) / MB)
    vs = summarize(t_big).median / max(summarize(t_base).median, 1e-12)
    # How much pydantic's own cost per MB grows between the sizes (GC and caches do that).
    own = (summarize(t_base).median / len(big)) / max(
        summarize(t_base_small).median / len(small), 1e-15
    )
    return Figure(
        name=name,
        unit="ms/MB",
        value=summarize(per_big),
        baseline_name=f"same input at {small_mb:g} MB",
        baseline=summarize(per_small),
        target=Target(stat="median", max_ratio=1.5),
        note=f"{big_mb:g} MB vs {small_mb:g} MB; {vs:.1f}× model_validate_json, whose own "
        f"per-MB growth is {own:.2f}×; " + ",".join(_outcome(report)["codes"] or ["approvable"]),
        extra={"vs_model_validate_json": vs, "model_validate_json_growth": own, **_outcome(report)},
    )


def run(ctx: Context) -> list[Figure]:
    p = ctx.profile
    big = int(p.big_mb * MB)
    figures = [
        _versus_baseline(
            ctx, "inspect.2KB", "design/v1", payloads.small_design(), p.cost_small_reps, 3.0
        ),
        _versus_baseline(
            ctx, "inspect.5MB", "bench_inventory/v1", payloads.inventory(big), p.cost_big_reps, 2.0
        ),
        _versus_baseline(
            ctx,
            "inspect.5MB_text",
            "feature_manifest/v1",
            payloads.manifest(big),
            p.cost_big_reps,
            None,  # pydantic checks 5 MB of prose at memory speed; sha256 alone costs more
        ),
        _growth(ctx, "inspect.per_MB.valid", payloads.inventory),
    ]
    figures += [
        _growth(ctx, f"inspect.per_MB.{name}", build)
        for name, build in payloads.WORST_CASES.items()
    ]
    return figures
