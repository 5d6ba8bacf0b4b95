"""The rejection dialog: a reason is required, a category helps later triage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

from handoff_gate.gates.vocab.actions import Category


@dataclass(frozen=True, slots=True)
class Rejection:
    reason: str
    category: Category


class RejectScreen(ModalScreen[Rejection | None]):
    """Enter in the reason field submits; Escape cancels without writing anything."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: Text, suggested: Category = Category.OTHER) -> None:
        super().__init__()
        self._title = title
        self._suggested = suggested

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(Text("Reject this handoff", style="bold"), classes="dialog-title")
            yield Static(self._title, markup=False)
            yield Input(placeholder="Reason (required)", id="reason")
            yield Static("", id="reject-error", markup=False)
            with RadioSet(id="category"):
                for category in Category:
                    label = Text(category.value.replace("_", " "))
                    yield RadioButton(label, value=category is self._suggested, name=category.value)
            yield Static(Text("Enter submit · Tab category · Esc cancel", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#reason", Input).focus()

    def _category(self) -> Category:
        pressed = self.query_one("#category", RadioSet).pressed_button
        return Category(pressed.name) if pressed is not None and pressed.name else Category.OTHER

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = event.value.strip()
        if not reason:
            self.query_one("#reject-error", Static).update(
                Text("A reason is required to reject.", style="bold red")
            )
            return
        self.dismiss(Rejection(reason=reason, category=self._category()))

    def action_cancel(self) -> None:
        self.dismiss(None)
