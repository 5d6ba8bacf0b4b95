"""Whether the one process that would run a tool call is still there to run it.

A hook (or the MCP proxy) is the only one that would ever run the call it waits on:
once it is gone without withdrawing, an approval would run nothing, or worse look to the
reviewer as if it had. Such a call (``ToolCall.sole_waiter``) may be approved only while
a wait on it is live; a store that cannot tell who waits counts as nobody waiting. Other
handoffs are unaffected: a script may ``submit`` now and ``wait`` later.
"""

from __future__ import annotations

from handoff_gate.gates.store.base import RunStore, WaiterRecord
from handoff_gate.gates.vocab.caller import CALLER_GAVE_UP as CALLER_GAVE_UP
from handoff_gate.gates.vocab.caller import caller_gone as caller_gone


def live_waiters(store: RunStore, run: str, handoff_id: str) -> tuple[WaiterRecord, ...] | None:
    """The handoff's live waiters (``None`` when the store cannot tell, or failed to)."""
    try:
        found = store.waiters(run, [handoff_id])
    except (OSError, ValueError):
        return None
    return None if found is None else found.get(handoff_id, ())
