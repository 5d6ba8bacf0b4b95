"""The rejection dialog: a reason is required, a category helps later triage. The chosen
category carries a "(•)" marker, so it reads the same on a monochrome terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from handoff_gate.gates.vocab.actions import Category
from handoff_gate.tui.widgets.marked_button import dialog_end

CHOSEN = "(•)"
NOT_CHOSEN = "( )"


@dataclass(frozen=True, slots=True)
class Rejection:
    reason: str
    category: Category


def category_prompt(category: Category, chosen: bool) -> Text:
    marker = CHOSEN if chosen else NOT_CHOSEN
    return Text.assemble((marker, "bold" if chosen else ""), " ", category.value.replace("_", " "))


class CategoryList(OptionList):
    """Moving the highlight chooses, so the marker follows the cursor."""

    def __init__(self, chosen: Category, *, id: str | None = None) -> None:
        options = [Option(category_prompt(c, c is chosen), id=c.value) for c in Category]
        super().__init__(*options, id=id)
        self.chosen = chosen

    def on_mount(self) -> None:
        self.highlighted = list(Category).index(self.chosen)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_id is None:
            return
        self.chosen = Category(event.option_id)
        for index, category in enumerate(Category):
            self.replace_option_prompt_at_index(
                index, category_prompt(category, self.chosen is category)
            )


class RejectScreen(ModalScreen[Rejection | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="cancel-reject")
    ]

    def __init__(self, title: Text, suggested: Category = Category.OTHER) -> None:
        super().__init__()
        self._title = title
        self._suggested = suggested

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="dialog"):
            yield Static(Text("Reject this handoff", style="bold"), classes="dialog-title")
            yield Static(self._title, markup=False)
            yield Input(placeholder="Reason (required)", id="reason")
            yield Static("", id="reject-error", markup=False)
            yield Static(Text("Category (↑ ↓ to choose)", style="bold"), classes="dialog-label")
            yield CategoryList(self._suggested, id="category")
            hint = "Enter reject · Tab next control · Esc cancel"
            yield from dialog_end(hint, "Cancel (Esc)", "Reject (Enter)", "reject", "error")

    def on_mount(self) -> None:
        self.query_one("#reason", Input).focus()

    @property
    def category(self) -> Category:
        return self.query_one(CategoryList).chosen

    def _submit(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.query_one("#reject-error", Static).update(
                Text("A reason is required to reject.", style="bold red")
            )
            self.query_one("#reason", Input).focus()
            return
        self.dismiss(Rejection(reason=reason, category=self.category))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reject":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
