"""Deciders killed with SIGKILL at random moments never leave a half-written decision."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from pathlib import Path

from handoff_gate.gates.api import decide, read_decision, submit
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import FilesystemStore, list_handoffs
from handoff_gate.schemas import example_path

ITERATIONS = 8
HANDOFFS = 12
BOUND = 60
REGISTRY = load_registry("")

CHILD = """
import sys
from pathlib import Path
from handoff_gate.gates.api import decide
from handoff_gate.gates.contracts.registry import load_registry
run, registry = Path(sys.argv[1]), load_registry("")
print("ready", flush=True)
for hid in sys.argv[2:]:
    decide(run, hid, "approve", reviewer="crashy", registry=registry)
"""


def test_killed_deciders_leave_no_decision_or_a_complete_one(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    payload = example_path("plan/v1").read_bytes()
    for n in range(ITERATIONS):
        run = tmp_path / f"run{n}"
        ids = [submit(run, payload, phase="plan", schema_id="plan/v1").id for _ in range(HANDOFFS)]
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(run), *ids], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        try:
            child.wait(timeout=rng.uniform(0, 0.04))
        except subprocess.TimeoutExpired:
            child.kill()
        child.wait(BOUND)
        child.stdout.close()
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
