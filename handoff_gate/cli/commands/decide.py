"""``handoff-gate decide``: approve or reject a handoff, bound to the bytes it has now.

``--sha256`` binds the decision to the bytes the person looked at, and a signed one is
refused up front unless the key's principal may decide the phase; ``--pending`` and
``--ids -`` are ``decide_batch``. ``approve --edit FILE`` approves FILE's exact bytes,
inspected against the handoff's contract first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jiter

from handoff_gate.cli.commands import decide_batch
from handoff_gate.cli.errors import FAIL, OK, UsageError, finding_line, one_line, os_problem, warn
from handoff_gate.cli.inputs import existing_handoff
from handoff_gate.gates.gate import DecisionRefused, EditRefused, Gate
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.safe_text import visible


def _edit_bytes(path: str | None, action: str) -> bytes | None:
    """FILE's exact bytes for ``--edit``, once they are known to be one JSON value."""
    if path is None:
        return None
    if action != Action.APPROVE.value:
        raise UsageError("--edit goes with approve: a rejection delivers nothing")
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_HANDOFF_BYTES + 1)
    except OSError as exc:
        raise os_problem("read the edited payload", path, exc) from exc
    if len(data) > MAX_HANDOFF_BYTES:
        raise UsageError(f"--edit {path}: over the {MAX_HANDOFF_BYTES}-byte limit")
    try:
        jiter.from_json(data, catch_duplicate_keys=True, allow_inf_nan=False)
    except ValueError as exc:
        raise UsageError(f"--edit {path} is not valid JSON: {one_line(exc)}") from exc
    return data


def run(gate: Gate, args: argparse.Namespace) -> int:
    if args.pending or args.ids is not None:
        return decide_batch.run(gate, args)
    if args.action is None:
        raise UsageError("decide needs an action after the id: approve or reject")
    if args.phase or args.schema:
        raise UsageError("--phase and --schema narrow --pending; this decides one handoff")
    edited = _edit_bytes(args.edit, args.action)
    run = existing_handoff(args.run_dir, args.handoff_id, gate.setup.store)  # a typo: exit 2
    try:
        decision = gate.decide(
            run,
            args.handoff_id,
            args.action,
            reason=args.reason,
            category=args.category,
            reviewer=args.reviewer,
            expected_sha256=args.sha256.lower() if args.sha256 else None,
            on_warning=warn,
            edited_payload=edited,
        )
    except EditRefused as exc:
        print(f"refused: {one_line(exc)}", file=sys.stderr)
        for f in exc.report.findings:
            print(f"  {finding_line(f)}", file=sys.stderr)
        return FAIL
    except DecisionRefused as exc:
        print(f"refused: {one_line(exc)}", file=sys.stderr)
        return FAIL
    except PermissionError as exc:
        raise os_problem("record a decision in", args.run_dir, exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(one_line(exc)) from exc
    done = "approved" if decision.action is Action.APPROVE else "rejected"
    if decision.edited_sha256 is not None:
        done = f"approved as edited (sha256 {decision.sha256} -> {decision.edited_sha256})"
    print(f"{decision.handoff} {done} by {visible(decision.reviewer)}")
    return OK
