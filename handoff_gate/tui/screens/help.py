"""Key reference, generated from the bindings so it can never drift from what keys do."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

#: Keys handled by widgets rather than by bindings (the palette, Tab focus).
EXTRA_KEYS = (
    ("ctrl+p", "command palette: actions, and jumps to a run or a handoff"),
    ("tab", "move between the list and the fields"),
)

#: A heading and the (keys, what they do) rows under it: one section per pane.
Section = tuple[str, Sequence[tuple[str, str]]]

STATES = (
    (
        "to decide",
        "the header's count: pending handoffs this reviewer can decide now "
        "(a read-only review counts every pending one instead)",
    ),
    ("PENDING", "no decision yet, approvable; n and p step between those you can decide"),
    ("BLOCKED", "no decision yet, cannot be approved; reject it or fix it upstream"),
    ("APPROVED / REJECTED", "decided; the decision shows its reviewer, reason and time"),
    ("CHANGED", "the file changed after its decision: the decision no longer applies"),
    ("UNUSABLE", "the decision record itself is invalid: decided, never an approval"),
    ("WITHDRAWN", "the pipeline took it back (WITHDRWN in the list): it can no longer be decided"),
    ("EXPIRED", "its deadline passed undecided: it can no longer be decided, never delivered"),
    ("signed", "a principal's signed decision; without --policy it counts, signature not checked"),
    ("open", "the default filter: pending, blocked, changed and unusable handoffs; f shows all"),
    ("DROPPED", "a key the contract does not allow: shown, never delivered (w: what is)"),
)


def key_rows(app: App[Any], bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, what they do), with the keys as the app's keymap binds them."""
    declared = list(Binding.make_bindings(bindings))
    live = BindingsMap(declared)
    # Textual keeps the keymap on the App without a public reader; its screens read it so.
    live.apply_keymap(app._keymap)
    place = {(single.action, single.key): n for n, single in enumerate(declared)}
    live_bindings = [single for bound in live.key_to_bindings.values() for single in bound]
    live_bindings.sort(key=lambda single: place.get((single.action, single.key), len(place)))
    keys_of: dict[str, list[str]] = {}
    for single in live_bindings:
        keys_of.setdefault(single.action, []).append(app.get_key_display(single))
    rows: dict[str, str] = {}
    for single in declared:
        rows.setdefault(single.action, single.tooltip or single.description or single.action)
    # One row per key: a key with two meanings (R) says both on its row, and one key
    # bound twice to an action (pgup) is named once.
    listed: dict[str, list[str]] = {}
    for action, what in rows.items():
        keys = " ".join(dict.fromkeys(keys_of.get(action, [])))
        if keys:
            listed.setdefault(keys, []).append(what)
    return [(keys, "; ".join(whats)) for keys, whats in listed.items()]


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close", id="close-help")
    ]

    def __init__(self, sections: Sequence[Section]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        states = Table.grid(padding=(0, 2))
        for state, what in STATES:
            states.add_row(Text(state, style="bold"), Text(what))
        with VerticalScroll(id="dialog", classes="dialog help"):
            yield Static(Text("handoff-gate watch: keys", style="bold"), classes="dialog-title")
            for heading, rows in self._sections:
                keys = Table.grid(padding=(0, 2))
                for key, what in rows:
                    keys.add_row(Text(key, style="bold"), Text(what))
                yield Static(Text(heading, style="bold italic"), classes="dialog-label")
                yield Static(keys)
            yield Static(Text("States", style="bold"), classes="dialog-title")
            yield Static(states)
            yield Static(Text("Esc closes · ↑ ↓ scroll", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
