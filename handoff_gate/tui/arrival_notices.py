"""Telling the reviewer that handoffs arrived: gathered for a moment, then one
notification per run ("3 new handoffs in web: 0002-plan, 0003-plan, 0004-plan").

A burst of arrivals would otherwise stack a toast per handoff over the list. The screen
hands each fresh entry that needs a person to ``add``; this class only gathers and words
them, and ``N`` turns it off (rows still arrive).
"""

from __future__ import annotations

from collections.abc import Callable

from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import safe

#: How long new handoffs are gathered before one notification per run tells them.
NOTICE_GATHER_S = 1.0
#: How many ids a grouped notification names before "and N more".
NOTICE_IDS = 5


class ArrivalNotices:
    """Gathers arrivals and tells them with ``tell(text)`` once ``later`` calls back."""

    def __init__(
        self,
        tell: Callable[[list[str]], None],
        later: Callable[[float, Callable[[], None]], object],
    ) -> None:
        """``tell``: shows one text per run; ``later(seconds, callback)``: a timer."""
        self._tell = tell
        self._later = later
        self._arrived: dict[str, list[Entry]] = {}
        self.on = True

    def add(self, entry: Entry) -> None:
        """Gather a fresh handoff that needs a person; the first of a burst starts the
        gathering. Each entry is told at most once."""
        if not entry.fresh or entry.notified:
            return
        entry.notified = True
        if not self.on:
            return
        first = not self._arrived
        self._arrived.setdefault(entry.run, []).append(entry)
        if first:
            self._later(NOTICE_GATHER_S, self._announce)

    def toggle(self) -> bool:
        """Turn the notices off or on; whether they are on now."""
        self.on = not self.on
        return self.on

    def _announce(self) -> None:
        arrived, self._arrived = self._arrived, {}
        if arrived:
            self._tell([arrival_text(run, entries) for run, entries in arrived.items()])


def arrival_text(run: str, entries: list[Entry]) -> str:
    """``3 new handoffs in web: 0002-plan, 0003-plan, 0004-plan`` (``and N more``)."""
    ids = [entry.ref.id for entry in entries]
    shown = ", ".join(ids[:NOTICE_IDS]) + (
        f" and {len(ids) - NOTICE_IDS} more" if len(ids) > NOTICE_IDS else ""
    )
    if len(entries) == 1:
        entry = entries[0]
        state = "yours to decide" if entry.decidable else safe(str(entry.state), 20)
        return f"{safe(run, 40)} / {entry.ref.id} is {state}"
    return f"{len(entries)} new handoffs in {safe(run, 40)}: {shown}"
