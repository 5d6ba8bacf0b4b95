"""A three-phase pipeline (research → plan → design) that stops at the gate after each phase.

The "agents" are stand-ins that return canned replies from ``replies/``; in a real
pipeline they are model calls. What matters is the boundary: every reply is submitted as
its exact bytes, the pipeline blocks until a person decides, and the next phase receives
only the approved, validated fields.

    python examples/pipeline.py RUN_DIR [--timeout SECONDS]

Exit codes follow ``handoff-gate wait``: 0 every phase approved, 1 rejected, 3 timed out,
4 a handoff changed after it was decided.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from handoff_gate.gates.registry import load_registry
from handoff_gate.gates.store import submit
from handoff_gate.gates.waiting import WaitOutcome, wait

REPLIES = Path(__file__).resolve().parent / "replies"

#: (phase, contract, producing role, receiving role)
PHASES = (
    ("research", "research_brief/v1", "researcher", "planner"),
    ("plan", "plan/v1", "planner", "designer"),
    ("design", "design/v1", "designer", "builder"),
)

EXIT = {WaitOutcome.REJECTED: 1, WaitOutcome.TIMEOUT: 3, WaitOutcome.CHANGED: 4}


def agent(phase: str, approved_input: dict[str, Any] | None) -> bytes:
    """Stand-in for a model call, whose prompt would include ``approved_input``.

    Returns what the model replied, byte for byte: the gate judges the exact bytes.
    """
    return (REPLIES / f"{phase}.json").read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A gated three-phase pipeline.")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    registry = load_registry()
    approved: dict[str, Any] | None = None
    for phase, schema, source, target in PHASES:
        reply = agent(phase, approved)
        ref = submit(
            args.run_dir, reply, phase=phase, schema_id=schema, from_role=source, to_role=target
        )
        print(
            f"{ref.id}: waiting; decide with: handoff-gate decide {args.run_dir} {ref.id} approve"
        )
        result = wait(args.run_dir, ref.id, registry=registry, timeout=args.timeout)
        if result.outcome is not WaitOutcome.APPROVED:
            why = result.decision.reason if result.decision else "no decision"
            print(f"{ref.id}: {result.outcome.value} ({why}); stopping", file=sys.stderr)
            return EXIT.get(result.outcome, 1)
        approved = result.payload
        print(f"{ref.id}: approved; {target} receives {sorted(approved or {})}")
    print("pipeline finished")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
