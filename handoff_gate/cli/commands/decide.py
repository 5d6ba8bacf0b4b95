"""``handoff-gate decide``: approve or reject a handoff, bound to the bytes it has now.

With ``--sha256`` the decision binds to the bytes the person looked at (``check`` prints
that sha256): if the handoff changed since, nothing is written. With ``--key`` and
``--policy`` the decision is signed, and refused up front unless the key's principal may
decide the handoff's phase. ``--pending`` and ``--ids -`` decide many at once
(``decide_batch``).
"""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.commands import decide_batch
from handoff_gate.cli.errors import FAIL, OK, UsageError, one_line, os_problem
from handoff_gate.cli.inputs import existing_run, policy, registry, signing_key, store
from handoff_gate.gates.run.decisions import DecisionRefused, decide
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.safe_text import visible


def _warn(message: str) -> None:
    print(f"warning: {visible(message)}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if args.pending or args.ids is not None:
        return decide_batch.run(args)
    if args.action is None:
        raise UsageError("decide needs an action after the id: approve or reject")
    if args.phase or args.schema:
        raise UsageError("--phase and --schema narrow --pending; this decides one handoff")
    contracts = registry(args.schemas)
    where = store(args)
    run = existing_run(args.run_dir, where)
    try:
        decision = decide(
            where,
            run,
            args.handoff_id,
            args.action,
            reason=args.reason,
            category=args.category,
            reviewer=args.reviewer,
            registry=contracts,
            expected_sha256=args.sha256.lower() if args.sha256 else None,
            key=signing_key(args),
            policy=policy(args),
            on_warning=_warn,
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
