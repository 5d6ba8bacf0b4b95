"""``i``: a handoff's decision in full, wrapped word by word so a long reason is read
whole on a phone too."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import decision_text, entry_title
from handoff_gate.tui.widgets.lines import TextLines


class DecisionScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,i", "close", "Back", id="close-decision"),
    ]

    def __init__(self, entry: Entry) -> None:
        super().__init__()
        self._entry = entry

    def compose(self) -> ComposeResult:
        title = Text.assemble(entry_title(self._entry), ("  decision", "dim"))
        yield Static(title, id="value-title", markup=False)
        lines = TextLines(id="value-lines", words=True)
        lines.set_lines(list(decision_text(self._entry).split("\n")))
        yield lines
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextLines).focus()

    def action_close(self) -> None:
        self.dismiss(None)
