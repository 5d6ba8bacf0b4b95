"""Asking the person before a decision is written: the dialogs, run in this hidden
widget's workers. The answer goes up as a message; this widget never touches a store."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import SuspendNotSupported
from textual.message import Message
from textual.widget import Widget

from handoff_gate.gates.view.reject_hint import suggest_category
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.tui.editing import (
    EditorFailed,
    edit_diff,
    editor_command,
    run_editor,
)
from handoff_gate.tui.notice import EDIT_UNCHANGED, Notice, edit_failed, edit_refused
from handoff_gate.tui.render import entry_title, finding_text
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.approve_edit import ApproveEditScreen
from handoff_gate.tui.screens.batch_approve import BatchApproveScreen, BatchLine
from handoff_gate.tui.screens.edit_text import EditTextScreen
from handoff_gate.tui.screens.reject import RejectScreen

if TYPE_CHECKING:
    from handoff_gate.gates.vocab.report import Report
    from handoff_gate.tui.model import Entry
    from handoff_gate.tui.review_core import ReviewCore

#: Marked handoffs, each with the sha256 it was seen with.
Chosen = list[tuple["Entry", str]]


class Asker(Widget):
    """One dialog at a time (the ``ask`` group)."""

    DEFAULT_CSS = "Asker { display: none; }"

    @dataclass
    class One(Message):
        """``edited``: approve these bytes instead of the producer's."""

        core: ReviewCore
        entry: Entry
        action: Action
        sha256: str
        reason: str | None = None
        category: Category | None = None
        edited: bytes | None = None

    @dataclass
    class Many(Message):
        core: ReviewCore
        chosen: Chosen
        action: Action
        reason: str | None = None
        category: Category | None = None

    def _tell(self, notice: Notice) -> None:
        self.notify(notice.message, title=notice.title, severity=notice.severity, markup=False)

    @work(exclusive=True, group="ask", name="approve")
    async def approve(self, core: ReviewCore, entry: Entry, report: Report) -> None:
        warnings = [finding_text(f) for f in report.warnings]
        dialog = ApproveScreen(entry_title(entry), report.sha256, warnings)
        if await self.app.push_screen_wait(dialog):
            self.post_message(self.One(core, entry, Action.APPROVE, report.sha256))

    @work(exclusive=True, group="ask", name="reject")
    async def reject(self, core: ReviewCore, entry: Entry, report: Report) -> None:
        dialog = RejectScreen(entry_title(entry), suggest_category(report))
        rejection = await self.app.push_screen_wait(dialog)
        if rejection is not None:
            why, category = rejection.reason, rejection.category
            self.post_message(self.One(core, entry, Action.REJECT, report.sha256, why, category))

    @work(exclusive=True, group="ask", name="edit")
    async def edit(self, core: ReviewCore, entry: Entry, report: Report, start: str) -> None:
        """An edit that is not approvable is told with its findings; nothing is decided."""
        data = await self._edited(entry, start)
        if data is None:
            return
        if data == start.encode("utf-8"):
            self._tell(EDIT_UNCHANGED)
            return
        checked, approvable = await asyncio.to_thread(core.inspect_edit, entry, report, data)
        if not approvable:
            self._tell(edit_refused(entry, checked))
            return
        diff = edit_diff(start, data.decode("utf-8", "replace"))  # undecodable bytes shown
        warnings = [finding_text(f) for f in checked.warnings]
        title = entry_title(entry)
        dialog = ApproveEditScreen(title, report.sha256, checked.sha256, diff, warnings)
        if await self.app.push_screen_wait(dialog):
            self.post_message(self.One(core, entry, Action.APPROVE, report.sha256, edited=data))

    async def _edited(self, entry: Entry, start: str) -> bytes | None:
        """``None`` when the reviewer cancelled or the editor failed."""
        command = editor_command(os.environ)
        if command is None:
            text = await self.app.push_screen_wait(EditTextScreen(entry_title(entry), start))
            return None if text is None else text.encode("utf-8")
        try:
            return self._run_editor(command, start, entry.ref.id)
        except EditorFailed as exc:
            self._tell(edit_failed(str(exc)))
            return None

    def _run_editor(self, command: list[str], start: str, handoff_id: str) -> bytes:
        """A headless app (a script, a test) has no terminal to hand over: the editor just runs."""
        try:
            with self.app.suspend():
                return run_editor(command, start, handoff_id)
        except SuspendNotSupported:
            if not self.app.is_headless:
                raise EditorFailed(
                    "this terminal cannot be handed to an editor; unset $VISUAL and $EDITOR "
                    "to edit inside the app"
                ) from None
            return run_editor(command, start, handoff_id)

    @work(exclusive=True, group="ask", name="approve-batch")
    async def approve_batch(self, core: ReviewCore, chosen: Chosen) -> None:
        dialog = BatchApproveScreen([batch_line(entry, sha256) for entry, sha256 in chosen])
        if await self.app.push_screen_wait(dialog):
            self.post_message(self.Many(core, chosen, Action.APPROVE))

    @work(exclusive=True, group="ask", name="reject-batch")
    async def reject_batch(self, core: ReviewCore, chosen: Chosen) -> None:
        noun = "handoff" if len(chosen) == 1 else "handoffs"
        title = Text(f"{len(chosen)} marked {noun}", style="bold")
        reports = [entry.report for entry, _ in chosen if entry.report is not None]
        suggested = suggest_category(reports[0]) if len(reports) == 1 else Category.OTHER
        rejection = await self.app.push_screen_wait(RejectScreen(title, suggested))
        if rejection is not None:
            self.post_message(
                self.Many(core, chosen, Action.REJECT, rejection.reason, rejection.category)
            )


def batch_line(entry: Entry, sha256: str) -> BatchLine:
    label = entry.label
    return BatchLine(
        run=entry.run,
        handoff_id=entry.ref.id,
        phase=entry.ref.phase,
        contract=(label.schema_id if label else None) or "?",
        verdict=label.verdict if label else "?",
        warnings=label.warnings if label else 0,
        sha256=sha256,
        producer=(label.from_role if label else None) or "?",
    )
