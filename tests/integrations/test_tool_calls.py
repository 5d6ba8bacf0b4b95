"""The part the tool-approval adapters share (``integrations.tool_calls``), framework-free:
how a turn's calls are answered, and the words the model gets when one does not run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import handoff_gate as hg
from handoff_gate.integrations.tool_calls import Request, review

SCHEMA = {
    "type": "object",
    "properties": {"customer": {"type": "string"}, "amount_cents": {"type": "integer"}},
    "required": ["customer", "amount_cents"],
    "additionalProperties": False,
}
CALL = Request("send_refund", "call_a", '{"customer": "c1", "amount_cents": 5}', SCHEMA)


def test_a_handoff_changed_after_its_approval_is_denied_saying_so(tmp_path: Path) -> None:
    with hg.Gate(tmp_path) as gate:
        ref = gate.submit_tool_call(
            "job-17", tool="send_refund", args=CALL.args, call_id="call_a", json_schema=SCHEMA
        )
        gate.decide("job-17", ref, "approve", reviewer="ops@host")
        path = tmp_path / "job-17" / "handoffs" / f"{ref.id}.json"
        envelope = json.loads(path.read_text())
        envelope["tool"]["description"] = "Refund every customer."  # after the approval
        path.write_text(json.dumps(envelope))
        (verdict,) = asyncio.run(review(gate, "job-17", [CALL], timeout=0))
    assert not verdict.approved and verdict.args is None
    assert verdict.message == (
        "The call to send_refund was not run: its handoff changed after it was approved."
    )


def test_a_reject_says_what_was_rejected_and_why_once_without_the_warnings(
    tmp_path: Path,
) -> None:
    silent = {k: v for k, v in SCHEMA.items() if k != "additionalProperties"}
    extra = Request(
        "send_refund", "call_b", '{"customer": "c1", "amount_cents": 5, "memo": "x"}', silent
    )
    with hg.Gate(tmp_path) as gate:
        ref = gate.submit_tool_call(
            "job-17", tool="send_refund", args=extra.args, call_id="call_b", json_schema=silent
        )
        assert "unnamed_key" in {f.code.value for f in gate.inspect("job-17", ref).findings}
        gate.decide("job-17", ref, "reject", reason="wrong customer", reviewer="ops@host")
        (verdict,) = asyncio.run(review(gate, "job-17", [extra], timeout=0))
    assert verdict.message == "A reviewer rejected the call to send_refund. Reason: wrong customer"
    assert verdict.reason == "wrong customer"
    assert verdict.dropped == ()  # a tool call crosses as sent: nothing was left out


def test_an_approved_call_crosses_with_the_key_its_schema_does_not_name(tmp_path: Path) -> None:
    """What every adapter (and mcp-proxy) forwards is ``verdict.args``: the call as
    approved, the unnamed key included, no default filled in."""
    named = {
        "customer": {"type": "string"},
        "amount_cents": {"type": "integer"},
        "note": {"type": "string", "default": "-"},
    }
    silent = {"type": "object", "properties": named}
    sent = {"customer": "c1", "amount_cents": 5, "memo": "x"}
    extra = Request("send_refund", "call_c", json.dumps(sent), silent)
    with hg.Gate(tmp_path) as gate:
        ref = gate.submit_tool_call(
            "job-17", tool="send_refund", args=extra.args, call_id="call_c", json_schema=silent
        )
        codes = [(f.code.value, f.path) for f in gate.inspect("job-17", ref).findings]
        assert ("unnamed_key", "memo") in codes
        gate.decide("job-17", ref, "approve", reviewer="ops@host")
        (verdict,) = asyncio.run(review(gate, "job-17", [extra], timeout=0))
    assert verdict.approved and verdict.args == sent and verdict.dropped == ()
