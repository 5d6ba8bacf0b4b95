"""One handoff's standing as ``list`` and ``show`` print it.

The standing itself is ``gates.standing.standing``'s (the TUI and ``Gate.standing`` ask the
same function); this is only its ``list --json`` shape. An unusable decision record is a
state of its own, with the exact problem spelled out, since "changed" or "N problem(s)"
tells a reviewer nothing they can act on.
"""

from __future__ import annotations

from typing import Any

from handoff_gate.gates.gate import Standing


def signature(found: Standing, policy_in_force: bool) -> str | None:
    """Whether the named decision's signature was checked: ``verified`` under a policy
    (only verified records count there), ``unchecked`` without one (a signed record is a
    decision all the same, its signature not checked: no policy), ``None`` unsigned."""
    d = found.named
    if d is None or not d.signed:
        return None
    return "verified" if policy_in_force else "unchecked"


def to_json(found: Standing, policy_in_force: bool = False) -> dict[str, Any]:
    """The ``list --json`` object (documented in docs/protocol.md).

    ``sha256`` is the handoff file's, as ``decide --sha256`` and ``wait --sha256`` take
    it (``null`` when the file cannot be read); ``kind`` is what the envelope says it
    carries (``"output"`` or ``"tool_call"``; ``null`` when the envelope cannot be read)
    and ``tool`` the call a ``"tool_call"`` handoff names, ``{name, call_id,
    description?, agent?, thread?}`` (``null`` otherwise); ``delivered`` when an approved
    tool call was first delivered to a wait (``null``: not yet, or not a tool call);
    ``signature`` whether the decision's signature was checked (``signature``);
    ``caller_gave_up`` whether it is undecided and the one process that would run it (a
    coding agent's hook) no longer waits on it, so approving it is refused."""
    d = found.named
    envelope = found.report.envelope
    return {
        "run": found.run_name,
        "id": found.ref.id,
        "phase": found.ref.phase,
        "schema": found.report.schema_id,
        "sha256": found.report.sha256 or None,
        "kind": envelope.kind if envelope is not None else None,
        "tool": (
            envelope.tool.model_dump(mode="json", exclude_none=True)
            if envelope is not None and envelope.tool is not None
            else None
        ),
        "state": found.state.value,
        "verdict": found.report.verdict.value,
        "waiter": bool(found.waiters),
        "caller_gave_up": found.caller_gone,
        "reviewer": d.reviewer if d else None,
        "signature": signature(found, policy_in_force),
        "category": d.category.value if d and d.category else None,
        "reason": d.reason if d else None,
        "decided_at": d.decided_at if d else None,
        "problem": found.problem or None,
        "delivered": found.delivered or None,
    }
