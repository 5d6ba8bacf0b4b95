"""Decision pickup: ``decide`` returns in this process -> a blocked waiter process returns.

Three single waiters, each started before the decision and armed (its inotify watch is in
place) before we decide: ``gates.waiting.wait`` in a process of its own, the real
``handoff-gate wait`` command, and a bare watchfiles waiter with the same step and
debounce as ``gates.waiting``. They take turns, so machine drift hits all three alike.
Then the fan-out: one process with hundreds of ``wait_async`` calls on one handoff
(sharing one watcher), measured beside the single ``wait`` waiter as its baseline.

With signature verification (issue 9): a ``wait`` under a policy with one approver, settled
by that approver's signed approval (a real ed25519 key), against a bare waiter on the
same per-principal decision file, in the same rotation.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import finish, start, start_module, wait_until_watching
from bench.signed import APPROVER, signing_policy
from bench.stats import summarize
from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store import fs_watch
from handoff_gate.gates.store.filesystem import DECISIONS, list_handoffs
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.schemas import example_path

TARGET = Target(stat="p95", limit=25.0, max_ratio=1.5)
#: Fan-out: decisions measured among the waiters, and the quiet time before each.
FANOUT_DECISIONS = 40
FANOUT_GAP_S = 0.15


class _Signing:
    """The approver's key and the policy a signed decision is made under."""

    def __init__(self, folder: Path) -> None:
        self.key, self.path = signing_policy(folder)
        self.policy = Policy.load(self.path)


def decide_after_arming(
    run_dir: Path, handoff: str, args: list[str], module: bool, signing: _Signing | None = None
) -> tuple[float, float]:
    """Start a waiter, arm it, decide; return ms to the waiter's own stamp and to its exit."""
    proc = start_module(*args) if module else start(args)
    # The gate watches decisions/ itself; under a policy the records go one level down,
    # where only the bare (recursive) watcher has watches of its own.
    wait_until_watching(proc, run_dir / DECISIONS, recursive=args[0] == "bench.bare")
    # A random pause so the decision lands at any phase of the watcher's polling step.
    time.sleep(random.uniform(0.0, 0.02))
    if signing is None:
        decide(run_dir, handoff, "approve", reviewer="bench", registry=load_registry())
    else:
        decide(
            run_dir,
            handoff,
            "approve",
            registry=load_registry(),
            key=SigningKey(signing.key),
            policy=signing.policy,
        )
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
    step, debounce = str(fs_watch.STEP_MS), str(fs_watch.DEBOUNCE_MS)
    gate = str(ctx.bin_dir / "handoff-gate")
    series: dict[str, list[float]] = {
        k: [] for k in ("api", "cli", "bare", "signed", "bare_signed")
    }
    signing = _Signing(ctx.workdir / "signing")
    bare_exit: list[float] = []
    random.seed(5)
    for _ in range(ctx.profile.latency_reps):
        for kind in series:
            signed = kind.endswith("signed")
            at = ctx.workdir / "pickup-signed-run" if signed else run_dir
            ref = submit(at, payload, phase="design", schema_id="design/v1")
            decisions = str(at / DECISIONS)
            name = f"{ref.id}/{APPROVER}.json" if signed else f"{ref.id}.json"
            if kind == "api":
                args, module = ["bench.waiter", str(run_dir), ref.id], True
            elif kind == "signed":
                args, module = ["bench.waiter", str(at), ref.id, str(signing.path)], True
            elif kind == "cli":
                args, module = [gate, "wait", str(run_dir), ref.id, "--timeout", "60"], False
            else:
                args = [
                    "bench.bare",
                    "wait",
                    decisions,
                    name,
                    "--step",
                    step,
                    "--debounce",
                    debounce,
                ]
                module = True
            returned, exited = decide_after_arming(
                at, ref.id, args, module, signing if signed else None
            )
            series[kind].append(returned)
            if kind == "bare":
                bare_exit.append(exited)
    bare = summarize(series["bare"])
    settings = f"step={step} ms, debounce={debounce} ms"
    fanout, threads = _fanout(ctx, payload)
    return [
        _signed_figure(series, settings),
        Figure(
            name="pickup.wait_api",
            unit="ms",
            value=summarize(series["api"]),
            baseline_name="bare watchfiles waiter",
            baseline=bare,
            target=TARGET,
            note=f"handoff_gate.wait in its own process; {settings}",
        ),
        Figure(
            name="pickup.wait_cli",
            unit="ms",
            value=summarize(series["cli"]),
            baseline_name="bare waiter's exit",
            baseline=summarize(bare_exit),
            note="decide -> handoff-gate wait exited, approved payload printed",
        ),
        Figure(
            name=f"pickup.wait_async_x{ctx.profile.fanout}",
            unit="ms",
            value=summarize(fanout),
            baseline_name="single wait() waiter",
            baseline=summarize(series["api"]),
            target=Target(stat="p95", limit=25.0),
            note=(
                f"{ctx.profile.fanout} wait_async calls on one run in one process, decide one "
                f"-> its waiter returns; watcher threads: {threads}"
            ),
        ),
    ]


def _signed_figure(series: dict[str, list[float]], settings: str) -> Figure:
    """``pickup.wait_signed``: the signed waiter against the bare one on the same file."""
    return Figure(
        name="pickup.wait_signed",
        unit="ms",
        value=summarize(series["signed"]),
        baseline_name="bare waiter on the signed decision file",
        baseline=summarize(series["bare_signed"]),
        target=TARGET,
        note=(
            "wait(policy=...) in its own process, settled by one approver's ed25519-signed "
            f"approval (signature verified); {settings}"
        ),
    )


def _fanout(ctx: Context, payload: bytes) -> tuple[list[float], int]:
    """ms from ``decide`` to its waiter's return while ``profile.fanout`` waiters share the run.

    Every handoff of the run has its own ``wait_async`` in one child process; each
    decision wakes all of them (one watcher), and all but one find nothing to do.
    """
    run_dir = ctx.workdir / "fanout-run"
    for _ in range(ctx.profile.fanout):
        submit(run_dir, payload, phase="design", schema_id="design/v1")
    (run_dir / DECISIONS).mkdir(exist_ok=True)
    handoffs = [ref.id for ref in list_handoffs(run_dir)]
    picks = random.sample(handoffs, min(FANOUT_DECISIONS, ctx.profile.latency_reps * 2))
    armed = ctx.workdir / "fanout-armed"
    proc = start_module("bench.fanout_waiter", str(run_dir), str(armed), str(len(picks)))
    deadline = time.monotonic() + 60
    while not armed.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"fan-out waiter never armed: {finish(proc, 1)}")
        time.sleep(0.005)
    decided: dict[str, float] = {}
    for handoff in picks:  # isolated decisions: each lands after the last one settled
        time.sleep(FANOUT_GAP_S + random.uniform(0.0, 0.02))
        decide(run_dir, handoff, "approve", reviewer="bench", registry=load_registry())
        decided[handoff] = time.perf_counter()
    result = finish(proc, 60)
    if result["outcomes"] != ["approved"] or set(result["t"]) != set(picks):
        raise RuntimeError(f"fan-out waiters did not get exactly the decided payloads: {result}")
    samples = [(float(result["t"][h]) - decided[h]) * 1000 for h in picks]
    return samples, int(result["watcher_threads"])
