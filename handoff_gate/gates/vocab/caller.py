"""Whether a tool call's one caller is still there to run it, as every reader words it.

The rule (``gates.standing.caller``) is read by the standing, ``decide`` and ``show``,
and by the review screen, which words a waiter line from the listing's live waiters
before any standing arrives; so the words and the test live here, below all of them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the review app reads this before the core's models load
    from handoff_gate.gates.vocab.envelope import Envelope

#: What every reader and ``decide`` say of such a call.
CALLER_GAVE_UP = "its caller gave up; nothing would run"


def needs_live_waiter(envelope: Envelope | None) -> bool:
    """Whether the handoff may be approved only while a wait on it is live."""
    return envelope is not None and envelope.tool is not None and bool(envelope.tool.sole_waiter)


def caller_gone(envelope: Envelope | None, waiters: Collection[object] | None) -> bool:
    """Whether the handoff needs a live waiter and has none (``None``: cannot tell)."""
    return needs_live_waiter(envelope) and not waiters
