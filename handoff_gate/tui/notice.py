"""What the review screen's toasts say: plain lines built from data, never markup."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.report import Report
from handoff_gate.tui.messages import DecisionFinished
from handoff_gate.tui.model import Entry, Key
from handoff_gate.tui.render import safe

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Notice:
    message: str
    title: str = ""
    severity: Severity = "information"


READ_ONLY = Notice(
    "Read-only review: decisions cannot be made here. Nothing was written.",
    "Read-only",
    "warning",
)

STILL_INSPECTING = Notice("Still inspecting this handoff; try again in a moment.")

NOTHING_TO_DECIDE = Notice("No other handoff is yours to decide now.")

NO_FIELD = Notice("No field to open.")

NOTHING_MARKED = Notice("Nothing is marked: space marks a handoff, * every one you can decide.")

CANNOT_MARK = Notice(
    "Only a handoff you can decide now can be marked (not a blocked or decided one).",
    severity="warning",
)


def named(key: Key) -> str:
    """``run / id``: ids repeat across runs."""
    run, handoff = key
    return f"{safe(run.name or str(run), 40)} / {handoff}"


def blocked(entry: Entry, report: Report) -> Notice:
    codes = ", ".join(sorted({f.code.value for f in report.blocking}))
    return Notice(
        f"Approval refused: {named(entry.key)} is blocked ({codes}). Nothing was written.",
        "Blocked",
        "error",
    )


def decided(message: DecisionFinished) -> Notice:
    if message.decision is None:
        return Notice(f"{named(message.key)}: {safe(message.refusal, 400)}", "Not written", "error")
    return Notice(f"{named(message.key)}: {safe(message.described, 300)}")


EDIT_UNCHANGED = Notice("The edit changed nothing; nothing was written.")


def edit_refused(entry: Entry, report: Report) -> Notice:
    codes = ", ".join(sorted({f.code.value for f in report.blocking})) or "no payload"
    lines = [f"{named(entry.key)}: the edit is not approvable ({codes}). Nothing was written."]
    for finding in report.blocking[:5]:
        where = f" at {safe(finding.path, 60)}" if finding.path else ""
        lines.append(f"{finding.code.value}{where}: {safe(finding.message, 200)}")
    return Notice("\n".join(lines), "Edit refused", "error")


def edit_failed(reason: str) -> Notice:
    return Notice(f"{safe(reason, 300)}. Nothing was written.", "Edit", "error")


def batch_decided(results: Sequence[DecisionFinished]) -> Notice:
    """How many were written, and why the first refused one was not."""
    written = [r.decision for r in results if r.decision is not None]
    refused = [r for r in results if r.decision is None]
    approved = any(d.action is Action.APPROVE for d in written)
    done = f"{'Approved' if approved else 'Decided'} {len(written)} of {len(results)}"
    if not refused:
        return Notice(f"{done}.", "Batch")
    first = refused[0]
    why = f"{named(first.key)}: {safe(first.refusal, 300)}"
    return Notice(f"{done}; {len(refused)} not written ({why})", "Batch", "warning")


def nothing_earlier(entry: Entry) -> Notice:
    return Notice(
        f"No earlier {safe(entry.ref.phase, 40)} handoff in {safe(entry.run, 40)} to compare "
        f"{entry.ref.id} with."
    )


def undecided(entry: Entry) -> Notice:
    return Notice(f"{named(entry.key)} has no decision yet.")
