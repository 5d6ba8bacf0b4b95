"""New handoffs gathered for a moment, then told in one notification per run: a burst
would otherwise stack a toast per handoff over the list."""

from __future__ import annotations

from collections.abc import Callable

from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import safe

#: How long new handoffs are gathered before one notification per run tells them.
NOTICE_GATHER_S = 1.0
#: How many ids a grouped notification names before "and N more".
NOTICE_IDS = 5


class ArrivalNotices:
    def __init__(
        self,
        tell: Callable[[list[str]], None],
        later: Callable[[float, Callable[[], None]], object],
    ) -> None:
        """``later(seconds, callback)``: a timer."""
        self._tell = tell
        self._later = later
        self._arrived: dict[str, list[Entry]] = {}
        self.on = True

    def add(self, entry: Entry) -> None:
        """Each entry is told at most once."""
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
