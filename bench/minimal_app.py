"""The start-up baseline: the smallest Textual app that imports pydantic and paints a line."""

from __future__ import annotations

import sys

import pydantic  # noqa: F401  (the cost being compared includes it)
from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App[None]):
    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker = marker

    def compose(self) -> ComposeResult:
        yield Static(self.marker, markup=False)


if __name__ == "__main__":
    Minimal(sys.argv[1]).run()
