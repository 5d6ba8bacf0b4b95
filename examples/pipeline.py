"""A three-phase pipeline (research → plan → design) that stops at the gate after each phase.

The "agents" are stand-ins that return canned replies from ``replies/``; in a real
pipeline they are model calls. What matters is the boundary: every reply is submitted as
its exact bytes, the pipeline blocks until a person decides, and the next phase receives
only the approved, validated fields. A rejection is not the end: the phase runs again
with the reviewer's reason fed back (as the demo's simulated pipeline does), up to
``--retries`` times.

    python examples/pipeline.py RUN_DIR [--timeout SECONDS] [--retries N]

Exit codes follow ``handoff-gate wait``: 0 every phase approved, 1 rejected (retries used
up), 3 timed out, 4 a handoff changed after it was decided, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import handoff_gate as hg
from handoff_gate import WaitOutcome

REPLIES = Path(__file__).resolve().parent / "replies"

#: (phase, contract, producing role, receiving role)
PHASES = (
    ("research", "research_brief/v1", "researcher", "planner"),
    ("plan", "plan/v1", "planner", "designer"),
    ("design", "design/v1", "designer", "builder"),
)

EXIT = {WaitOutcome.REJECTED: 1, WaitOutcome.TIMEOUT: 3, WaitOutcome.CHANGED: 4}
INTERRUPTED = 130

#: Where the canned stand-in writes the reviewer's feedback (a list of free text).
FEEDBACK_FIELD = {"research": "open_questions", "plan": "constraints", "design": "dependencies"}


def agent(phase: str, approved_input: dict[str, Any] | None, feedback: str | None) -> bytes:
    """Stand-in for a model call, whose prompt would include ``approved_input`` and, on a
    retry, the reviewer's ``feedback``.

    Returns what the model replied, byte for byte: the gate judges the exact bytes. The
    canned reply cannot really revise itself, so it records the feedback it was given.
    """
    reply = (REPLIES / f"{phase}.json").read_bytes()
    if feedback is None:
        return reply
    revised = json.loads(reply)
    revised[FEEDBACK_FIELD[phase]].append(f"Reviewer asked: {' '.join(feedback.split())[:200]}")
    return json.dumps(revised, indent=2).encode()


def run_phases(run_dir: Path, timeout: float, retries: int, stop: threading.Event) -> int:
    """Every phase in order; each rejected one is retried with the reviewer's reason.

    ``stop`` (set by Ctrl-C) ends a wait as ``cancelled``: nothing more is submitted.
    """
    with hg.Gate() as gate:  # one configuration: the store, contracts, policy and key
        return _phases(gate, run_dir, timeout, retries, stop)


def _phases(
    gate: hg.Gate, run_dir: Path, timeout: float, retries: int, stop: threading.Event
) -> int:
    approved: dict[str, Any] | None = None
    for phase, schema, source, target in PHASES:
        feedback: str | None = None
        for _attempt in range(retries + 1):
            reply = agent(phase, approved, feedback)
            ref = gate.submit(
                run_dir, reply, phase=phase, schema_id=schema, from_role=source, to_role=target
            )
            print(
                f"{ref.id}: waiting; decide with: handoff-gate decide {run_dir} {ref.id} approve",
                flush=True,
            )
            result = gate.wait(run_dir, ref, timeout=timeout, stop_event=stop)
            if result.outcome is WaitOutcome.CANCELLED:
                print("interrupted; nothing more is submitted or approved", file=sys.stderr)
                return INTERRUPTED
            if result.outcome is not WaitOutcome.REJECTED:
                break
            feedback = (result.decision.reason if result.decision else None) or "no reason"
            print(f"{ref.id}: rejected ({feedback}); retrying {phase} with that feedback")
        if result.outcome is not WaitOutcome.APPROVED:
            why = result.decision.reason if result.decision else "no decision"
            print(f"{ref.id}: {result.outcome.value} ({why}); stopping", file=sys.stderr)
            return EXIT.get(result.outcome, 1)
        approved = result.payload
        print(f"{ref.id}: approved; {target} receives {sorted(approved or {})}")
    print("pipeline finished")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A gated three-phase pipeline.")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per decision")
    parser.add_argument("--retries", type=int, default=2, help="re-runs of a rejected phase")
    args = parser.parse_args(argv)
    # Ctrl-C asks the wait to stop instead of raising wherever the program happens to be,
    # so the wait ends by its own path: logged as cancelled, its waiter record removed.
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    return run_phases(args.run_dir, args.timeout, max(args.retries, 0), stop)


if __name__ == "__main__":
    raise SystemExit(main())
