"""The in-app editor, for a reviewer with neither ``$VISUAL`` nor ``$EDITOR`` set. Text
that is not JSON is not handed back: a typo costs the reviewer nothing they typed."""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea


class EditTextScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="save-edit"),
        Binding("escape", "cancel", "Cancel", id="cancel-edit"),
    ]

    def __init__(self, title: Text, text: str) -> None:
        super().__init__()
        self._title = title
        self._text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-dialog", classes="dialog"):
            yield Static(
                Text("Edit the payload, then approve", style="bold"), classes="dialog-title"
            )
            yield Static(self._title, markup=False)
            yield TextArea(self._text, id="edit-text", soft_wrap=False, show_line_numbers=True)
            yield Static("", id="edit-error", markup=False)
            yield Static(
                Text("ctrl+s inspect and review the edit · Esc cancel", style="dim"),
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        try:
            json.loads(text)
        except ValueError as exc:
            where = getattr(exc, "lineno", None), getattr(exc, "colno", None)
            at = f" at line {where[0]}, column {where[1]}" if where[0] is not None else ""
            message = getattr(exc, "msg", "not valid")
            line = Text(f"Not JSON{at}: {message}. Fix it, or Esc to cancel.", style="bold red")
            self.query_one("#edit-error", Static).update(line)
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
