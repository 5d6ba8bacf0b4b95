"""The detail's raw, diff and delivered bodies, built off the UI thread for the review screen.

Making unsafe characters visible in a large payload, or diffing it with the run's
previous handoff of the phase (which may have to be inspected again first), takes too
long for the UI thread. The body is built in a worker of the screen and posted to it
as ``BodyReady``; the screen shows it if its handoff is still the one in the detail.
Only one body is built at a time: asking for another cancels the one under way.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.screen import Screen

from handoff_gate.tui.messages import BodyReady
from handoff_gate.tui.model import Entry, Key, previous_same_phase
from handoff_gate.tui.widgets.detail import Body

if TYPE_CHECKING:
    from handoff_gate.tui.feed import Feed


class BodyLoader:
    """Raw text and diffs of inspected entries, posted to ``screen`` when ready."""

    def __init__(self, screen: Screen[None], feed: Feed) -> None:
        self._screen = screen
        self._feed = feed

    def load(self, entry: Entry, body: Body, entries: dict[Key, Entry]) -> None:
        """Build ``body`` (raw or diff) of the inspected ``entry``; a diff with nothing
        earlier in ``entries`` to compare with is said, not built."""
        previous = None
        if body is Body.DIFF:
            previous = previous_same_phase(entries, entry)
            if previous is None:
                self._screen.notify(
                    f"No earlier {entry.ref.phase} handoff in this run to compare with.",
                    markup=False,
                )
                return
        build = partial(self._build, entry, body, previous)
        self._screen.run_worker(build, name="body", group="body", exclusive=True, thread=True)

    def _build(self, entry: Entry, body: Body, previous: Entry | None) -> None:
        from handoff_gate.tui.textviews import delivered_view, diff_view, raw_view  # on demand

        report = entry.report
        if report is None:
            return
        if body is Body.DELIVERED:
            title, lines = delivered_view(report)
        elif previous is None:
            title, lines = raw_view(entry.ref, report)
        else:
            before = previous.report or self._feed.inspect_once(previous.ref).report
            title, lines = diff_view(before, previous.ref.id, report, entry.ref.id)
        self._screen.post_message(BodyReady(entry.key, body.value, title, tuple(lines)))
