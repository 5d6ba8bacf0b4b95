"""The stats screen (``S``): ``Gate.stats`` counted off the UI thread; ``R`` closes it
onto the rejected list, the handoffs behind the reject figures."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from handoff_gate.gates.vocab.safe_text import os_reason
from handoff_gate.tui.notice import Notice
from handoff_gate.tui.stats_lines import stats_lines
from handoff_gate.tui.widgets.lines import TextLines

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Stats

#: Said when the stats key is pressed before the app has loaded its contracts and policy.
NOT_READY = Notice("Still loading the contracts and policy; try the stats again in a moment.")


class StatsScreen(Screen[bool]):
    """Dismissed with ``True`` when the reviewer asked for the rejected list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="close-stats"),
        Binding("R", "rejected", "Rejected list", id="stats-rejected"),
    ]

    def __init__(self, look_back: Callable[[], Stats]) -> None:
        super().__init__()
        self._look_back = look_back
        #: The figures once computed (``None`` while counting, or when it failed).
        self.stats: Stats | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Look back: every run, summed", style="bold"), markup=False)
        lines = TextLines(id="stats-lines", words=True)
        lines.set_lines([Text("counting…", style="dim")])
        yield lines
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#stats-lines", TextLines).focus()
        self._count()

    @work(thread=True, exclusive=True, group="stats", name="stats")
    def _count(self) -> None:
        try:
            found = self._look_back()
        except Exception as exc:  # a store that went away: said, never a crash
            failed = [Text(f"the figures cannot be counted: {os_reason(exc)}", style="red")]
            self.app.call_from_thread(self._show, failed, None)
            return
        self.app.call_from_thread(self._show, stats_lines(found), found)

    def _show(self, lines: list[Text], found: Stats | None) -> None:
        self.stats = found
        self.query_one("#stats-lines", TextLines).set_lines(lines)

    def action_close(self) -> None:
        self.dismiss(False)

    def action_rejected(self) -> None:
        self.dismiss(True)
