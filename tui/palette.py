"""Command palette entries: actions (approve, reject, filter, …) and jumps to a run or a
handoff.

Prompts are built as ``Text`` (the palette parses plain strings as markup) and help
strings are fixed English, never payload or file names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

#: The palette lists at most this many handoffs before a query narrows them.
_DISCOVER_LIMIT = 50


Target = tuple[str, Callable[[], None], str]


class Jumpable(Protocol):
    def jump_targets(self) -> list[Target]: ...


class Actionable(Protocol):
    def palette_actions(self) -> list[Target]: ...


class ActionProvider(Provider):
    """What the keys do, by name: "reject", "show rejected", "full value"."""

    def _targets(self) -> list[Target]:
        return cast("Actionable", self.app).palette_actions()

    async def discover(self) -> Hits:
        for label, act, help_text in self._targets():
            yield DiscoveryHit(Text(label), act, text=label, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, act, help_text in self._targets():
            score = matcher.match(f"{label} {help_text}")
            if score > 0:
                yield Hit(score, Text(label), act, text=label, help=help_text)


class JumpProvider(Provider):
    """Runs and handoffs by name: ``run-7``, ``run-7 0003-plan``."""

    def _targets(self) -> list[Target]:
        return cast("Jumpable", self.app).jump_targets()

    async def discover(self) -> Hits:
        for label, jump, help_text in self._targets()[:_DISCOVER_LIMIT]:
            yield DiscoveryHit(Text(label), jump, text=label, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, jump, help_text in self._targets():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, Text(label), jump, text=label, help=help_text)
