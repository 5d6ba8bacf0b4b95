"""Tool-call handoffs: ``Gate.submit_tool_call``, the envelope's ``kind``/``tool``, the
tool's own argument schema as the contract, and ``agent → name(args)`` where people read.

Run against a folder of runs and a PostgreSQL database through the same calls, since a
tool call must resolve its contract the same way wherever the run lives.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli

import handoff_gate as hg
from handoff_gate.gates.contracts.json_schema import JsonSchemaError, schema_sha256
from handoff_gate.gates.decide.decisions import DecisionRefused
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.findings import Code, Severity, Verdict
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.model import Entry, Label
from handoff_gate.tui.render import decision_text, header, list_row
from handoff_gate.tui.review_core import inspection

REFUND: dict[str, Any] = {
    "type": "object",
    "properties": {
        "customer": {"type": "string"},
        "amount_cents": {"type": "integer", "minimum": 1},
    },
    "required": ["customer", "amount_cents"],
    "additionalProperties": False,
}


@pytest.fixture(params=["folder", "postgres"])
def gate(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[hg.Gate]:
    if request.param == "folder":
        store: str = str(tmp_path / "runs")
    else:
        store = request.getfixturevalue("pg_url")
        with psycopg.connect(store, autocommit=True) as conn:
            init_schema(conn, roles=True)
    with hg.Gate(store) as made:
        yield made


def refund(gate: hg.Gate, args: Any, call_id: str = "call_a", thread: str = "t1") -> hg.HandoffRef:
    return gate.submit_tool_call(
        "job-17",
        tool="send_refund",
        args=args,
        call_id=call_id,
        json_schema=REFUND,
        description="Refund a customer.",
        agent="support",
        thread=thread,
    )


def test_a_tool_call_records_what_would_run_and_an_argument_its_schema_forbids_blocks(
    gate: hg.Gate,
) -> None:
    ref = refund(gate, {"customer": "c1", "amount_cents": 500, "memo": "be nice"})
    report = gate.inspect("job-17", ref)
    envelope = report.envelope
    assert isinstance(envelope, Envelope)
    assert envelope.kind == "tool_call"
    assert envelope.tool is not None
    assert (envelope.tool.name, envelope.tool.call_id) == ("send_refund", "call_a")
    assert (envelope.tool.agent, envelope.tool.thread) == ("support", "t1")
    assert envelope.schema_sha256 == schema_sha256(REFUND)
    # The schema closes the object: an argument it forbids is not trimmed away, it blocks.
    assert [(f.code, f.path, f.severity) for f in report.findings] == [
        (Code.UNKNOWN_KEY, "memo", Severity.BLOCK)
    ]
    assert not report.approvable
    exact = refund(gate, {"customer": "c1", "amount_cents": 500}, call_id="call_b")
    gate.decide("job-17", exact, "approve", reviewer="ops@host")
    result = gate.wait("job-17", exact, timeout=0)
    assert result.payload == {"customer": "c1", "amount_cents": 500}


def test_the_same_call_in_the_same_thread_is_one_handoff_and_another_thread_is_new(
    gate: hg.Gate,
) -> None:
    first = refund(gate, {"customer": "c1", "amount_cents": 500})
    again = refund(gate, {"customer": "c1", "amount_cents": 500})
    other = refund(gate, {"customer": "c1", "amount_cents": 500}, thread="t2")
    assert again == first
    assert other.id != first.id
    changed = refund(gate, {"customer": "c1", "amount_cents": 900})
    assert changed.id not in (first.id, other.id)


def test_a_call_id_reused_for_another_tool_is_a_new_handoff_the_approval_does_not_cover(
    gate: hg.Gate,
) -> None:
    args = {"customer": "c1", "amount_cents": 500}
    approved = refund(gate, args)
    gate.decide("job-17", approved, "approve", reviewer="ops@host")
    other = gate.submit_tool_call(
        "job-17",
        tool="delete_customer",
        args=args,
        call_id="call_a",
        json_schema=REFUND,
        thread="t1",
    )
    wider = gate.submit_tool_call(
        "job-17",
        tool="send_refund",
        args=args,
        call_id="call_a",
        json_schema={**REFUND, "additionalProperties": True},
        thread="t1",
    )
    assert len({approved.id, other.id, wider.id}) == 3
    for ref in (other, wider):
        assert gate.wait("job-17", ref, timeout=0).outcome is hg.WaitOutcome.TIMEOUT


def test_an_approved_call_is_delivered_once_unless_asked_again(gate: hg.Gate) -> None:
    ref = refund(gate, {"customer": "c1", "amount_cents": 500})
    gate.decide("job-17", ref, "approve", reviewer="ops@host")
    first = gate.wait("job-17", ref, timeout=0)
    second = gate.wait("job-17", ref, timeout=0)
    assert first.outcome is hg.WaitOutcome.APPROVED and first.payload is not None
    assert second.outcome is hg.WaitOutcome.ALREADY_DELIVERED and second.payload is None
    again = gate.wait("job-17", ref, timeout=0, redeliver=True)
    assert again.outcome is hg.WaitOutcome.APPROVED and again.payload == first.payload
    returned = [e for e in gate.audit_events("job-17") if e["event"] == "wait_returned"]
    assert [(e["outcome"], e.get("delivered"), e.get("redelivered")) for e in returned] == [
        ("approved", True, None),
        ("already_delivered", None, None),
        ("approved", None, True),
    ]
    assert gate.verify("job-17") == []


def test_two_waits_racing_on_one_approval_deliver_it_once(gate: hg.Gate) -> None:
    ref = refund(gate, {"customer": "c1", "amount_cents": 500})
    gate.decide("job-17", ref, "approve", reviewer="ops@host")
    stores = [gate.store.copy() for _ in range(4)]  # one connection each on PostgreSQL
    start = threading.Barrier(len(stores))

    def deliver(store: RunStore) -> hg.WaitOutcome:
        start.wait()
        return hg.Gate(store).wait("job-17", ref, timeout=5).outcome

    with ThreadPoolExecutor(len(stores)) as pool:
        outcomes = sorted(pool.map(deliver, stores))
    for store in stores:
        store.close()
    assert outcomes == sorted([hg.WaitOutcome.APPROVED] + [hg.WaitOutcome.ALREADY_DELIVERED] * 3)


def test_arguments_the_schema_refuses_are_blocked_and_cannot_be_approved(gate: hg.Gate) -> None:
    ref = refund(gate, '{"customer": "c1", "amount_cents": "lots"}', call_id="call_b")
    report = gate.inspect("job-17", ref)
    assert report.verdict is Verdict.BLOCKED
    assert [(f.code, f.path) for f in report.findings] == [(Code.INVALID_FIELD, "amount_cents")]
    with pytest.raises(DecisionRefused, match="blocked"):
        gate.decide("job-17", ref, "approve", reviewer="ops@host")
    assert gate.standing("job-17", ref).state is HandoffState.BLOCKED


def test_a_schema_the_gate_cannot_use_is_refused_before_anything_is_written(
    gate: hg.Gate,
) -> None:
    remote = {"type": "object", "properties": {"x": {"$ref": "https://example.org/x.json"}}}
    with pytest.raises(JsonSchemaError, match="outside the document"):
        gate.submit_tool_call("job-17", tool="t", args={}, call_id="c", json_schema=remote)
    assert "job-17" not in gate.runs()


def test_a_tool_name_is_free_text_but_bounded(gate: hg.Gate) -> None:
    ref = gate.submit_tool_call(
        "job-17", tool="sendRefund (v2)", args={}, call_id="c1", json_schema={"type": "object"}
    )
    report = gate.inspect("job-17", ref)
    assert report.envelope is not None and report.envelope.tool is not None
    assert report.envelope.tool.name == "sendRefund (v2)"
    with pytest.raises(ValueError, match="200 characters"):
        gate.submit_tool_call(
            "job-17", tool="x" * 201, args={}, call_id="c2", json_schema={"type": "object"}
        )


def test_the_tools_schema_is_stored_in_the_run_and_a_reviewer_needs_no_code(
    tmp_path: Path,
) -> None:
    with hg.Gate(tmp_path) as gate:
        ref = refund(gate, {"customer": "c1", "amount_cents": 0})
    # A reviewer's process with nothing but the run: the contract comes from it.
    checked = cli("show", str(tmp_path / "job-17"), ref.id)
    assert checked.returncode == 0, checked.stderr
    assert "amount_cents" in checked.stdout and "less than the minimum of 1" in checked.stdout
    refused = cli("decide", str(tmp_path / "job-17"), ref.id, "approve")
    assert refused.returncode != 0
    assert "blocked" in refused.stderr


def test_a_tool_call_envelope_without_its_tool_is_not_an_envelope() -> None:
    base = {"id": "0001-x", "run": "r", "seq": 1, "phase": "x", "schema": "s", "created": "t"}
    with pytest.raises(ValueError, match="tool_call"):
        Envelope.model_validate({**base, "kind": "tool_call"})
    with pytest.raises(ValueError, match="tool_call"):
        Envelope.model_validate({**base, "tool": {"name": "n", "call_id": "c"}})
    assert Envelope.model_validate(base).kind == "output"


def test_list_and_show_name_the_call_as_agent_tool_args_with_unsafe_text_made_visible(
    tmp_path: Path,
) -> None:
    with hg.Gate(tmp_path) as gate:
        refund(gate, {"customer": "c1\x1b[31m", "amount_cents": 500})
        gate.submit_tool_call(
            "job-17",
            tool="wipe\x1b]0;x\x07",
            args={"card": "4111 1111 1111 1111"},
            call_id="call_c",
            json_schema={"type": "object", "properties": {"card": {"type": "string"}}},
            agent="ops",
        )
    listed = cli("list", str(tmp_path))
    assert listed.returncode == 0, listed.stderr
    header, first, second = listed.stdout.splitlines()
    assert header.startswith("RUN  ID  PHASE  SCHEMA  STATE  VERDICT")
    assert 'tool=support → send_refund(customer="c1⟨ESC⟩[31m", amount_cents=500)  [call_a]' in first
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    assert "tool=ops → wipe⟨ESC⟩]0;x⟨BEL⟩(card=" in second
    assert "4111 1111 1111 1111" not in second
    shown = cli("show", str(tmp_path / "job-17"), "0001-tool-call")
    assert shown.returncode == 0, shown.stderr
    assert "tool call: support → send_refund  [call_a]" in shown.stdout
    assert "  thread t1" in shown.stdout
    brief = cli("show", str(tmp_path / "job-17"), "0001-tool-call", "--brief").stdout
    assert "tool call: support → send_refund(" in brief
    assert "  description Refund a customer." in shown.stdout


def test_the_tui_row_and_header_name_the_call_not_its_contract_digest(tmp_path: Path) -> None:
    with hg.Gate(tmp_path) as gate:
        ref = refund(gate, {"customer": "c1", "amount_cents": 500})
        report = gate.inspect("job-17", ref)
    entry = Entry(hg.HandoffRef(str(tmp_path / "job-17"), ref.id), report=report)
    entry.label = Label.of(report)
    row = list_row(entry, width=120).plain
    assert 'support → send_refund(customer="c1", amount_cents=500)  [call_a]' in row
    assert "tool_" not in row  # the contract's digest id is not what a person reads
    top = header(entry).plain
    assert "tool call support → send_refund(" in top
    assert "Refund a customer." in top


def test_wait_delivers_a_tool_call_once_and_show_list_and_the_tui_say_when(
    tmp_path: Path,
) -> None:
    run = str(tmp_path / "job-17")
    with hg.Gate(tmp_path) as gate:
        ref = refund(gate, {"customer": "c1", "amount_cents": 500})
        gate.decide("job-17", ref, "approve", reviewer="ops@host")
    assert "delivered: not yet" in cli("show", run, ref.id).stdout
    first = cli("wait", run, ref.id, "--timeout", "0")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"customer": "c1", "amount_cents": 500}
    second = cli("wait", run, ref.id, "--timeout", "0", "--json")
    assert second.returncode == 7 and json.loads(second.stdout)["payload"] is None
    assert json.loads(second.stdout)["outcome"] == "already_delivered"
    assert "delivered already" in second.stderr and "--redeliver" in second.stderr
    again = cli("wait", run, ref.id, "--timeout", "0", "--redeliver")
    assert again.returncode == 0 and again.stdout == first.stdout
    listed = json.loads(cli("list", str(tmp_path), "--json").stdout)
    delivered = listed[0]["delivered"]
    assert isinstance(delivered, str) and delivered.endswith("Z")
    assert f"delivered: at {delivered}" in cli("show", run, ref.id).stdout
    with hg.Gate(tmp_path) as gate:
        assert gate.verify("job-17") == []
        inspected = inspection(gate.standing(run, ref.id), policy=False)
    entry = Entry(hg.HandoffRef(run, ref.id), report=inspected.report)
    entry.decision, entry.delivered = inspected.decision, inspected.delivered
    assert f"delivered to the pipeline at {delivered}" in decision_text(entry).plain


def test_a_plain_handoff_is_delivered_to_every_wait_as_before(gate: hg.Gate) -> None:
    args = {"customer": "c1", "amount_cents": 500}
    ref = gate.submit("job-17", args, phase="plan", schema_id="refund/v1", json_schema=REFUND)
    gate.decide("job-17", ref, "approve", reviewer="ops@host")
    outcomes = [gate.wait("job-17", ref, timeout=0).outcome for _ in range(2)]
    assert outcomes == [hg.WaitOutcome.APPROVED] * 2


def test_audit_verify_sees_a_delivery_record_removed_or_never_logged(tmp_path: Path) -> None:
    """An agent that removes the record to have the approval delivered again is seen."""
    with hg.Gate(tmp_path) as gate:
        ref = refund(gate, {"customer": "c1", "amount_cents": 500})
        gate.decide("job-17", ref, "approve", reviewer="ops@host")
        assert gate.wait("job-17", ref, timeout=0).outcome is hg.WaitOutcome.APPROVED
        record = tmp_path / "job-17" / "deliveries" / ref.id
        record.unlink()
        assert gate.verify("job-17") == [
            f"{ref.id} was delivered but has no delivery record (removed: its approval "
            "could be delivered again)"
        ]
        assert gate.wait("job-17", ref, timeout=0).outcome is hg.WaitOutcome.APPROVED
        assert gate.verify("job-17") == [
            f"{ref.id} was delivered 2 times without a redelivery",
            f"{ref.id}'s delivery record does not match its event",
        ]
        other = refund(gate, {"customer": "c2", "amount_cents": 5}, call_id="call_b")
        (tmp_path / "job-17" / "deliveries" / other.id).write_text("{}")
        assert f"{other.id} has a delivery record but no delivery event" in gate.verify("job-17")


@pytest.mark.parametrize("plant", ["folder", "link", "junk"])
def test_anything_in_a_delivery_records_place_counts_as_delivered(
    tmp_path: Path, plant: str
) -> None:
    """Fail closed: whatever holds the place, the approval is not delivered again."""
    with hg.Gate(tmp_path) as gate:
        ref = refund(gate, {"customer": "c1", "amount_cents": 500})
        gate.decide("job-17", ref, "approve", reviewer="ops@host")
        place = tmp_path / "job-17" / "deliveries" / ref.id
        place.parent.mkdir()
        if plant == "folder":
            place.mkdir()
        elif plant == "link":
            place.symlink_to(tmp_path / "elsewhere")
        else:
            place.write_bytes(b"\x1b[31mnot a record")
        assert gate.wait("job-17", ref, timeout=0).outcome is hg.WaitOutcome.ALREADY_DELIVERED
        assert gate.standing("job-17", ref).delivered == "unknown"
    assert not (tmp_path / "elsewhere").exists()
