"""Approving a fan-out from one confirmation: 100 marked handoffs, signed (issue 21).

The figure is what the reviewer waits for after pressing ``y`` in the batch dialog: the
TUI's worker calls ``ReviewCore.decide_many`` with every marked handoff and its sha256,
and the batch is done when all 100 decisions are written, each signed with a real
ed25519 key (``ssh-keygen``), inspected again, and logged on its own. Target: ≤ 2 s.
The baseline is the same 100 decisions made one ``decide`` call at a time, as 100
separate approve dialogs would write them, so the ratio shows what batching costs or
saves (nothing is shared between items, so it should be about 1×).

A second figure makes the same batch in a run whose log already holds 10,000 events
(a long-lived run), against the batch in a fresh run: each signed decision names the
log's head, so reading that head must not cost in proportion to the log (it hashed every
line once, 40 ms a decision at 10,000 lines).
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.signed import signing_policy
from bench.stats import summarize
from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.decide.decisions import DecisionRequest, decide
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.gates.store.filesystem import AUDIT_FILE, FilesystemStore
from handoff_gate.gates.store.log_chain import chained_line
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.schemas import example_path
from handoff_gate.tui.model import Entry
from handoff_gate.tui.review_core import ReviewCore

PLAN = example_path("plan/v1").read_bytes()
#: The batch the issue names; the smoke profile makes a handful.
BATCH = 100
TARGET = Target("median", limit=2000.0)
#: Events already in the long run's log, and how much slower its batch may be.
LONG_LOG = 10_000
LONG_TARGET = Target("median", max_ratio=1.5)


def _fan_out(root: Path, run: str, count: int, registry: Registry) -> list[HandoffRef]:
    with Gate(root, contracts=registry) as gate:
        return [gate.submit(run, PLAN, phase="plan", schema_id="plan/v1") for _ in range(count)]


def _long_log(run_dir: Path, events: int) -> None:
    """Give a run a log of ``events`` earlier events, chained as the gate chains them
    (appending them one by one, each fsynced, would take minutes)."""
    last: bytes | None = None
    lines: list[bytes] = []
    for n in range(events):
        event = {"event": "wait_started", "at": "2026-01-01T00:00:00.000Z", "handoff": f"{n:04d}-x"}
        last, _ = chained_line(last, event)
        lines.append(last)
    (run_dir / AUDIT_FILE).write_bytes(b"\n".join(lines) + b"\n")


def _batched(root: Path, refs: list[HandoffRef], core: ReviewCore) -> float:
    marked = [(Entry(ref), ref.sha256) for ref in refs]
    t0 = time.perf_counter()
    done = core.decide_many(marked, Action.APPROVE)
    elapsed = (time.perf_counter() - t0) * 1000
    if any(result.decision is None for result in done.results):
        raise RuntimeError(f"a batch decision was refused: {done.results[0].refusal}")
    return elapsed


def _one_by_one(
    root: Path, refs: list[HandoffRef], registry: Registry, key: SigningKey, policy: Policy
) -> float:
    store = FilesystemStore(root)
    context = GateContext(store, registry, policy, key)
    t0 = time.perf_counter()
    for ref in refs:
        request = DecisionRequest(action=Action.APPROVE, expected_sha256=ref.sha256)
        decide(context, ref.run, ref.id, request)
    elapsed = (time.perf_counter() - t0) * 1000
    store.close()
    return elapsed


def run(ctx: Context) -> list[Figure]:
    registry = load_registry("")
    key_path, policy_path = signing_policy(ctx.workdir / "trust")
    key, policy = SigningKey(key_path, prompt=False), Policy.load(policy_path)
    count = BATCH if ctx.profile.name != "smoke" else 5
    reps = max(ctx.profile.scale_reps, 1) + 1  # the first of each warms caches and is dropped
    root = ctx.workdir / "runs"
    root.mkdir()
    store = FilesystemStore(root)
    core = ReviewCore(
        Gate(setup=assemble(store, contracts=registry, policy=policy, key=key, env={}))
    )
    batched: list[float] = []
    single: list[float] = []
    long_log: list[float] = []
    events = LONG_LOG if ctx.profile.name != "smoke" else 60
    for rep in range(reps):
        fresh = _fan_out(root, f"batch-{rep}", count, registry)
        alone = _fan_out(root, f"single-{rep}", count, registry)
        (root / f"long-{rep}").mkdir()
        _long_log(root / f"long-{rep}", events)
        old = _fan_out(root, f"long-{rep}", count, registry)
        batch_ms = _batched(root, fresh, core)
        single_ms = _one_by_one(root, alone, registry, key, policy)
        long_ms = _batched(root, old, core)
        if rep:
            batched.append(batch_ms)
            single.append(single_ms)
            long_log.append(long_ms)
    store.close()
    return [
        Figure(
            name=f"batch.approve_{count}_signed",
            unit="ms",
            value=summarize(batched),
            baseline_name=f"{count} single signed decides",
            baseline=summarize(single),
            target=TARGET,
            note="confirm → every decision written: ReviewCore.decide_many, ed25519 key, "
            "each re-inspected, bound to its sha256 and logged",
        ),
        Figure(
            name=f"batch.approve_{count}_signed_log_{events}",
            unit="ms",
            value=summarize(long_log),
            baseline_name=f"the batch in a fresh run ({count} signed)",
            baseline=summarize(batched),
            target=LONG_TARGET,
            note=f"the same batch in a run whose log holds {events} events already: "
            "each signature names the log's head, read without hashing every line",
        ),
    ]
