"""``handoff-gate withdraw``: the pipeline takes back a handoff it will not consume.

The handoff becomes ``withdrawn``: decide refuses it, a wait on it exits 6. A decided
handoff cannot be withdrawn (exit 1): its decision already stands. An id the run does
not hold is a usage error (exit 2, ``no handoff ID in RUN``), worded and coded as in
every other command that names a handoff: a script's typo is not a refusal.
"""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.errors import FAIL, OK, UsageError, one_line, os_problem
from handoff_gate.cli.inputs import existing_handoff, setup_from
from handoff_gate.gates.decide.withdrawal import WithdrawRefused, withdraw
from handoff_gate.gates.vocab.safe_text import visible


def run(args: argparse.Namespace) -> int:
    setup = setup_from(args)  # under a policy, only pinned contract modules run
    run = existing_handoff(args.run_dir, args.handoff_id, setup.store)
    try:
        done = withdraw(
            setup.store,
            run,
            args.handoff_id,
            registry=setup.contracts,
            reason=args.reason,
            policy=setup.policy,
        )
    except WithdrawRefused as exc:
        print(f"refused: {one_line(exc)}", file=sys.stderr)
        return FAIL
    except PermissionError as exc:
        raise os_problem("withdraw a handoff in", args.run_dir, exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(one_line(exc)) from exc
    print(f"{done.handoff} withdrawn by {visible(done.by)}")
    return OK
