"""A report and a decision as plain, escape-free text for a terminal or a log.

Shared by ``check`` and ``show`` so a handoff reads the same wherever it is printed.
"""

from __future__ import annotations

from typing import Any

from handoff_gate.cli.errors import flat
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.report import FieldState, Report
from handoff_gate.gates.vocab.safe_text import elide, preview

#: Beyond this many field rows a report is cut with a visible ``…``.
MAX_ROWS = 400
#: How much of a field's ``description`` (what the contract says it is for) a row shows.
DESCRIPTION_LIMIT = 160


def _value_text(value: Any, child_count: int) -> str:
    text = preview(value, 80)
    if isinstance(value, dict | list) and child_count:
        return f"{text}  ({child_count} inside)"
    return text


def _print_rows(report: Report, parent: str, depth: int, budget: list[int]) -> None:
    for row in field_rows(report, parent):
        if budget[0] <= 0:
            print("  …")
            return
        budget[0] -= 1
        states = ",".join(s.value for s in row.states)
        line = f"{'  ' * (depth + 1)}{flat(row.key)}  [{states}]  "
        absent = FieldState.MISSING in row.states
        line += "(absent)" if absent else _value_text(row.value, row.child_count)
        if row.message:
            line += f"  — {flat(row.message)}"
        if row.description:  # the contract's words: untrusted too, and kept short
            line += f"  · about: {flat(elide(row.description, DESCRIPTION_LIMIT))}"
        print(line)
        if row.child_count:
            _print_rows(report, row.path, depth + 1, budget)


def print_report(name: str, report: Report) -> None:
    """A field-by-field rendering: verdict, size and hash, findings, then every field."""
    schema = flat(report.schema_id or "?")
    print(f"{flat(name)}: {report.verdict.value.upper()}  schema {schema}")
    print(f"  {report.size} bytes (~{report.approx_tokens} tokens)  sha256 {report.sha256}")
    if report.findings:
        print("findings:")
    for f in report.findings:
        where = flat(f.path) or "(payload)"
        print(f"  {f.severity.value:5}  {f.code.value}  {where}  {flat(f.message)}")
    budget = [MAX_ROWS]
    print("fields:")
    _print_rows(report, "", 0, budget)
    if budget[0] == MAX_ROWS:
        print("  (none: nothing parsed into an object)")
