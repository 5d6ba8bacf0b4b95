"""One field's whole value, with the findings about it; text goes through
``gates.view.masking`` (secrets masked, unsafe characters as tokens)."""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from handoff_gate.gates.view.masking import display_lines
from handoff_gate.gates.vocab.report import FieldRow, FieldState, Report
from handoff_gate.tui.render import FIELD_BADGES, finding_text, safe
from handoff_gate.tui.widgets.lines import TextLines


def field_findings(report: Report, path: str) -> list[Text]:
    inside = (path + ".", path + "[")
    return [
        finding_text(f)
        for f in report.findings
        if path and (f.path == path or f.path.startswith(inside))
    ]


def value_lines(row: FieldRow) -> list[Text]:
    if FieldState.MISSING in row.states:
        return [Text("(absent)", style="dim italic")]
    value = row.value
    shown = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return [Text(line) for line in display_lines(shown)]


class FullValueScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="close-value"),
    ]

    def __init__(self, where: Text, row: FieldRow, findings: list[Text]) -> None:
        super().__init__()
        self._where = where
        self._row = row
        self._findings = findings

    def compose(self) -> ComposeResult:
        row = self._row
        title = Text.assemble(self._where, ("  field ", "dim"), (safe(row.path, 200), "bold"))
        for state in row.states or (FieldState.OK,):
            badge, style = FIELD_BADGES[state]
            title.append("  ")
            title.append(f" {badge} ", style=style)
        yield Static(title, id="value-title", markup=False)
        notes = Text()
        for line in self._findings:
            if notes:
                notes.append("\n")
            notes.append("⚠ ", style="yellow")
            notes.append_text(line)
        if row.message and not self._findings:
            notes.append(safe(row.message, 2000), style="italic")
        findings = Static(notes, id="value-findings", markup=False)
        findings.display = bool(notes)
        yield findings
        lines = TextLines(id="value-lines", words=True)
        lines.set_lines(value_lines(row))
        yield lines
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#value-lines", TextLines).focus()

    def action_close(self) -> None:
        self.dismiss(None)
