"""The batch approval confirmation: "approve all, but show every item", grouped by run
and phase, so a reviewer confirms twenty handoffs knowing what each one is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from handoff_gate.tui.render import safe
from handoff_gate.tui.screens.approve import Confirmation
from handoff_gate.tui.widgets.marked_button import dialog_end

HINT = "y approve all · n / Esc cancel · Enter presses the focused button"
#: How much of each sha256 a line shows: enough to tell two handoffs apart at a glance.
SHA_PREFIX = 12


@dataclass(frozen=True, slots=True)
class BatchLine:
    """One marked handoff as the confirmation lists it (every text untrusted)."""

    run: str
    handoff_id: str
    phase: str
    contract: str
    verdict: str
    warnings: int
    sha256: str
    producer: str = "?"


def line_text(line: BatchLine) -> Text:
    noun = "warning" if line.warnings == 1 else "warnings"
    return Text.assemble(
        (f"  {safe(line.run, 30)} / ", "bold"),
        (line.handoff_id, "cyan"),
        f"  from {safe(line.producer, 30)}" if line.producer != "?" else "  no producer named",
        (f"  {safe(line.contract, 40)}", "italic"),
        f"  {safe(line.verdict, 20)}",
        (f"  {line.warnings} {noun}", "bold yellow" if line.warnings else "dim"),
        ("  sha256 ", "dim"),
        (line.sha256[:SHA_PREFIX], "bold"),
    )


def grouped(lines: Sequence[BatchLine]) -> Text:
    groups: dict[tuple[str, str], list[BatchLine]] = {}
    for line in lines:
        groups.setdefault((line.run, line.phase), []).append(line)
    parts: list[Text] = []
    for (run, phase), members in groups.items():
        parts.append(Text(f"{safe(run, 30)} · {safe(phase, 40)} ({len(members)})", style="bold"))
        parts.extend(line_text(line) for line in members)
    return Text("\n").join(parts)


class BatchApproveScreen(Confirmation):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Approve all", id="confirm-batch"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-batch"),
    ]

    def __init__(self, lines: Sequence[BatchLine]) -> None:
        super().__init__()
        self._lines = lines

    def compose(self) -> ComposeResult:
        count = len(self._lines)
        listed = grouped(self._lines)
        with VerticalScroll(id="dialog", classes="dialog"):
            noun = "handoff" if count == 1 else "handoffs"
            title = Text(f"Approve these {count} {noun}?", style="bold")
            yield Static(title, classes="dialog-title")
            yield Static(
                Text("Each gets its own decision, bound to its own sha256.", style="dim"),
                markup=False,
            )
            yield Static(listed, id="batch-lines", markup=False)
            yield from dialog_end(HINT, "Cancel (n)", f"Approve {count} (y)", "approve", "success")
