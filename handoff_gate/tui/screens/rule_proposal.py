"""Approve calls like this by rule: the ``[[auto]]`` table a decision would make, and
what it would have done to the history, shown before anything is written.

Replay's verdict names the calls a person rejected first: those are the ones a careless
rule lets through. ``y`` appends to the proposals file, never the policy: a person adds
it there and re-pins. Every name, run and command is untrusted: made safe, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.safe_text import os_reason
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.notice import Notice
from handoff_gate.tui.render import safe
from handoff_gate.tui.widgets.marked_button import dialog_end

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Judged, Proposal, Replay
    from handoff_gate.tui.model import Entry
    from handoff_gate.tui.review_core import ReviewCore

#: Past calls the verdict names one by one; the rest are counted.
NAMED_CALLS = 8
#: The longest run or reviewer name shown whole.
_LONGEST = 200


class RuleProposalScreen(ModalScreen[Notice | None]):
    """Dismissed with what to tell the person (``None``: cancelled, nothing written)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Propose", id="confirm-rule-proposal"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-rule-proposal"),
    ]

    def __init__(self, core: ReviewCore, entry: Entry, reviewer: str) -> None:
        super().__init__()
        #: A Gate over a copy of the app's store for each piece of work off the UI thread.
        self._gate: Callable[[], Gate] = core.gate.copy
        self._ref = entry.ref
        self._source = f"{entry.run} {entry.ref.id}"
        self._reviewer = core.reviewer or reviewer
        #: The rule and where it goes, once made from the call.
        self.proposal: Proposal | None = None
        #: The verdict once counted; ``y`` does nothing before (nothing unread is added).
        self.verdict: Replay | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="dialog"):
            yield Static(
                Text("Approve calls like this by rule?", style="bold"), classes="dialog-title"
            )
            yield Static(
                Text(f"From {safe(self._source, 400)}; the [[auto]] table it would propose:")
            )
            yield Static(Text("reading the call…", style="dim"), id="rule-table")
            yield Static(Text(""), id="rule-verdict")
            yield Static(Text(""), id="rule-where")
            hint = "y propose · n / Esc cancel"
            yield from dialog_end(hint, "Cancel (n)", "Propose (y)", "propose", "primary")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()
        self._prepare()

    @work(thread=True, exclusive=True, group="rule-proposal", name="rule-proposal")
    def _prepare(self) -> None:
        ref = self._ref
        try:
            with self._gate() as gate:
                proposal = gate.propose_rule(ref.run, ref, beside=beside_runs(gate, ref.run))
        except ValueError as exc:  # NoProposal: why, in a person's words
            told = Notice(f"No rule from this call: {safe(str(exc), 500)}.", "No rule", "warning")
            self.app.call_from_thread(self.dismiss, told)
            return
        except Exception as exc:  # a store that went away: said, nothing proposed
            told = Notice(f"No rule: the call cannot be read: {os_reason(exc)}", "No rule", "error")
            self.app.call_from_thread(self.dismiss, told)
            return
        self.app.call_from_thread(self._show_rule, proposal)
        rule = proposal.rule
        try:
            with self._gate() as gate:
                found = gate.replay(proposal.policy, rules=[rule])
        except Exception as exc:  # a store that went away: said, and nothing is proposed
            failed = Text(f"the history cannot be replayed: {os_reason(exc)}", style="red")
            self.app.call_from_thread(self._show_verdict, failed, None)
            return
        self.app.call_from_thread(self._show_verdict, verdict_text(found, rule.name), found)

    def _show_rule(self, proposal: Proposal) -> None:
        self.proposal = proposal
        table = safe(proposal.rule.to_toml().rstrip("\n"), 10_000, multiline=True)
        self.query_one("#rule-table", Static).update(Text(table, style="bold"))
        self.query_one("#rule-verdict", Static).update(
            Text("replaying it over every recorded call…", style="dim")
        )
        where = Text.assemble(
            "y appends it to ",
            (safe(str(proposal.path), 1_000), "bold"),
            ". The policy is not changed: a person must add the table to the policy "
            "file and re-pin its digest (--policy-sha256) before the rule decides anything.",
        )
        if proposal.also:
            where.append(f" For it to count, {proposal.also}.", style="yellow")
        self.query_one("#rule-where", Static).update(where)

    def _show_verdict(self, text: Text, found: Replay | None) -> None:
        self.verdict = found
        self.query_one("#rule-verdict", Static).update(text)

    def action_confirm(self) -> None:
        if self.proposal is not None and self.verdict is not None:
            self._append(self.proposal, self.verdict)

    @work(thread=True, exclusive=True, group="rule-proposal", name="rule-write")
    def _append(self, proposal: Proposal, verdict: Replay) -> None:
        text = note(self._source, self._reviewer, verdict, proposal.rule.name)
        self.app.call_from_thread(self.dismiss, written(self._gate, proposal, text))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "propose":
            self.action_confirm()
        else:
            self.action_cancel()


def beside_runs(gate: Gate, run: str) -> Path | None:
    where = Path(gate.store.run_label(run))
    return where.parent if where.is_absolute() else None


def note(source: str, reviewer: str, verdict: Replay, name: str) -> str:
    approved = verdict.approved_by(name)
    rejected = [j for j in approved if j.decided is HandoffState.REJECTED and j.by_person]
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    lines = [
        f"proposed from {source}, approved; by {reviewer} at {at}",
        f"replay: would approve {len(approved)} recorded calls, "
        f"{len(rejected)} of them rejected by a person",
    ]
    lines += [f"  rejected: {j.run} {j.ref.id} by {j.decided_by}" for j in rejected]
    return "\n".join(lines)


def written(gate_for: Callable[[], Gate], proposal: Proposal, text: str) -> Notice:
    """Blocking."""
    where = safe(str(proposal.path), 500)
    try:
        with gate_for() as gate:
            gate.add_proposal(proposal, text)
    except ValueError as exc:  # NoProposal: the policy's own file, or a link
        return Notice(f"Not written: {safe(str(exc), 500)}", "No rule", "error")
    except OSError as exc:
        return Notice(f"Not written to {where}: {os_reason(exc)}", "No rule", "error")
    return Notice(
        f"Proposed in {where}. A person must add it to the policy and re-pin it; until "
        "then no rule decides anything.",
        "Rule proposed",
    )


def verdict_text(found: Replay, name: str) -> Text:
    approved = found.approved_by(name)
    rejected = [j for j in approved if j.decided is HandoffState.REJECTED and j.by_person]
    text = Text("Replayed over the history, it would approve ")
    text.append(f"{len(approved)} recorded call{'s' if len(approved) != 1 else ''}", "bold")
    if rejected:
        text.append(", ")
        text.append(f"{len(rejected)} of them rejected by a person", "bold red")
    text.append(".")
    for j in approved[:NAMED_CALLS]:
        text.append("\n  ")
        text.append_text(_row(j))
    if len(approved) > NAMED_CALLS:
        text.append(f"\n  …and {len(approved) - NAMED_CALLS} more", style="dim")
    return text


def _row(j: Judged) -> Text:
    line = Text()
    line.append(safe(j.run, _LONGEST))
    line.append(f" {j.ref.id}  ")
    state = j.decided.value + (f" by {j.decided_by}" if j.by else "")
    red = j.decided is HandoffState.REJECTED
    line.append(safe(state, _LONGEST), style="red" if red else "")
    return line
