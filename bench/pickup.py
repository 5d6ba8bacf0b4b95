"""Decision pickup: ``decide`` returns in this process -> a blocked waiter process returns.

Three waiters, each started before the decision and armed (its inotify watch is in
place) before we decide: ``gates.waiting.wait`` in a process of its own, the real
``handoff-gate wait`` command, and a bare watchfiles waiter with the same step and
debounce as ``gates.waiting``. They take turns, so machine drift hits all three alike.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import finish, start, start_module, wait_until_watching
from bench.stats import summarize
from handoff_gate.gates import waiting
from handoff_gate.gates.decisions import decide
from handoff_gate.gates.registry import load_registry
from handoff_gate.gates.store import DECISIONS, submit
from handoff_gate.schemas import example_path

TARGET = Target(stat="p95", limit=25.0, max_ratio=1.5)


def _decide_after_arming(
    run_dir: Path, handoff: str, args: list[str], module: bool
) -> tuple[float, float]:
    """Start a waiter, arm it, decide; return ms to the waiter's own stamp and to its exit."""
    proc = start_module(*args) if module else start(args)
    wait_until_watching(proc, run_dir / DECISIONS)
    # A random pause so the decision lands at any phase of the watcher's polling step.
    time.sleep(random.uniform(0.0, 0.02))
    decide(run_dir, handoff, "approve", reviewer="bench", registry=load_registry())
    decided = time.perf_counter()
    result = finish(proc, 30, whole=not module)
    exited = (time.perf_counter() - decided) * 1000
    if not module:  # the CLI prints the approved payload itself
        if not isinstance(result, dict) or "files" not in result:
            raise RuntimeError(f"handoff-gate wait printed no approved design: {result!r}")
        return exited, exited
    if isinstance(result, dict):
        if result.get("outcome") != "approved" or not result.get("payload"):
            raise RuntimeError(f"waiter did not get the approved payload: {result}")
        result = result["t"]
    return (float(result) - decided) * 1000, exited


def run(ctx: Context) -> list[Figure]:
    run_dir = ctx.workdir / "pickup-run"
    payload = example_path("design/v1").read_bytes()
    step, debounce = str(waiting._STEP_MS), str(waiting._DEBOUNCE_MS)
    gate = str(ctx.bin_dir / "handoff-gate")
    series: dict[str, list[float]] = {"api": [], "cli": [], "bare": []}
    bare_exit: list[float] = []
    random.seed(5)
    for _ in range(ctx.profile.latency_reps):
        for kind in series:
            ref = submit(run_dir, payload, phase="design", schema_id="design/v1")
            decisions = str(run_dir / DECISIONS)
            if kind == "api":
                args, module = ["bench.waiter", str(run_dir), ref.id], True
            elif kind == "cli":
                args, module = [gate, "wait", str(run_dir), ref.id, "--timeout", "60"], False
            else:
                args = [
                    "bench.bare",
                    "wait",
                    decisions,
                    f"{ref.id}.json",
                    "--step",
                    step,
                    "--debounce",
                    debounce,
                ]
                module = True
            returned, exited = _decide_after_arming(run_dir, ref.id, args, module)
            series[kind].append(returned)
            if kind == "bare":
                bare_exit.append(exited)
    bare = summarize(series["bare"])
    settings = f"step={step} ms, debounce={debounce} ms"
    return [
        Figure(
            name="pickup.wait_api",
            unit="ms",
            value=summarize(series["api"]),
            baseline_name="bare watchfiles waiter",
            baseline=bare,
            target=TARGET,
            note=f"handoff_gate.gates.waiting.wait in its own process; {settings}",
        ),
        Figure(
            name="pickup.wait_cli",
            unit="ms",
            value=summarize(series["cli"]),
            baseline_name="bare waiter's exit",
            baseline=summarize(bare_exit),
            note="decide -> handoff-gate wait exited, approved payload printed",
        ),
    ]
