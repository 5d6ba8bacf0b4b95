"""The list's rows and the header line, fitted to the terminal's width.

Rows are rendered when first painted and cached until their entry, the filter or the
list's width changes: ten thousand handoffs must not be rendered on every repaint.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.model import Entry, Key, Show
from handoff_gate.tui.render import BADGE_WIDTH, fit, list_row, safe

#: Widest run name and handoff id columns in the list (longer ones are cut with "…").
MAX_RUN_WIDTH = 22
MAX_ID_WIDTH = 18
#: The run column never shrinks below this (an id still comes first).
MIN_RUN_WIDTH = 4


class RowCache:
    """Rendered list rows by key; ``drop`` one when its entry changes."""

    def __init__(
        self, entries: dict[Key, Entry], runs: dict[Path, set[str]], marked: set[Key]
    ) -> None:
        """``marked``: the screen's batch marks, read live."""
        self._entries = entries
        self._runs = runs
        self._marked = marked
        self._rows: dict[Key, Text] = {}
        #: The filter and widths the cached rows were rendered for.
        self._rendered_for: tuple[Show, int, int, int] | None = None
        #: The widest handoff id seen so far (ids keep their full width).
        self.id_width = 8

    def drop(self, key: Key) -> None:
        self._rows.pop(key, None)

    def columns(self, width: int, show: Show) -> tuple[int, int]:
        """Run and id column widths for a list ``width`` cells wide.

        The id keeps its full width (it is what a reviewer types into ``decide``); the
        run name gives way first, cut with a visible "…".
        """
        id_width = min(self.id_width, MAX_ID_WIDTH)
        widest = MAX_RUN_WIDTH if show is not Show.REJECTED else MIN_RUN_WIDTH * 3
        natural = min(max((len(run.name) for run in self._runs), default=8), widest)
        room = width - BADGE_WIDTH - 1 - id_width - len(" …")
        return max(min(natural, room), MIN_RUN_WIDTH), id_width

    def row(self, key: object, width: int, show: Show) -> Text:
        widths = (*self.columns(width, show), width)
        if (show, *widths) != self._rendered_for:
            self._rendered_for = (show, *widths)
            self._rows.clear()
        text = self._rows.get(key) if isinstance(key, tuple) else None
        if text is None:
            entry = self._entries.get(key) if isinstance(key, tuple) else None
            if entry is None:
                return Text()
            text = self._rows[entry.key] = list_row(
                entry,
                *widths,
                decision=show is Show.REJECTED,
                marked=entry.key in self._marked,
            )
        return text


@dataclass(frozen=True, kw_only=True)
class Topbar:
    """The header: what is reviewed and by whom, the filter and the progress."""

    where: str
    reviewer: str
    read_only: bool
    show: Show = Show.OPEN
    listed: int = 0
    scanned: bool = False
    backlog: int = 0
    new: int = 0
    find: str = ""

    def render(self, entries: Iterable[Entry], width: int) -> Text:
        every = list(entries)
        decidable = [e for e in every if e.decidable]
        blocked = sum(1 for e in every if e.state is HandoffState.BLOCKED)
        pending = [e for e in every if e.state is HandoffState.PENDING]
        counted = pending if self.read_only else decidable
        waited_count = sum(1 for e in counted if e.waiters)  # None: the store cannot tell
        waited = f" · {waited_count} with a waiter" if waited_count else ""
        bar = Text.assemble(
            (" handoff-gate ", "bold reverse"),
            " ",
            (" read-only ", "bold reverse") if self.read_only else "",
            " ",
            (safe(self.where, 30), "bold"),
            # A read-only review decides nothing: it counts what waits for somebody else.
            "  pending " if self.read_only else "  to decide ",
            (str(len(counted)), "bold"),
            (f" · {self.new} new", "bold yellow") if self.new else "",
            f" · blocked {blocked}{waited}",
            f"  showing {self.show.value} {self.listed}/{len(every)}",
            (f" containing {safe(self.find, 20)!r}", "bold") if self.find else "",
            ("  reviewer ", "dim"),
            safe(self.reviewer, 20),
        )
        if not self.scanned:
            bar.append("  scanning…", style="dim")
        elif self.backlog:
            bar.append(f"  inspecting {self.backlog}…", style="dim")
        return fit(bar, width)
