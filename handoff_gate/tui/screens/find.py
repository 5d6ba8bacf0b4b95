"""``/``: the text the list is narrowed to (``model.matches``)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

#: The longest text the filter takes: a search, not a payload.
MAX_FIND = 200


class FindScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="cancel-find"),
    ]

    def __init__(self, current: str) -> None:
        super().__init__()
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="find-dialog", classes="dialog"):
            yield Static(Text("Show only rows containing", style="bold"), classes="dialog-title")
            yield Input(self._current, id="find-text", max_length=MAX_FIND)
            yield Static(
                Text("Enter apply (empty: every row) · Esc cancel", style="dim"),
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
