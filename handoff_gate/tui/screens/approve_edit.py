"""The confirmation of an edit ``gates`` found approvable: the diff and both digests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from handoff_gate.tui.screens.approve import Confirmation, warnings_text
from handoff_gate.tui.widgets.marked_button import dialog_end


class ApproveEditScreen(Confirmation):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Approve edit", id="confirm-edit"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-edit-approve"),
    ]

    def __init__(
        self, title: Text, sha256: str, edited_sha256: str, diff: Text, warnings: Sequence[Text]
    ) -> None:
        super().__init__()
        self._title = title
        self._digests = Text.assemble(
            "sha256 ", (sha256, "bold"), "\nedited ", (edited_sha256, "bold green")
        )
        self._diff = diff
        self._warnings = warnings

    def compose(self) -> ComposeResult:
        listed = warnings_text("the edit has ", self._warnings)
        with Vertical(id="edit-approve", classes="dialog"):
            yield Static(Text("Approve this edit?", style="bold"), classes="dialog-title")
            yield Static(self._title, markup=False)
            yield Static(self._digests, id="edit-digests")
            with VerticalScroll(id="edit-diff"):
                yield Static(self._diff, markup=False)
            yield Static(listed, id="edit-warnings")
            hint = "y approve the edit · n / Esc cancel"
            yield from dialog_end(hint, "Cancel (n)", "Approve edit (y)", "approve", "success")
