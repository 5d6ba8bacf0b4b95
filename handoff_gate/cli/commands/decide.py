"""``handoff-gate decide``: approve or reject a handoff, bound to the bytes it has now."""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.errors import FAIL, OK, UsageError, one_line, os_problem
from handoff_gate.cli.inputs import existing_run, registry
from handoff_gate.gates.run.decisions import DecisionRefused, decide
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.safe_text import visible


def run(args: argparse.Namespace) -> int:
    contracts = registry(args.schemas)
    run_dir = existing_run(args.run_dir)
    try:
        decision = decide(
            run_dir,
            args.handoff_id,
            args.action,
            reason=args.reason,
            category=args.category,
            reviewer=args.reviewer,
            registry=contracts,
        )
    except DecisionRefused as exc:
        print(f"refused: {one_line(exc)}", file=sys.stderr)
        return FAIL
    except PermissionError as exc:
        raise os_problem("record a decision in", args.run_dir, exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(one_line(exc)) from exc
    done = "approved" if decision.action is Action.APPROVE else "rejected"
    print(f"{decision.handoff} {done} by {visible(decision.reviewer)}")
    return OK
