"""The review screen's keys, each with an id for Textual's keymap (docs/walkthrough.md)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

#: The action that says why a deciding key does nothing in a read-only review.
READ_ONLY_STAND_IN = "refuse_read_only"

REVIEW_KEYS: list[BindingType] = [
    Binding(
        "a",
        "approve",
        "Approve",
        tooltip="approve the selected handoff (asks first)",
        id="approve",
    ),
    Binding("r", "reject", "Reject", tooltip="reject with a reason and a category", id="reject"),
    Binding(
        "e",
        "edit",
        "Edit",
        show=False,
        tooltip="edit the payload in $VISUAL/$EDITOR, then approve the edit (asks first)",
        id="edit",
    ),
    Binding("n", "step_waiting(1)", "Next", tooltip="next handoff you can decide now", id="next"),
    Binding(
        "p",
        "step_waiting(-1)",
        "Prev",
        show=False,
        tooltip="previous one to decide",
        id="previous",
    ),
    Binding(
        "w",
        "toggle_body('delivered')",
        "Delivered",
        tooltip="what the next phase receives if approved now, as wait delivers it",
        id="delivered",
    ),
    Binding(
        "v",
        "toggle_body('raw')",
        "Raw",
        show=False,
        tooltip="the exact text, unsafe characters made visible",
        id="raw",
    ),
    Binding(
        "d",
        "toggle_body('diff')",
        "Diff",
        tooltip="diff with the run's previous handoff of the phase",
        id="diff",
    ),
    Binding("f", "filter", "Filter", tooltip="cycle open → rejected → approved → all", id="filter"),
    Binding(
        "N",
        "toggle_notices",
        "Notices",
        show=False,
        tooltip="turn new-handoff notifications off or on (rows still arrive)",
        id="toggle-notices",
    ),
    Binding(
        "slash",
        "find",
        "Find",
        show=False,
        tooltip="show only rows containing a text (run, id, phase, producer, payload)",
        id="find",
    ),
    Binding(
        "space", "mark", "Mark", show=False, tooltip="mark or unmark the row for a batch", id="mark"
    ),
    Binding(
        "asterisk",
        "mark_all",
        "Mark all",
        show=False,
        tooltip="mark every handoff of this run in the view that you can decide now",
        id="mark-all",
    ),
    Binding(
        "A",
        "approve_marked",
        "Approve marked",
        show=False,
        tooltip="approve the marked handoffs after one confirmation listing each",
        id="approve-marked",
    ),
    # R rejects the marked handoffs while there are any; otherwise it lists the rejected.
    Binding(
        "R",
        "reject_marked",
        "Reject marked",
        show=False,
        tooltip="with handoffs marked: reject them with one reason and category",
        id="reject-marked",
    ),
    Binding(
        "R",
        "show_rejected",
        "Rejected",
        show=False,
        tooltip="with none marked: list rejected handoffs",
        id="show-rejected",
    ),
    Binding(
        "o",
        "open_value",
        "Full value",
        show=False,
        tooltip="the field's whole value",
        id="open-value",
    ),
    Binding(
        "i",
        "decision",
        "Decision",
        show=False,
        tooltip="the decision in full: reason, category, reviewer, time, producer, waiter",
        id="decision",
    ),
    Binding(
        "enter",
        "open_handoff",
        "Open",
        show=False,
        tooltip="on the list: open the handoff (on a narrow screen, in place of the list)",
        id="open-handoff",
    ),
    Binding(
        "escape",
        "back_to_list",
        "List",
        show=False,
        tooltip="back to the list",
        id="back-to-list",
    ),
    Binding(
        "S",
        "stats",
        "Stats",
        show=False,
        tooltip="the look back: outcomes, who decided, reasons, times, a bar a day",
        id="stats",
    ),
    Binding(
        "u",
        "rule_from_decision",
        "Rule",
        show=False,
        tooltip="the tool call just approved (or the cursor's approved one): propose a rule "
        "approving calls like it, with what it would have done to the history",
        id="rule-from-decision",
    ),
    Binding("question_mark", "help", "Help", tooltip="this help", id="help"),
    # Tried when approve and reject are not offered: says why instead of nothing. Each
    # shares its deciding key's id, so a keymap moves both together.
    Binding("a", READ_ONLY_STAND_IN, show=False, id="approve"),
    Binding("r", READ_ONLY_STAND_IN, show=False, id="reject"),
    Binding("e", READ_ONLY_STAND_IN, show=False, id="edit"),
]
