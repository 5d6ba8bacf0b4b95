"""Approve and reject from the review screen: refuse early, ask, then write off the UI thread.

Whatever would refuse the decision (read-only review, a handoff still being inspected,
the deciding rules ``Core.refusal`` applies, a blocked report) is said before a dialog
opens, so nobody types a reason for a decision that would not be written. The write
runs in a worker thread on the screen and comes back to it as a ``Decided`` message,
which ``announce`` turns into the toast; where the cursor goes next is the screen's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.screen import Screen

from handoff_gate.gates.view.reject_hint import suggest_category
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.tui.messages import Decided
from handoff_gate.tui.model import Entry
from handoff_gate.tui.notice import READ_ONLY, Notice
from handoff_gate.tui.render import entry_title, finding_text, safe

if TYPE_CHECKING:
    from handoff_gate.tui.core import Core
    from handoff_gate.tui.feed import Feed
    from handoff_gate.tui.screens.reject import Rejection


class DecisionFlow:
    """The approve and reject keys of ``screen``, from the refusals to the written decision."""

    def __init__(self, screen: Screen[None], core: Core, feed: Feed) -> None:
        self._screen = screen
        self._core = core
        self._feed = feed

    def approve(self, entry: Entry | None) -> None:
        """Ask to approve ``entry`` (the cursor's), unless something refuses it first."""
        entry = self._decidable(entry)
        if entry is None or entry.report is None:
            return
        report = entry.report
        if not report.approvable:
            codes = ", ".join(sorted({f.code.value for f in report.blocking}))
            self._screen.notify(
                f"Approval refused: {entry.ref.id} is blocked ({codes}). Nothing was written.",
                title="Blocked",
                severity="error",
                markup=False,
            )
            return
        from handoff_gate.tui.screens.approve import ApproveScreen  # dialogs load on first use

        warnings = [finding_text(f) for f in report.warnings]
        screen = ApproveScreen(entry_title(entry), report.sha256, warnings)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self._decide(partial(self._core.decide, entry, Action.APPROVE, report.sha256))

        self._screen.app.push_screen(screen, confirmed)

    def reject(self, entry: Entry | None) -> None:
        """Ask for a reason and a category to reject ``entry``, unless something refuses it."""
        entry = self._decidable(entry)
        if entry is None or entry.report is None:
            return
        from handoff_gate.tui.screens.reject import RejectScreen

        sha256 = entry.report.sha256

        def submitted(rejection: Rejection | None) -> None:
            if rejection is not None:
                reason, category = rejection.reason, rejection.category
                self._decide(
                    partial(self._core.decide, entry, Action.REJECT, sha256, reason, category)
                )

        screen = RejectScreen(entry_title(entry), suggest_category(entry.report))
        self._screen.app.push_screen(screen, submitted)

    def announce(self, message: Decided) -> None:
        """Say what was written, or why nothing was."""
        if message.decision is None:
            self._screen.notify(
                safe(message.refusal, 400), title="Not written", severity="error", markup=False
            )
        else:
            described = safe(self._core.describe(message.decision), 300)
            self._screen.notify(f"{message.key[1]}: {described}", markup=False)

    def say_read_only(self) -> None:
        """Why a deciding key does nothing in a read-only review."""
        self._tell(READ_ONLY)

    def _tell(self, notice: Notice) -> None:
        self._screen.notify(
            notice.message, title=notice.title, severity=notice.severity, markup=False
        )

    def _decidable(self, entry: Entry | None) -> Entry | None:
        """``entry`` if a decision on it may be asked for now; else ``None``, said why."""
        if self._core.read_only:
            self._tell(READ_ONLY)
            return None
        if entry is None:
            return None
        if entry.report is None:
            self._screen.notify(
                "Still inspecting this handoff; try again in a moment.", markup=False
            )
            self._feed.inspect(entry.ref, urgent=True)
            return None
        refusal = self._core.refusal(entry)
        if refusal is not None:
            self._tell(refusal)
            return None
        return entry

    def _decide(self, write: Callable[[], Decided]) -> None:
        """Run ``write`` (``Core.decide`` bound to its handoff and answer; it blocks on the
        disk or the store) in a worker thread of the screen, and post its ``Decided`` there."""

        def in_thread() -> None:
            self._screen.post_message(write())

        self._screen.run_worker(in_thread, name="decide", group="decide", thread=True)
