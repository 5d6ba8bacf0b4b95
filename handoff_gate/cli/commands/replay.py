"""``handoff-gate replay``: what a policy's rules would have done to every recorded handoff.

The judging is the core's (``Gate.replay``); this prints where the outcome would differ,
most dangerous first, and writes nothing. Run names, tools, reviewers, rule names and
findings are payload or reviewer text: every cell is made visible and one line
(``flat``), in plain text, never markup.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import OK, UsageError, flat
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Judged, Replay

#: What happened, as the WHY column opens: a handoff's state, then who settled it.
_HAPPENED = {
    HandoffState.PENDING: "it waits for a person",
    HandoffState.BLOCKED: "the contract blocked it",
    HandoffState.WITHDRAWN: "it was withdrawn undecided",
    HandoffState.EXPIRED: "it expired undecided",
    HandoffState.CHANGED: "its decision was for other bytes",
    HandoffState.UNUSABLE: "its decision record is unusable",
}
_WOULD = {
    "approve": "a rule would approve it",
    "reject": "a rule would reject it",
    "ask": "a person would decide it",
}


def why_text(j: Judged) -> str:
    """The WHY column: what happened against what would (or why it would be blocked)."""
    if j.would.value == "blocked":
        return j.why
    if j.decided in (HandoffState.APPROVED, HandoffState.REJECTED):
        who = "a person" if j.by_person else "a rule"
        happened = f"{who} {j.decided.value} it"
    else:
        happened = _HAPPENED.get(j.decided, j.decided.value)
    if j.change is not None and j.change.value == "no-person":
        return f"{happened}; a rule would, without one"
    said = f"{happened}; {_WOULD[j.would.value]}"
    return f"{said} ({j.why})" if j.why else said


def run(gate: Gate, args: argparse.Namespace) -> int:
    if gate.policy is None:
        raise UsageError("--policy FILE is needed: the policy whose [[auto]] rules to replay")
    found = gate.replay(
        as_written=True,
        on_problem=lambda line: print(f"handoff-gate replay: {flat(line)}", file=sys.stderr),
    )
    rows = found.differences
    if args.json:
        print(json.dumps([j.to_json() for j in rows], ensure_ascii=True, indent=2))
    else:
        show(found, rows)
    return OK


COLUMNS = ("RUN", "ID", "TOOL", "DECIDED", "WOULD", "WHY")


def table(rows: Sequence[Judged]) -> list[str]:
    """A header and one line a handoff, in the order given, the columns aligned. Cells
    are never cut (what is listed is read whole) and each is one escape-free line."""
    cells = [list(COLUMNS)]
    for j in rows:
        decided = j.decided.value + (f" by {j.decided_by}" if j.by else "")
        would = j.would.value + (f" by rule {j.rule}" if j.rule else "")
        why = why_text(j)
        cells.append([flat(c) for c in (j.run, j.ref.id, j.tool or "-", decided, would, why)])
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in cells
    ]


def show(found: Replay, rows: Sequence[Judged]) -> None:
    judged = len(found.judged)
    if not rows:
        print(f"{judged} handoffs replayed: no outcome would differ")
        return
    print(f"{judged} handoffs replayed; {len(rows)} would differ, most dangerous first:")
    print()
    for line in table(rows):
        print(line)
