"""Key reference, so the footer can stay short."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = (
    ("a", "approve the selected handoff (asks for confirmation; refused when blocked)"),
    ("r", "reject with a reason and a category"),
    ("v", "toggle the raw view: the exact bytes, with unsafe characters made visible"),
    ("d", "diff against the previous handoff of the same phase in the run"),
    ("n / p", "next / previous handoff waiting for a decision"),
    ("f", "cycle the filter: pending → rejected → approved → all"),
    ("ctrl+p", "command palette: jump to a run or a handoff"),
    ("↑ ↓ PgUp PgDn", "move in the list; Tab moves between the list and the fields"),
    ("Enter / Space", 'in the fields: expand or collapse; on a "… more" line, show more'),
    ("?", "this help"),
    ("q", "quit"),
)

STATES = (
    ("PENDING", "approvable, waiting for a decision"),
    ("BLOCKED", "cannot be approved; reject it or fix it upstream"),
    ("APPROVED / REJECTED", "decided; the decision shows its reviewer, reason and time"),
    ("CHANGED", "the file changed after its decision: the decision no longer applies"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        for key, what in KEYS:
            keys.add_row(Text(key, style="bold"), Text(what))
        states = Table.grid(padding=(0, 2))
        for state, what in STATES:
            states.add_row(Text(state, style="bold"), Text(what))
        with Vertical(id="dialog", classes="dialog help"):
            yield Static(Text("handoff-gate watch: keys", style="bold"), classes="dialog-title")
            yield Static(keys)
            yield Static(Text("States", style="bold"), classes="dialog-title")
            yield Static(states)
            yield Static(Text("Esc closes", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
