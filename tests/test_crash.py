"""Deciders killed with SIGKILL at random moments never leave a half-written decision."""

from __future__ import annotations

import hashlib
import random
from multiprocessing.synchronize import Event
from pathlib import Path

import racers

from handoff_gate.gates.api import decide, read_decision, submit
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import FilesystemStore, list_handoffs
from handoff_gate.schemas import example_path

ITERATIONS = 8
HANDOFFS = 12
BOUND = 60
REGISTRY = load_registry("")


def _decider(run: str, ids: list[str], ready: Event) -> None:
    """The decider the test kills: approves ``ids`` in turn, once it has said it is ready."""
    registry = load_registry("")
    ready.set()
    for hid in ids:
        decide(Path(run), hid, "approve", reviewer="crashy", registry=registry)


def test_killed_deciders_leave_no_decision_or_a_complete_one(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    ctx = racers.context()
    payload = example_path("plan/v1").read_bytes()
    for n in range(ITERATIONS):
        run = tmp_path / f"run{n}"
        ids = [submit(run, payload, phase="plan", schema_id="plan/v1").id for _ in range(HANDOFFS)]
        ready = ctx.Event()
        child = ctx.Process(target=_decider, args=(str(run), ids, ready))
        child.start()
        assert ready.wait(BOUND)
        child.join(rng.uniform(0, 0.04))
        if child.is_alive():
            child.kill()  # SIGKILL: no handler, no cleanup, wherever the decider is
        child.join(BOUND)
        assert child.exitcode is not None
        for hid in ids:
            decision = read_decision(run, hid)
            if decision is None:
                assert decide(run, hid, "approve", registry=REGISTRY).reviewer != "crashy"
                continue
            handoff = (run / "handoffs" / f"{hid}.json").read_bytes()
            assert decision.sha256 == hashlib.sha256(handoff).hexdigest()
            assert decision.reviewer == "crashy"
        assert [r.id for r in list_handoffs(run)] == ids
        problems = audit.verify_chain(run, FilesystemStore())
        assert all(p.endswith("not a JSON object") for p in problems), problems
