"""Whether the one process that would run a tool call is still there to run it.

A coding agent's hook (and the MCP proxy, alike) submits the call it was asked about,
waits on it, and is the only one that would ever run it: when it is killed, crashes or
gives up without being able to withdraw (the log's lock held, the store down), the
agent has moved on and an approval would run nothing, or, worse, look to the reviewer
as if it had. Such a call is marked in its envelope (``ToolCall.sole_waiter``) and may
be approved only while a wait on it is live (``RunStore.waiters``); otherwise every
reader says its caller gave up and ``decide`` refuses to approve it (a rejection is
still recorded: it runs nothing). A store that cannot tell who waits counts as nobody
waiting: what cannot be verified never counts. Every other handoff is unaffected: a
script may ``submit`` now and ``wait`` later, so no waiter yet means nothing there.
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
