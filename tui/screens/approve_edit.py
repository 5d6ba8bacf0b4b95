"""The confirmation of an edit: the diff (delivered now → edited) and both digests.

Shown only once ``gates`` has inspected the edit as approvable. As in the approval
dialog, Cancel holds focus so a stray Enter never approves; ``y`` confirms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from handoff_gate.tui.widgets.marked_button import MarkedButton


class ApproveEditScreen(ModalScreen[bool]):
    """Dismisses with ``True`` only on an explicit confirmation."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Approve edit", id="confirm-edit"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-edit-approve"),
    ]

    def __init__(
        self, title: Text, sha256: str, edited_sha256: str, diff: Text, warnings: Sequence[Text]
    ) -> None:
        """``diff`` and ``warnings`` (the edit's warning findings) are rendered safely."""
        super().__init__()
        self._title = title
        self._digests = Text.assemble(
            "sha256 ", (sha256, "bold"), "\nedited ", (edited_sha256, "bold green")
        )
        self._diff = diff
        self._warnings = warnings

    def compose(self) -> ComposeResult:
        count = len(self._warnings)
        noun = "warning" if count == 1 else "warnings"
        listed = Text.assemble(
            ("the edit has ", ""), (f"{count} {noun}", "bold yellow" if count else "bold")
        )
        for line in self._warnings[:5]:
            listed.append("\n  ⚠ ")
            listed.append_text(line)
        with Vertical(id="edit-approve", classes="dialog"):
            yield Static(Text("Approve this edit?", style="bold"), classes="dialog-title")
            yield Static(self._title, markup=False)
            yield Static(self._digests, id="edit-digests")
            with VerticalScroll(id="edit-diff"):
                yield Static(self._diff, markup=False)
            yield Static(listed, id="edit-warnings")
            yield Static(
                Text("y approve the edit · n / Esc cancel", style="dim"), classes="dialog-hint"
            )
            with Horizontal(classes="dialog-buttons"):
                yield MarkedButton("Cancel (n)", id="cancel")
                yield MarkedButton("Approve edit (y)", id="approve", variant="success")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "approve")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
