"""Whether the one process that would run a tool call is still there to run it.

A hook (or the MCP proxy) is the only one that would ever run the call it waits on:
once it is gone without withdrawing, an approval would run nothing, or worse look to the
reviewer as if it had. Such a call (``ToolCall.sole_waiter``) may be approved only while
a wait on it is live; a store that cannot tell who waits counts as nobody waiting. In
the vocabulary so the review screen can say it from a listing's live waiters.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the review app reads this before the core's models load
    from handoff_gate.gates.vocab.envelope import Envelope

#: What every reader and ``decide`` say of such a call.
CALLER_GAVE_UP = "its caller gave up; nothing would run"


def caller_gone(envelope: Envelope | None, waiters: Collection[object] | None) -> bool:
    """Whether the handoff may be approved only while a wait on it is live (a call its
    hook alone would run) and has none (``None``: cannot tell)."""
    tool = envelope.tool if envelope is not None else None
    return tool is not None and bool(tool.sole_waiter) and not waiters
