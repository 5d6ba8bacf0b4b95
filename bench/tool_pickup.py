"""Tool-call pickup: ``decide`` returns -> the approved tool runs in a pydantic-ai agent.

The agent (``bench.tool_waiter``) runs in a process of its own with its one call waiting
in ``tool_approvals``; once its handoff is stored and its waiter armed we approve, and
time until the tool body runs, which is what a pipeline sees of the framework resuming.
The baseline is ``pickup.wait_api``'s waiter (``handoff_gate.wait`` in a process of
its own), measured in the same rotation so machine drift hits both alike.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.pickup import decide_after_arming
from bench.procs import finish, start_module, wait_until_watching
from bench.stats import summarize
from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import DECISIONS, list_handoffs
from handoff_gate.schemas import example_path

TARGET = Target(stat="p95", max_ratio=1.5)
BOUND_S = 60.0


def _tool_call(run_dir: Path, call_id: str) -> float:
    """One agent process: ms from the approval to the tool running."""
    before = len(list_handoffs(run_dir)) if run_dir.exists() else 0
    proc = start_module("bench.tool_waiter", str(run_dir), call_id)
    deadline = time.monotonic() + BOUND_S
    while not run_dir.exists() or len(refs := list_handoffs(run_dir)) <= before:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the agent asked for no approval: {finish(proc, 1)}")
        time.sleep(0.005)
    wait_until_watching(proc, run_dir / DECISIONS, recursive=False)
    time.sleep(random.uniform(0.0, 0.02))
    decide(run_dir, refs[-1].id, "approve", reviewer="bench", registry=load_registry())
    decided = time.perf_counter()
    result = finish(proc, BOUND_S)
    if not isinstance(result, dict) or result.get("t") is None:
        raise RuntimeError(f"the approved tool did not run: {result!r}")
    return (float(result["t"]) - decided) * 1000


def run(ctx: Context) -> list[Figure]:
    tools_dir, waits_dir = ctx.workdir / "tool-run", ctx.workdir / "tool-wait-run"
    payload = example_path("design/v1").read_bytes()
    tool: list[float] = []
    api: list[float] = []
    random.seed(7)
    for rep in range(ctx.profile.latency_reps):
        tool.append(_tool_call(tools_dir, f"call_{rep}"))
        ref = submit(waits_dir, payload, phase="design", schema_id="design/v1")
        args = ["bench.waiter", str(waits_dir), ref.id]
        api.append(decide_after_arming(waits_dir, ref.id, args, True)[0])
    return [
        Figure(
            name="tools.pydantic_ai_resume",
            unit="ms",
            value=summarize(tool),
            baseline_name="pickup.wait_api waiter",
            baseline=summarize(api),
            target=TARGET,
            note="decide -> the approved tool runs in a pydantic-ai agent (tool_approvals)",
        )
    ]
