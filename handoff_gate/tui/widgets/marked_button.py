"""A button whose focus shows in its text ("▶ Cancel"), not only in its colour, so the
default a stray Enter would press is readable on any terminal."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

FOCUS_MARK = "▶ "


class MarkedButton(Button):
    def __init__(
        self, label: str, *, id: str | None = None, variant: ButtonVariant = "default"
    ) -> None:
        super().__init__(f"  {label}", id=id, variant=variant)
        self._plain = label

    def on_focus(self) -> None:
        self.label = FOCUS_MARK + self._plain

    def on_blur(self) -> None:
        self.label = f"  {self._plain}"


def dialog_end(
    hint: str, cancel: str, confirm: str, confirm_id: str, variant: ButtonVariant
) -> ComposeResult:
    """The keys' hint and the buttons every dialog ends with, Cancel first (it has the
    focus, so a stray Enter cancels)."""
    yield Static(Text(hint, style="dim"), classes="dialog-hint")
    yield Horizontal(
        MarkedButton(cancel, id="cancel"),
        MarkedButton(confirm, id=confirm_id, variant=variant),
        classes="dialog-buttons",
    )
