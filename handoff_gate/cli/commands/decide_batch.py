"""``handoff-gate decide RUN --pending|--ids - ACTION``: many decisions, one line per id.

Every item is decided as ``decide RUN ID ACTION --sha256 HEX`` would decide it alone
(``gates.decide.batch``). ``--ids -`` reads every line before anything is written, so a
malformed line (exit 2) leaves the run as it was.
"""

from __future__ import annotations

import argparse
import sys

from handoff_gate.cli.errors import FAIL, OK, UsageError, one_line, os_problem, warn
from handoff_gate.cli.inputs import existing_run
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.ids import validate_id
from handoff_gate.gates.vocab.safe_text import visible

#: How many ``ID SHA256`` lines ``--ids -`` reads at most: far more than any review.
MAX_IDS = 10_000
_HEX = frozenset("0123456789abcdef")


def read_ids(lines: list[str]) -> list[tuple[str, str]]:
    """``ID SHA256`` lines as items; ``UsageError`` naming the first malformed line.

    Blank lines are skipped; an id given twice is a mistake, not a second decision.
    """
    items: list[tuple[str, str]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        words = line.split()
        if not words:
            continue
        where = f"--ids line {number}"
        if len(words) != 2:
            raise UsageError(f"{where}: expected 'ID SHA256', got {visible(line.strip()[:120])!r}")
        handoff_id, sha256 = words[0], words[1].lower()
        try:
            validate_id(handoff_id)
        except ValueError as exc:
            raise UsageError(f"{where}: {one_line(exc)}") from exc
        if len(sha256) != 64 or not set(sha256) <= _HEX:
            raise UsageError(f"{where}: the sha256 must be 64 hex digits")
        if handoff_id in seen:
            raise UsageError(f"{where}: {handoff_id} is named twice")
        seen.add(handoff_id)
        items.append((handoff_id, sha256))
    if not items:
        raise UsageError("--ids -: no 'ID SHA256' lines on stdin")
    if len(items) > MAX_IDS:
        raise UsageError(f"--ids -: more than {MAX_IDS} lines")
    return items


def run(gate: Gate, args: argparse.Namespace) -> int:
    if args.action is not None or args.sha256:
        raise UsageError("with --pending or --ids, give only the action (approve|reject)")
    if args.handoff_id not in {a.value for a in Action}:
        raise UsageError(f"the action must be approve or reject, not {visible(args.handoff_id)!r}")
    if args.ids is not None and (args.phase or args.schema):
        raise UsageError("--phase and --schema narrow --pending; --ids names each handoff")
    action = Action(args.handoff_id)
    # The whole configuration first: under a policy, only pinned contract modules run.
    run = existing_run(args.run_dir, gate.setup.store)
    items = read_ids(sys.stdin.read().splitlines()) if args.ids is not None else None
    why, who = args.reason, args.reviewer
    try:
        if items is not None:
            results = gate.decide_many(
                run, items, action, reason=why, category=args.category, reviewer=who,
                on_warning=warn,
            )  # fmt: skip
        else:  # each decided on the look that selected it
            results = gate.decide_pending(
                run, action, phase=args.phase, schema_id=args.schema, reason=why,
                category=args.category, reviewer=who, on_warning=warn,
            )  # fmt: skip
    except PermissionError as exc:
        raise os_problem("record a decision in", args.run_dir, exc) from exc
    except (ValueError, OSError) as exc:
        raise UsageError(one_line(exc)) from exc
    done = "approved" if action is Action.APPROVE else "rejected"
    for result in results:
        if result.decision is not None:
            print(f"{result.ref.id} {done} by {visible(result.decision.reviewer)}")
        else:
            print(f"{result.ref.id} refused: {one_line(Exception(result.refused))}")
    if not results:
        print("nothing to decide", file=sys.stderr)
    return OK if all(result.written for result in results) else FAIL
