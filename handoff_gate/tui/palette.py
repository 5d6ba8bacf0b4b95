"""Command palette entries: actions and jumps to a run or a handoff.

The providers ask the screen the palette was opened from (``Provider.screen``) for its
entries. Prompts are built as ``Text`` (the palette parses plain strings as markup) and
help strings are fixed English, never payload or file names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Protocol, runtime_checkable

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider

from handoff_gate.tui.model import Entry, Key, Show
from handoff_gate.tui.render import safe

Target = tuple[str, Callable[[], None], str]


def jump_targets(
    runs: dict[Path, set[str]], entries: Iterable[Entry], jump: Callable[[Key], None]
) -> list[Target]:
    targets: list[Target] = []
    for run_dir, ids in sorted(runs.items()):
        if ids:
            newest = max(ids)
            targets.append(
                (
                    f"run {safe(run_dir.name, 60)}",
                    partial(jump, (run_dir, newest)),
                    "Jump to this run's newest handoff",
                )
            )
    for entry in sorted(entries, key=lambda e: (e.run, e.ref.seq)):
        label = f"{safe(entry.run, 60)} {entry.ref.id}{_decided(entry)}"
        targets.append((label, partial(jump, entry.key), "Jump to this handoff"))
    return targets


def _decided(entry: Entry) -> str:
    decision = entry.decision
    state = f" {entry.state.value}" if entry.state is not None else ""
    if decision is None:
        return state
    parts = [state, f"by {safe(decision.reviewer, 40)}"]
    if decision.category is not None:
        parts.append(decision.category.value)
    if decision.reason:
        parts.append(safe(decision.reason, 80))
    return " · ".join(parts)


def action_targets(
    bindings: Iterable[BindingType],
    run_action: Callable[[str], None],
    show: Callable[[Show], None],
) -> list[Target]:
    actions: list[Target] = []
    for binding in bindings:
        if isinstance(binding, Binding):
            actions.append(
                (binding.description, partial(run_action, binding.action), binding.tooltip)
            )
    for each in Show:
        actions.append((f"Show {each.value}", partial(show, each), f"list {each.value} handoffs"))
    return actions


@runtime_checkable
class PaletteScreen(Protocol):
    """The review screen, as the providers ask it; any other screen offers nothing."""

    def jump_targets(self) -> list[Target]: ...

    def palette_actions(self) -> list[Target]: ...


class ActionProvider(Provider):
    #: How many entries the palette lists before a query narrows them (``None``: all).
    discover_limit: int | None = None

    def _targets(self) -> list[Target]:
        screen = self.screen
        return screen.palette_actions() if isinstance(screen, PaletteScreen) else []

    def _searched(self, label: str, help_text: str) -> str:
        return f"{label} {help_text}"

    async def discover(self) -> Hits:
        for label, act, help_text in self._targets()[: self.discover_limit]:
            yield DiscoveryHit(Text(label), act, text=label, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, act, help_text in self._targets():
            score = matcher.match(self._searched(label, help_text))
            if score > 0:
                yield Hit(score, Text(label), act, text=label, help=help_text)


class JumpProvider(ActionProvider):
    discover_limit = 50

    def _targets(self) -> list[Target]:
        screen = self.screen
        return screen.jump_targets() if isinstance(screen, PaletteScreen) else []

    def _searched(self, label: str, help_text: str) -> str:
        return label
