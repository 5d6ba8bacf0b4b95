"""A button whose focus shows in its text ("▶ Cancel"), not only in its colour, so the
default a stray Enter would press is readable on any terminal."""

from __future__ import annotations

from textual.widgets import Button
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
