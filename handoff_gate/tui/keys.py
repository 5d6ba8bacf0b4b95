"""The review screen's keys, each with an id for Textual's keymap (docs/walkthrough.md)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

#: The action that says why a deciding key does nothing in a read-only review.
READ_ONLY_STAND_IN = "refuse_read_only"


def binding(
    keys: str, action: str, label: str, tooltip: str = "", *, show: bool = False, id: str = ""
) -> Binding:
    """The footer has room for a few keys only, so a key is left out of it unless
    ``show``; its keymap id is its action's name, hyphenated, unless given."""
    return Binding(
        keys, action, label, show=show, tooltip=tooltip, id=id or action.replace("_", "-")
    )


REVIEW_KEYS: list[BindingType] = [
    binding("a", "approve", "Approve", "approve the selected handoff (asks first)", show=True),
    binding("r", "reject", "Reject", "reject with a reason and a category", show=True),
    binding(
        "e",
        "edit",
        "Edit",
        "edit the payload in $VISUAL/$EDITOR, then approve the edit (asks first)",
    ),
    binding(
        "n", "step_waiting(1)", "Next", "next handoff you can decide now", show=True, id="next"
    ),
    binding("p", "step_waiting(-1)", "Prev", "previous one to decide", id="previous"),
    binding(
        "w",
        "toggle_body('delivered')",
        "Delivered",
        "what the next phase receives if approved now, as wait delivers it",
        show=True,
        id="delivered",
    ),
    binding(
        "v", "toggle_body('raw')", "Raw", "the exact text, unsafe characters made visible", id="raw"
    ),
    binding(
        "d",
        "toggle_body('diff')",
        "Diff",
        "diff with the run's previous handoff of the phase",
        show=True,
        id="diff",
    ),
    binding("f", "filter", "Filter", "cycle open → rejected → approved → all", show=True),
    binding(
        "N",
        "toggle_notices",
        "Notices",
        "turn new-handoff notifications off or on (rows still arrive)",
    ),
    binding(
        "slash",
        "find",
        "Find",
        "show only rows containing a text (run, id, phase, producer, payload)",
    ),
    binding("space", "mark", "Mark", "mark or unmark the row for a batch"),
    binding(
        "asterisk",
        "mark_all",
        "Mark all",
        "mark every handoff of this run in the view that you can decide now",
    ),
    binding(
        "A",
        "approve_marked",
        "Approve marked",
        "approve the marked handoffs after one confirmation listing each",
    ),
    # R rejects the marked handoffs while there are any; otherwise it lists the rejected.
    binding(
        "R",
        "reject_marked",
        "Reject marked",
        "with handoffs marked: reject them with one reason and category",
    ),
    binding("R", "show_rejected", "Rejected", "with none marked: list rejected handoffs"),
    binding("o", "open_value", "Full value", "the field's whole value"),
    binding(
        "i",
        "decision",
        "Decision",
        "the decision in full: reason, category, reviewer, time, producer, waiter",
    ),
    binding(
        "enter",
        "open_handoff",
        "Open",
        "on the list: open the handoff (on a narrow screen, in place of the list)",
    ),
    binding("escape", "back_to_list", "List", "back to the list"),
    binding(
        "S", "stats", "Stats", "the look back: outcomes, who decided, reasons, times, a bar a day"
    ),
    binding(
        "u",
        "rule_from_decision",
        "Rule",
        "the tool call just approved (or the cursor's approved one): propose a rule "
        "approving calls like it, with what it would have done to the history",
    ),
    binding("question_mark", "help", "Help", "this help", show=True),
    # Tried when approve and reject are not offered: says why instead of nothing. Each
    # shares its deciding key's id, so a keymap moves both together.
    Binding("a", READ_ONLY_STAND_IN, show=False, id="approve"),
    Binding("r", READ_ONLY_STAND_IN, show=False, id="reject"),
    Binding("e", READ_ONLY_STAND_IN, show=False, id="edit"),
]
