"""A decided handoff's decision in one or two lines, for the top of the detail.

The whole decision filled the detail on a 24-line terminal and pushed the verdict and the
fields below the first screen; where text is left out, the line ends "… i: in full".
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import decision_word, no_decision_text, safe

#: Said where the summary leaves text out: the key that shows it whole.
IN_FULL = "i: in full"


def clip(text: Text, width: int, lines: int, console: Console) -> list[Text]:
    """At most ``lines`` of ``text``; nothing is cut without the ``IN_FULL`` marker."""
    wrapped = list(text.wrap(console, max(width, 1), overflow="fold"))
    if len(wrapped) <= lines:
        return wrapped
    kept = wrapped[:lines]
    hint = Text.assemble("… ", (IN_FULL, "bold"))
    last = kept[-1].copy()
    last.rstrip()
    last.truncate(max(width - hint.cell_len, 0))
    kept[-1] = Text.assemble(last, hint)
    return kept


def decided_lines(entry: Entry, width: int, console: Console) -> list[Text]:
    ended = no_decision_text(entry)
    if ended is not None:
        return clip(ended, width, 2, console)
    decision = entry.decision
    if decision is None:
        return []
    approved = decision.action is Action.APPROVE
    first = Text().append_text(decision_word(decision))  # its style a span, not the line's
    first.append(" by ")
    first.append(safe(decision.reviewer, 60), style="bold")
    first.append(f" {safe(decision.decided_at[:16].replace('T', ' '), 20)}", style="dim")
    if decision.edited_sha256 is not None:
        first.append(" · edited", style="bold green")
    if entry.delivered and approved:
        first.append(" · delivered", style="dim")
    second = Text()
    if decision.category is not None:
        second.append(decision.category.value.replace("_", " "), style="italic")
    if decision.reason:
        second.append(" · " if second else "")
        second.append(safe(decision.reason, 300))
    if entry.state is HandoffState.CHANGED:
        # What matters first: the decision no longer applies; then what it was.
        changed = Text.assemble(
            (" CHANGED ", "bold black on bright_yellow"),
            (" no longer applies: the file changed", "bold red"),
        )
        was = Text.assemble(first, "  ", second) if second else first
        return clip(changed, width, 1, console) + clip(was, width, 1, console)
    lines = clip(first, width, 1, console)
    if second:
        lines += clip(second, width, 1, console)
    return lines
