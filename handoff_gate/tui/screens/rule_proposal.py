"""Approve calls like this by rule: the ``[[auto]]`` table a decision would make, and
what it would have done to the history, shown before anything is written.

The table is the one ``gates.stats.proposal.rule_like`` made from the approved call
(its tool and its shell words, no more), shown as the exact text that would be appended.
Beside it, replay's verdict for that rule alone over every recorded call (``Gate.replay``,
counted off the UI thread): how many past calls it would approve, and the ones a person
rejected named first, since those are the calls a careless rule lets through. ``y``
appends it to the proposals file once the verdict is in (never to the policy: a person
adds it there and re-pins); ``n`` or Escape leaves. Every name, run and command is
payload or reviewer text: made safe (``render.safe``), never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from handoff_gate.gates.gate import Gate
from handoff_gate.gates.stats.proposal import (
    NoProposal,
    Proposal,
    append_proposal,
    as_added,
    proposals_path,
    rule_like,
)
from handoff_gate.gates.stats.replay import Judged, Replay, by_text
from handoff_gate.gates.vocab.safe_text import os_reason
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.notice import Notice
from handoff_gate.tui.render import safe
from handoff_gate.tui.widgets.marked_button import MarkedButton

if TYPE_CHECKING:
    from handoff_gate.gates.rules.auto import AutoRule
    from handoff_gate.gates.setup import Setup
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.tui.model import Entry
    from handoff_gate.tui.review_core import ReviewCore

#: Past calls the verdict names one by one; the rest are counted.
NAMED_CALLS = 8
#: The longest run or reviewer name shown whole.
_LONGEST = 200


class RuleProposalScreen(ModalScreen[Notice | None]):
    """Dismissed with what to tell the person: the proposal written, or why not
    (``None``: cancelled, nothing written)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Propose", id="confirm-rule-proposal"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-rule-proposal"),
    ]

    def __init__(
        self,
        proposal: Proposal,
        replay: Callable[[], Replay],
        write: Callable[[Replay], Notice],
        also: str = "",
    ) -> None:
        """``replay``: the rule's verdict over the history; ``write``: append the
        proposal, noting that verdict (both blocking: each runs in a worker); ``also``:
        what else the policy needs for the rule to count ("": nothing)."""
        super().__init__()
        self.proposal = proposal
        self._also = also
        self._replay = replay
        self._write = write
        #: The verdict once counted; ``y`` does nothing before (nothing unread is added).
        self.verdict: Replay | None = None

    def compose(self) -> ComposeResult:
        table = safe(self.proposal.rule.to_toml().rstrip("\n"), 10_000, multiline=True)
        where = safe(str(self.proposal.path), 1_000)
        with VerticalScroll(id="dialog", classes="dialog"):
            yield Static(
                Text("Approve calls like this by rule?", style="bold"), classes="dialog-title"
            )
            yield Static(Text("The [[auto]] table it would propose:"))
            yield Static(Text(table, style="bold"), id="rule-table")
            yield Static(
                Text("replaying it over every recorded call…", style="dim"), id="rule-verdict"
            )
            where_text = Text.assemble(
                "y appends it to ",
                (where, "bold"),
                ". The policy is not changed: a person must add the table to the policy "
                "file and re-pin its digest (--policy-sha256) before the rule decides anything.",
            )
            if self._also:
                where_text.append(f" For it to count, {self._also}.", style="yellow")
            yield Static(where_text, id="rule-where")
            yield Static(Text("y propose · n / Esc cancel", style="dim"), classes="dialog-hint")
            with Horizontal(classes="dialog-buttons"):
                yield MarkedButton("Cancel (n)", id="cancel")
                yield MarkedButton("Propose (y)", id="propose", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()
        self._count()

    @work(thread=True, exclusive=True, group="rule-proposal", name="rule-verdict")
    def _count(self) -> None:
        try:
            found = self._replay()
        except Exception as exc:  # a store that went away: said, and nothing is proposed
            failed = Text(f"the history cannot be replayed: {os_reason(exc)}", style="red")
            self.app.call_from_thread(self._show, failed, None)
            return
        self.app.call_from_thread(self._show, verdict_text(found, self.proposal.rule.name), found)

    def _show(self, text: Text, found: Replay | None) -> None:
        self.verdict = found
        self.query_one("#rule-verdict", Static).update(text)

    def action_confirm(self) -> None:
        if self.verdict is not None:
            self._append(self.verdict)

    @work(thread=True, exclusive=True, group="rule-proposal", name="rule-write")
    def _append(self, verdict: Replay) -> None:
        told = self._write(verdict)
        self.app.call_from_thread(self.dismiss, told)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "propose":
            self.action_confirm()
        else:
            self.action_cancel()


def proposal_screen(core: ReviewCore, entry: Entry, reviewer: str) -> RuleProposalScreen | Notice:
    """The screen proposing a rule from ``entry`` (an approved tool call, inspected),
    or the notice saying why none can be made."""
    report = entry.report
    envelope = report.envelope if report is not None else None
    try:
        if envelope is None:
            raise NoProposal("its envelope cannot be read")
        rule = rule_like(envelope)
        if entry.state is not HandoffState.APPROVED:
            raise NoProposal("approve the call first: a rule is proposed from an approved call")
        path = proposals_path(core.policy, _beside_runs(core, entry))
    except NoProposal as exc:
        return Notice(f"No rule from this call: {safe(str(exc), 500)}.", "No rule", "warning")
    proposal = Proposal(rule, path)
    source = f"{entry.run} {entry.ref.id}"
    reviewer = core.reviewer or reviewer
    policy, also = as_added(core.policy, rule)
    return RuleProposalScreen(
        proposal,
        lambda: replayed(core.setup, policy, rule),
        lambda verdict: written(core, proposal, note(source, reviewer, verdict, rule.name)),
        also,
    )


def _beside_runs(core: ReviewCore, entry: Entry) -> Path | None:
    """The folder the reviewed run is in, when the store keeps runs in folders."""
    where = Path(core.store.run_label(entry.ref.run))
    return where.parent if where.is_absolute() else None


def replayed(setup: Setup, policy: Policy | None, rule: AutoRule) -> Replay:
    """``rule`` alone replayed over every recorded handoff under ``policy`` (the one in
    force with the rule added), blocking, over a copy of the store, as the app's other
    readers off the UI thread use one."""
    store = setup.store.copy()
    try:
        gate = Gate(setup=replace(setup, store=store, owns_store=False))
        return gate.replay(policy, rules=(rule,))
    finally:
        store.close()


def note(source: str, reviewer: str, verdict: Replay, name: str) -> str:
    """The comment above a proposal: from which call, by whom, when, and its verdict."""
    approved = verdict.approved_by(name)
    rejected = [j for j in approved if j.decided is HandoffState.REJECTED and j.by_person]
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    lines = [
        f"proposed from {source}, approved; by {reviewer} at {at}",
        f"replay: would approve {len(approved)} recorded calls, "
        f"{len(rejected)} of them rejected by a person",
    ]
    lines += [f"  rejected: {j.run} {j.ref.id} by {by_text(j.by)}" for j in rejected]
    return "\n".join(lines)


def written(core: ReviewCore, proposal: Proposal, text: str) -> Notice:
    """Append the proposal (blocking); what to tell the person either way."""
    where = safe(str(proposal.path), 500)
    try:
        append_proposal(proposal.path, proposal.rule, text, core.policy)
    except NoProposal as exc:
        return Notice(f"Not written: {safe(str(exc), 500)}", "No rule", "error")
    except OSError as exc:
        return Notice(f"Not written to {where}: {os_reason(exc)}", "No rule", "error")
    return Notice(
        f"Proposed in {where}. A person must add it to the policy and re-pin it; until "
        "then no rule decides anything.",
        "Rule proposed",
    )


def verdict_text(found: Replay, name: str) -> Text:
    """How many recorded calls the rule would approve, the ones a person rejected first."""
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
    state = j.decided.value + (f" by {by_text(j.by)}" if j.by else "")
    red = j.decided is HandoffState.REJECTED
    line.append(safe(state, _LONGEST), style="red" if red else "")
    return line
