"""``handoff-gate list``: every handoff under ROOT, one line (or JSON object) each.

The shell view for reviewers, to grep and filter: decision text is flattened to one
escape-free line per handoff, under a header naming the columns (``--no-header`` for
scripts that count or cut lines).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from handoff_gate.cli.errors import OK, flat, one_line
from handoff_gate.cli.status import to_json
from handoff_gate.gates.gate import Gate, Standing
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.view.tool_line import tool_call_line
from handoff_gate.gates.vocab.handoff_ref import HandoffRef

#: The columns, named as each line fills them (the ``key=`` ones name themselves).
HEADER = (
    "RUN  ID  PHASE  SCHEMA  STATE  VERDICT  waiter=  reviewer=  category=  decided_at=  reason="
)


def _field(value: object) -> str:
    return "-" if value is None or value == "" else flat(str(value))


def _line(status: Standing, policy_in_force: bool) -> str:
    row = to_json(status, policy_in_force)
    fixed = "  ".join(
        _field(row[key]) for key in ("run", "id", "phase", "schema", "state", "verdict")
    )
    waiter = "waiter=yes" if status.waiters else "waiter=no"
    if status.caller_gone:  # its hook died or gave up: approving it is refused
        waiter = "waiter=gone"
    tail = "  ".join(
        f"{key}={_field(row[key])}" for key in ("reviewer", "category", "decided_at", "reason")
    )
    if row["signature"] == "unchecked":
        tail += "  signature=unchecked(no-policy)"
    problem = f"  problem={_field(status.problem)}" if status.problem else ""
    call = tool_call_line(status.report)
    tool = f"  tool={call}" if call is not None else ""
    return f"{fixed}  {waiter}  {tail}{problem}{tool}"


def _handoffs(where: RunStore) -> Iterator[HandoffRef]:
    """Every handoff in the store: under ROOT (a run directory or a folder of them), or
    in the database. A run that cannot be read is said on stderr, in one escape-free
    line, and the other runs are listed: one bad run must not hide the rest."""
    for run in where.runs():
        try:
            ids = where.handoff_ids(run)
        except (OSError, ValueError) as exc:
            print(
                f"handoff-gate list: cannot read the run {flat(run)}: {_why(exc)}", file=sys.stderr
            )
            continue
        for handoff_id in ids:
            yield HandoffRef(run, handoff_id)


def _why(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return one_line(exc)


def run(gate: Gate, args: argparse.Namespace) -> int:
    where, rules = gate.setup.store, gate.policy
    found = [
        status
        for status in (gate.standing(ref.run, ref) for ref in _handoffs(where))
        if args.state is None or status.state.value == args.state
    ]
    if args.json:
        print(
            json.dumps([to_json(s, rules is not None) for s in found], ensure_ascii=True, indent=2)
        )
    else:
        if not args.no_header:
            print(HEADER)
        for status in found:
            print(_line(status, rules is not None))
    return OK
