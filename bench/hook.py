"""``handoff-gate hook``: its own time, against the two commands it stands for.

Two figures, each against its baseline measured in the same rotation:

- **stdin to submit**: from starting ``hook claude-code`` with a ``PreToolUse`` event on
  stdin to its handoff being stored, against ``submit --tool`` with the same arguments
  and contract from start to stored. The hook parses the agent's event and loads the
  Gate's waits on top; both are timed as a person's agent sees them, process start
  included.
- **decision to answer**: from ``decide`` returning to the hook's answer (its exit),
  against ``wait`` on a handoff of the same call from the decision to its exit.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import finish, start, wait_until_watching
from bench.stats import summarize
from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import DECISIONS, list_handoffs
from handoff_gate.integrations.coding_agents import HARNESSES

SUBMIT = Target(stat="median", max_ratio=1.5)
ANSWER = Target(stat="p95", max_ratio=1.5)
BOUND_S = 60.0
ARGS = {"command": "git push origin main", "description": "Publish the release branch"}


def _stored(run: Path, before: int, started: float, proc: subprocess.Popen[str]) -> float:
    """ms from ``started`` until the run holds one more handoff than ``before``."""
    deadline = time.monotonic() + BOUND_S
    while not run.exists() or len(list_handoffs(run)) <= before:
        if time.monotonic() > deadline:
            proc.kill()
            raise TimeoutError(f"nothing was stored in {run}: {proc.communicate()[1][-2000:]}")
        time.sleep(0.001)
    return (time.perf_counter() - started) * 1000


def _answered(run: Path, handoff_id: str, proc: subprocess.Popen[str]) -> float:
    """ms from the approval to the process (armed on ``run``) exiting with its answer."""
    wait_until_watching(proc, run / DECISIONS, recursive=False)
    time.sleep(random.uniform(0.0, 0.02))
    decide(run, handoff_id, "approve", reviewer="bench", registry=load_registry())
    decided = time.perf_counter()
    finish(proc, BOUND_S, whole=True)  # the hook's answer, or the approved payload
    return (time.perf_counter() - decided) * 1000


def _hook(gate: str, run: Path, call: str) -> tuple[float, float]:
    event = {
        "session_id": "bench", "transcript_path": "/dev/null", "cwd": str(run.parent),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": ARGS, "tool_use_id": call,
    }  # fmt: skip
    before = len(list_handoffs(run)) if run.exists() else 0
    started = time.perf_counter()
    proc = start([gate, "hook", "claude-code", str(run)], stdin=json.dumps(event))
    stored = _stored(run, before, started, proc)
    return stored, _answered(run, list_handoffs(run)[-1].id, proc)


def _commands(gate: str, run: Path, call: str, schema: Path) -> tuple[float, float]:
    before = len(list_handoffs(run)) if run.exists() else 0
    started = time.perf_counter()
    submit = start(
        [gate, "submit", str(run), "--tool", "Bash", "--call-id", call, "--thread", "bench",
         "--agent", "claude-code", "--json-schema", str(schema), "-"],
        stdin=json.dumps(ARGS),
    )  # fmt: skip
    stored = _stored(run, before, started, submit)
    handoff_id = submit.communicate(timeout=BOUND_S)[0].strip()
    waiter = start([gate, "wait", str(run), handoff_id, "--timeout", str(BOUND_S)])
    return stored, _answered(run, handoff_id, waiter)


def run(ctx: Context) -> list[Figure]:
    gate = str(ctx.bin_dir / "handoff-gate")
    hook_run, plain_run = ctx.workdir / "hook-run", ctx.workdir / "hook-plain-run"
    schema = ctx.workdir / "bash.schema.json"
    schema.write_text(json.dumps(HARNESSES["claude-code"].contract("Bash")[0]))
    series: dict[str, list[float]] = {"hook": [], "hook_answer": [], "submit": [], "wait": []}
    random.seed(11)
    for rep in range(ctx.profile.latency_reps):
        stored, answered = _hook(gate, hook_run, f"toolu_{rep}")
        series["hook"].append(stored)
        series["hook_answer"].append(answered)
        stored, answered = _commands(gate, plain_run, f"call_{rep}", schema)
        series["submit"].append(stored)
        series["wait"].append(answered)
    return [
        Figure(
            name="hook.stdin_to_submit",
            unit="ms",
            value=summarize(series["hook"]),
            baseline_name="submit --tool (start to stored)",
            baseline=summarize(series["submit"]),
            target=SUBMIT,
            note="hook claude-code: start with the event on stdin -> its handoff stored",
        ),
        Figure(
            name="hook.decision_to_answer",
            unit="ms",
            value=summarize(series["hook_answer"]),
            baseline_name="wait (decision to exit)",
            baseline=summarize(series["wait"]),
            target=ANSWER,
            note="decide -> hook claude-code prints allow and exits",
        ),
    ]
