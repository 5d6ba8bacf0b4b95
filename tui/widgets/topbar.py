"""The review screen's header line: what is reviewed, by whom, and the counts.

The screen hands it the counts whenever they change; who reviews where is fixed when the
app starts. The text itself is built by ``rows.topbar``, fitted to the terminal's width.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import Static

from handoff_gate.tui.model import Entry, Show
from handoff_gate.tui.rows import topbar


class TopBar(Static):
    """One line high (app.tcss), so new counts never resize it."""

    def __init__(self, *, where: str, reviewer: str, id: str | None = None) -> None:
        """``where``: the root or store as the header names it; ``reviewer``: who decides."""
        super().__init__("", id=id, markup=False)
        self._where = where
        self._reviewer = reviewer

    def paint(
        self,
        *,
        read_only: bool,
        entries: Iterable[Entry],
        show: Show,
        listed: int,
        count_waiters: bool,
        scanned: bool,
        backlog: int,
    ) -> None:
        """Show these counts (``listed``: rows under the filter ``show``) at the app's width."""
        bar = topbar(
            where=self._where,
            read_only=read_only,
            reviewer=self._reviewer,
            entries=entries,
            show=show,
            listed=listed,
            count_waiters=count_waiters,
            scanned=scanned,
            backlog=backlog,
            width=self.app.size.width or 80,
        )
        # No layout pass: it would re-render the whole screen ten times a second while a
        # root loads, and the height never changes.
        self.update(bar, layout=False)
