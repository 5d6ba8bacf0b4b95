"""The handoffs marked for a batch decision (this widget's state), and the bar above the
footer that counts them, shown only while something is marked."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from handoff_gate.tui.model import Key


class MarksBar(Static):
    @dataclass
    class Changed(Message):
        keys: list[Key]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        #: The marked handoffs; the list's row cache reads the same set.
        self.keys: set[Key] = set()
        self.display = False

    def ordered(self, listed: Iterable[Key]) -> list[Key]:
        """Those filtered out of view last."""
        shown = [key for key in listed if key in self.keys]
        return shown + sorted(self.keys - set(shown))

    def mark(self, keys: list[Key]) -> None:
        self.keys.update(keys)
        self._changed(keys)

    def unmark(self, keys: list[Key]) -> None:
        self.keys.difference_update(keys)
        self._changed(keys)

    def _changed(self, keys: list[Key]) -> None:
        count = len(self.keys)
        self.display = bool(count)
        self.update(
            Text.assemble(
                (f" {count} marked ", "bold black on cyan"),
                "  A approve them · R reject them · space unmark",
            )
        )
        self.post_message(self.Changed(keys))
