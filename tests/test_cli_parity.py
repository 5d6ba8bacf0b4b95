"""What a shell or TypeScript pipeline needs from the CLI: idempotent submits, a
machine-readable wait result, and the digest, kind and tool of each listed handoff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_helpers import PLAN_BYTES, cli, lenient_plan_schema, submit, submit_lenient

import handoff_gate as hg
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import list_handoffs

WAIT_KEYS = {
    "outcome",
    "payload",
    "decision",
    "report",
    "dropped_keys",
    "defaulted",
    "edited",
    "edited_sha256",
    "original_sha256",
    "ended",
}
NOTE_CONTRACT = (
    "from pydantic import BaseModel\n"
    "class Note(BaseModel):\n"
    '    """A free-form note."""\n'
    "    text: str\n"
    "    tags: list[str] = []\n"
    'SCHEMAS = {"note/v1": Note}\n'
)


def _wait_json(run: Path, handoff_id: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    done = cli("wait", str(run), handoff_id, "--json", "--timeout", "0", *extra)
    result: dict[str, Any] = json.loads(done.stdout)
    assert set(result) == WAIT_KEYS
    return done.returncode, result, done.stderr


def _with_extra_key(run: Path) -> str:
    """A plan with a key its contract does not name (and does not forbid)."""
    plan = {**json.loads(PLAN_BYTES), "internal_notes": "not for the designer"}
    return submit_lenient(run, json.dumps(plan).encode())


def test_submit_with_an_idempotency_key_stores_once(tmp_path: Path) -> None:
    args = ("submit", str(tmp_path), "--phase", "plan", "--schema", "plan/v1")
    first = cli(*args, "--idempotency-key", "job-9:plan:1", "-", stdin=PLAN_BYTES)
    again = cli(*args, "--idempotency-key", "job-9:plan:1", "-", stdin=PLAN_BYTES)
    assert first.returncode == again.returncode == 0
    assert first.stdout == again.stdout == "0001-plan\n"
    other = cli(*args, "--idempotency-key", "job-9:plan:1", "-", stdin=PLAN_BYTES + b" ")
    assert other.returncode == 2
    assert "other bytes" in other.stderr
    assert [ref.id for ref in list_handoffs(tmp_path)] == ["0001-plan"]


def test_submit_refuses_an_empty_or_multi_line_idempotency_key(tmp_path: Path) -> None:
    for bad in ("", "  ", "a\nb", "k" * 201):
        done = cli(
            "submit", str(tmp_path), "--phase", "plan", "--schema", "plan/v1",
            "--idempotency-key", bad, "-", stdin=PLAN_BYTES,
        )  # fmt: skip
        assert done.returncode == 2
        assert "--idempotency-key" in done.stderr
    assert not (tmp_path / "handoffs").exists()


def test_wait_json_on_approval_names_the_dropped_keys(tmp_path: Path) -> None:
    hid = _with_extra_key(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve", "--reviewer", "ops:alice").returncode == 0
    code, result, _ = _wait_json(tmp_path, hid)
    assert code == 0
    assert result["outcome"] == "approved"
    assert "internal_notes" not in result["payload"]
    assert result["payload"] == json.loads(PLAN_BYTES)
    assert result["dropped_keys"] == ["internal_notes"]
    assert result["defaulted"] == []
    assert result["decision"]["reviewer"] == "ops:alice"
    assert result["report"]["verdict"] == "approvable"


def test_wait_json_on_approval_names_the_defaulted_fields(tmp_path: Path) -> None:
    spec = tmp_path / "contracts.py"
    spec.write_text(NOTE_CONTRACT)
    run = tmp_path / "run"
    args = ("--schemas", str(spec))
    done = cli("submit", str(run), "--phase", "note", "--schema", "note/v1", *args, "-",
               stdin=b'{"text": "hello"}')  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert cli("decide", str(run), "0001-note", "approve", *args).returncode == 0
    code, result, _ = _wait_json(run, "0001-note", *args)
    assert code == 0
    assert result["payload"] == {"text": "hello", "tags": []}
    assert result["defaulted"] == ["tags"]
    assert result["dropped_keys"] == []


def test_wait_json_on_reject_carries_the_whole_reason_and_no_payload(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    reason = "scope: too wide\nsecond line: name one risk"
    decided = cli(
        "decide", str(tmp_path), hid, "reject", "--reason", reason, "--reviewer", "ops:alice"
    )
    assert decided.returncode == 0, decided.stderr
    code, result, _ = _wait_json(tmp_path, hid)
    assert code == 1
    assert result["outcome"] == "rejected"
    assert result["payload"] is None
    assert result["decision"]["reason"] == reason
    assert result["decision"]["reviewer"] == "ops:alice"


def test_wait_json_on_timeout_and_changed_keeps_the_exit_codes(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    code, result, _ = _wait_json(tmp_path, hid)
    assert (code, result["outcome"], result["payload"], result["decision"]) == (
        3, "timeout", None, None,
    )  # fmt: skip
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    path = tmp_path / "handoffs" / f"{hid}.json"
    path.write_bytes(path.read_bytes() + b" ")
    code, result, _ = _wait_json(tmp_path, hid)
    assert (code, result["outcome"], result["payload"]) == (4, "changed", None)
    assert result["decision"]["action"] == "approve"


def test_wait_json_with_out_writes_the_payload_there_and_the_result_on_stdout(
    tmp_path: Path,
) -> None:
    hid = _with_extra_key(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    out = tmp_path / "approved.json"
    code, result, _ = _wait_json(tmp_path, hid, "--out", str(out))
    assert code == 0
    # The same text plain `wait` writes and the TUI's delivered view shows.
    plain = cli("wait", str(tmp_path), hid)
    assert out.read_text() == plain.stdout
    assert json.loads(out.read_text()) == result["payload"]


def test_wait_json_with_out_to_stdout_is_a_usage_error(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    done = cli("wait", str(tmp_path), hid, "--json", "--out", "-", "--timeout", "0")
    assert done.returncode == 2
    assert done.stdout == ""


def test_list_json_adds_the_sha256_kind_and_tool(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    (row,) = json.loads(cli("list", str(tmp_path), "--json").stdout)
    shown = json.loads(cli("show", str(tmp_path), hid, "--json").stdout)
    assert row["sha256"] == shown["report"]["sha256"]
    assert len(row["sha256"]) == 64
    assert row["kind"] == "output"
    assert row["tool"] is None


def test_wait_result_tells_exactly_as_sent_from_after_keys_were_dropped(tmp_path: Path) -> None:
    registry = load_registry("")
    schema, sid = lenient_plan_schema(), "lenient_plan/v1"
    exact = hg.submit(tmp_path, PLAN_BYTES, phase="plan", schema_id=sid, json_schema=schema)
    plan = {**json.loads(PLAN_BYTES), "internal_notes": "x"}
    trimmed = hg.submit(tmp_path, json.dumps(plan), phase="plan", schema_id=sid, json_schema=schema)
    for ref in (exact, trimmed):
        hg.decide(tmp_path, ref, "approve", registry=registry)
    as_sent = hg.wait(tmp_path, exact, timeout=0)
    dropped = hg.wait(tmp_path, trimmed, timeout=0)
    assert as_sent.payload == dropped.payload
    assert (as_sent.dropped_keys, as_sent.defaulted) == ((), ())
    assert (dropped.dropped_keys, dropped.defaulted) == (("internal_notes",), ())


def test_list_json_names_a_tool_call_and_its_tool(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"amount": {"type": "integer"}}}
    with hg.Gate(tmp_path) as gate:
        gate.submit_tool_call(
            "job-1", tool="send_refund", args={"amount": 5}, call_id="call_a",
            json_schema=schema, agent="support",
        )  # fmt: skip
    (row,) = json.loads(cli("list", str(tmp_path / "job-1"), "--json").stdout)
    assert row["kind"] == "tool_call"
    assert row["tool"] == {"name": "send_refund", "call_id": "call_a", "agent": "support"}


def test_wait_json_says_an_edit_was_delivered_and_names_both_digests(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    edited = {**json.loads(PLAN_BYTES), "problem_statement": "Estimate churn by cohort"}
    hg.decide(tmp_path, hid, "approve", edited_payload=edited, registry=load_registry(""))
    code, result, _ = _wait_json(tmp_path, hid)
    assert code == 0
    assert result["edited"] is True
    assert result["payload"]["problem_statement"] == "Estimate churn by cohort"
    assert result["original_sha256"] == result["report"]["sha256"]
    assert result["edited_sha256"] not in (None, result["original_sha256"])


def test_wait_json_of_a_withdrawn_handoff_says_who_ended_it(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    done = cli("withdraw", str(tmp_path), hid, "--reason", "job cancelled")
    assert done.returncode == 0, done.stderr
    code, result, _ = _wait_json(tmp_path, hid)
    assert (code, result["outcome"], result["payload"]) == (6, "withdrawn", None)
    assert "job cancelled" in result["ended"]
    assert result["edited"] is False
