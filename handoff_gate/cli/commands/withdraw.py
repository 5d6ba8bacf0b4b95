"""``handoff-gate withdraw``: the pipeline takes back a handoff it will not consume.

An id the run does not hold is a usage error (exit 2), as in every command that names a
handoff: a script's typo is not a refusal.
"""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.errors import FAIL, OK, UsageError, one_line, os_problem
from handoff_gate.cli.inputs import existing_handoff
from handoff_gate.gates.gate import Gate, WithdrawRefused
from handoff_gate.gates.vocab.safe_text import visible


def run(gate: Gate, args: argparse.Namespace) -> int:
    # The whole configuration first: under a policy, only pinned contract modules run.
    run = existing_handoff(args.run_dir, args.handoff_id, gate.setup.store)
    try:
        done = gate.withdraw(run, args.handoff_id, reason=args.reason)
    except WithdrawRefused as exc:
        print(f"refused: {one_line(exc)}", file=sys.stderr)
        return FAIL
    except PermissionError as exc:
        raise os_problem("withdraw a handoff in", args.run_dir, exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(one_line(exc)) from exc
    print(f"{done.handoff} withdrawn by {visible(done.by)}")
    return OK
