"""One handoff's standing as ``list`` and ``show`` print it (the standing itself is
``gates.standing.standing``'s). An unusable decision record is a state of its own, with
the exact problem spelled out, since "changed" tells a reviewer nothing they can act on.
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
    """The ``list --json`` object; its keys are a contract (docs/protocol.md)."""
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
