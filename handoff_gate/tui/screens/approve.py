"""The approval confirmation: Cancel holds focus so a stray Enter never approves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from handoff_gate.tui.widgets.marked_button import dialog_end

#: Warnings listed in the dialog; the rest are counted.
SHOWN_WARNINGS = 5


class Confirmation(ModalScreen[bool]):
    """``True`` only on an explicit confirmation; subclasses compose a ``#cancel`` and an
    ``#approve`` button."""

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "approve")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


def warnings_text(lead: str, warnings: Sequence[Text]) -> Text:
    count = len(warnings)
    noun = "warning" if count == 1 else "warnings"
    listed = Text.assemble((lead, ""), (f"{count} {noun}", "bold yellow" if count else "bold"))
    for line in warnings[:SHOWN_WARNINGS]:
        listed.append("\n  ⚠ ")
        listed.append_text(line)
    if count > SHOWN_WARNINGS:
        listed.append(f"\n  …and {count - SHOWN_WARNINGS} more", style="dim")
    return listed


class ApproveScreen(Confirmation):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Approve", id="confirm-approve"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-approve"),
    ]

    def __init__(self, title: Text, sha256: str, warnings: Sequence[Text]) -> None:
        super().__init__()
        self._title = title
        self._sha256 = sha256
        self._warnings = warnings

    def compose(self) -> ComposeResult:
        listed = warnings_text("with ", self._warnings)
        with VerticalScroll(id="dialog", classes="dialog"):
            yield Static(Text("Approve this handoff?", style="bold"), classes="dialog-title")
            yield Static(self._title, markup=False)
            yield Static(Text.assemble("sha256 ", (self._sha256, "bold")), id="approve-sha")
            yield Static(listed, id="approve-warnings")
            hint = "y approve · n / Esc cancel · Enter presses the focused button"
            yield from dialog_end(hint, "Cancel (n)", "Approve (y)", "approve", "success")
