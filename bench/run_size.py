"""A run's length must not slow the append-only lookup: ``check``/``decide`` of a baton in a
run of ``profile.run_size`` handoffs against the same in a run of 10 (issue 9: ≤ 1.2×).

Both runs hold the same cycle of contracts (the mixed examples and ``baton/v1``, whose
``decision_log`` is append-only, so every check looks up the previous baton). The first
handoff of each contract is submitted for real; the rest are its envelope with the
next id and sequence number, written straight to the run, exactly what ``submit``
writes (submitting 100,000 handoffs one by one would take minutes). The measured
calls are the in-process API, alternating between the two runs so drift hits both
alike: ``inspect_in_run`` (what ``handoff-gate check`` runs on a handoff of a run) of
the last baton, and ``decide`` (approve) of a fresh baton; each finds its previous
baton after the same few reads.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from bench.config import Context
from bench.figures import Figure, Target
from bench.runs import MIX
from bench.stats import summarize
from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry, load_registry
from handoff_gate.gates.standing.report_in_run import inspect_in_run
from handoff_gate.gates.store.filesystem import HANDOFFS, FilesystemStore, handoff_path
from handoff_gate.gates.vocab.findings import Severity
from handoff_gate.schemas import example_path

BATON = "baton/v1"
#: Contracts in the order they repeat through both runs: one handoff in six is a baton.
CYCLE = (*MIX, BATON)
PHASE = "step"
SMALL = 10
TARGET = Target(stat="median", max_ratio=1.2)


def _envelope_bytes(template: dict[str, Any], seq: int, handoff_id: str) -> bytes:
    """The template envelope under another id, formatted as ``submit`` formats it."""
    fields = {**template, "id": handoff_id, "seq": seq}
    return (json.dumps(fields, ensure_ascii=True, indent=2, allow_nan=False) + "\n").encode()


def build_run(run_dir: Path, count: int, fresh: int, registry: Registry) -> list[str]:
    """A run of ``count`` handoffs followed by ``fresh`` batons; returns the fresh ids.

    Every fresh baton has an earlier baton, so each lookup finds one in either run.
    """
    templates: dict[str, dict[str, Any]] = {}
    for schema_id in CYCLE:
        ref = submit(
            run_dir,
            example_path(schema_id).read_bytes(),
            phase=PHASE,
            schema_id=schema_id,
            registry=registry,
        )
        templates[schema_id] = json.loads(handoff_path(run_dir, ref.id).read_bytes())
    fresh_ids: list[str] = []
    for seq in range(len(CYCLE) + 1, count + fresh + 1):
        schema_id = BATON if seq > count else CYCLE[(seq - 1) % len(CYCLE)]
        handoff_id = f"{seq:04d}-{PHASE}"
        data = _envelope_bytes(templates[schema_id], seq, handoff_id)
        fd = os.open(handoff_path(run_dir, handoff_id), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        if seq > count:
            fresh_ids.append(handoff_id)
    return fresh_ids


def _timed_check(run_dir: Path, handoff_id: str, registry: Registry) -> float:
    t0 = time.perf_counter()
    report = inspect_in_run(run_dir, handoff_id, registry, store=FilesystemStore())
    elapsed = (time.perf_counter() - t0) * 1000
    if any(f.severity is Severity.BLOCK for f in report.findings):
        raise RuntimeError(f"{run_dir.name}/{handoff_id} is blocked: {report.findings[:3]}")
    return elapsed


def _timed_decide(run_dir: Path, handoff_id: str, registry: Registry) -> float:
    t0 = time.perf_counter()
    decide(run_dir, handoff_id, "approve", reviewer="bench", registry=registry)
    return (time.perf_counter() - t0) * 1000


def run(ctx: Context) -> list[Figure]:
    registry = load_registry()
    reps = ctx.profile.latency_reps
    big_n = ctx.profile.run_size
    t0 = time.perf_counter()
    small_dir, big_dir = ctx.workdir / "small", ctx.workdir / "big"
    small = build_run(small_dir, SMALL, reps, registry)
    big = build_run(big_dir, big_n, reps, registry)
    built_s = time.perf_counter() - t0
    if len(list((big_dir / HANDOFFS).glob("*.json"))) != big_n + reps:
        raise RuntimeError("the big run does not hold the handoffs written")
    checks: dict[str, list[float]] = {"small": [], "big": []}
    decides: dict[str, list[float]] = {"small": [], "big": []}
    for rep in range(reps + 1):  # rep 0 warms caches and is not kept
        order = (("small", small_dir, small), ("big", big_dir, big))
        for name, run_dir, fresh in order if rep % 2 else order[::-1]:
            check_ms = _timed_check(run_dir, fresh[-1], registry)
            decide_ms = _timed_decide(run_dir, fresh[rep - 1], registry) if rep else 0.0
            if rep:
                checks[name].append(check_ms)
                decides[name].append(decide_ms)
    note = f"{big_n} handoffs (1 in {len(CYCLE)} a baton) vs {SMALL}; built in {built_s:.0f} s"
    return [
        Figure(
            name=f"run_size.check_{big_n}",
            unit="ms",
            value=summarize(checks["big"]),
            baseline_name=f"same check, {SMALL}-handoff run",
            baseline=summarize(checks["small"]),
            target=TARGET,
            note=f"inspect_in_run of a baton/v1 (append-only lookup); {note}",
        ),
        Figure(
            name=f"run_size.decide_{big_n}",
            unit="ms",
            value=summarize(decides["big"]),
            baseline_name=f"same decide, {SMALL}-handoff run",
            baseline=summarize(decides["small"]),
            target=TARGET,
            note=f"decide approve of a fresh baton/v1; {note}",
        ),
    ]
