"""What the worker threads tell the app: small immutable dataclass messages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message

from handoff_gate.tui.model import Key
from handoff_gate.tui.scan import Inspection, RunListing

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Decision


@dataclass
class Listed(Message):
    """Fresh listings of some runs; ``runs`` is set after a look for new/deleted runs."""

    listings: tuple[RunListing, ...]
    runs: frozenset[Path] | None
    initial: bool


@dataclass
class Inspected(Message):
    """Batched so ten thousand do not flood the queue."""

    results: tuple[Inspection, ...]


@dataclass
class DecisionFinished(Message):
    """Written (``described`` in a few words), or refused with a reason."""

    key: Key
    decision: Decision | None
    refusal: str
    described: str = ""


@dataclass
class BatchDecided(Message):
    """One ``DecisionFinished`` per marked handoff, each written or refused on its own."""

    results: tuple[DecisionFinished, ...]


@dataclass
class BodyReady(Message):
    key: Key
    body: str
    title: Text
    lines: tuple[Text, ...]


@dataclass
class WatchFailed(Message):
    """The feed re-lists and resumes when it can."""

    error: str


@dataclass
class Warned(Message):
    """Something run beside the app (``watch --notify-url``) went wrong; the app goes on."""

    title: str
    text: str
