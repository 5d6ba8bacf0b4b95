"""``handoff-gate stats``: the reviewer's look back over every run under ROOT.

The figures are the core's (``Gate.stats``); this only prints them. Reasons, names,
phases and tools are payload or reviewer text: every cell is a rich ``Text`` made
visible and one line (``flat``), never a markup string.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from handoff_gate.cli.errors import OK, ArgumentError, flat
from handoff_gate.gates.gate import Gate, Stats, stats_json
from handoff_gate.gates.vocab.states import HandoffState


def run(gate: Gate, args: argparse.Namespace) -> int:
    if args.top < 0:
        raise ArgumentError(f"--top must be 0 or more, not {args.top}")
    found = gate.stats(
        since=args.since,
        top=args.top,
        on_problem=lambda line: print(f"handoff-gate stats: {flat(line)}", file=sys.stderr),
    )
    if args.json:
        print(json.dumps(stats_json(found), ensure_ascii=True, indent=2))
    else:
        show(found, Console(highlight=False, emoji=False, soft_wrap=False))
    return OK


def _cell(text: str) -> Text:
    return Text(flat(text))


def _table(title: str, columns: Iterable[str]) -> Table:
    table = Table(title=Text(title), title_justify="left", show_edge=False, pad_edge=False)
    for i, name in enumerate(columns):
        table.add_column(Text(name), justify="left" if i == 0 else "right", overflow="fold")
    return table


def _counted(title: str, columns: list[str], counts: Iterable[tuple[str, int]]) -> Table:
    """A name and its count a row, the names that counted nothing left out."""
    table = _table(title, columns)
    for name, count in counts:
        if count:
            table.add_row(_cell(name), str(count))
    return table


def _grouped(title: str, rows: dict[str, dict[str, int]]) -> Table | None:
    """Rows of outcome counts, with a column for each state some row has."""
    if not rows:
        return None
    states = [s.value for s in HandoffState if any(r[s.value] for r in rows.values())]
    table = _table(title, [title.split()[-1], "total", *states])
    for name, row in rows.items():
        table.add_row(_cell(name), str(row["total"]), *(str(row[s]) for s in states))
    return table


def tables(found: Stats) -> list[Table | Text]:
    """What ``stats`` prints for people, in reading order."""
    since = f" submitted since {found.since.isoformat()}" if found.since else ""
    head = Text(f"{found.handoffs} handoffs{since}")
    if found.undated:
        head.append(f"; {found.undated} with no readable submit time")
    parts: list[Table | Text] = [head]
    parts.append(_counted("by outcome", ["outcome", "handoffs"], found.by_outcome.items()))
    if found.by_decider:
        deciders = _table("by who decided", ["decider", "kind", "approved", "rejected"])
        for c in found.by_decider:
            deciders.add_row(
                _cell(c.decider.name), Text(c.decider.kind), str(c.approved), str(c.rejected)
            )
        parts.append(deciders)
    grouped = (_grouped("by phase", found.by_phase), _grouped("by tool", found.by_tool))
    parts += [table for table in grouped if table]
    categories = found.reject_categories.items()
    if any(count for _, count in categories):
        parts.append(_counted("reject categories", ["category", "rejects"], categories))
    if found.top_reasons:
        columns = ["reason", "rejects"]
        parts.append(_counted("most common reject reasons", columns, found.top_reasons))
    parts.append(Text(found.times_line()))
    return parts


def show(found: Stats, console: Console) -> None:
    for part in tables(found):
        console.print(part)
        console.print()
