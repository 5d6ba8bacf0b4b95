"""The ``handoff-gate`` command as a pipeline runs it: through ``main``, in-process
(``cli_helpers.cli``); a blocking ``wait`` and a broken pipe in real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import cli, python_stdout, submit_lenient

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.durable import atomic_write
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.schemas import example_path

PLAN_BYTES = example_path("plan/v1").read_bytes()
PLAN = json.loads(PLAN_BYTES)
BOUND = 60


def _submit(run: Path, payload: bytes = PLAN_BYTES, *extra: str) -> str:
    done = cli(
        "submit", str(run), "--phase", "plan", "--schema", "plan/v1", *extra, "-", stdin=payload
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_submit_wait_decide_delivers_the_approved_payload(tmp_path: Path) -> None:
    hid = submit_lenient(tmp_path, json.dumps({**PLAN, "scratch": "internal"}).encode())
    assert hid == "0001-plan"
    waiter = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "handoff_gate.cli",
            "wait",
            str(tmp_path),
            hid,
            "--timeout",
            "60",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    decided = cli("decide", str(tmp_path), hid, "approve", "--reviewer", "ana")
    assert decided.returncode == 0, decided.stderr
    out, err = waiter.communicate(timeout=BOUND)
    assert waiter.returncode == 0, err
    assert json.loads(out) == PLAN
    events = [e["event"] for e in audit.read_events(tmp_path, FilesystemStore())]
    assert events == ["handoff_submitted", "decision_written", "wait_returned"]
    assert audit.verify_chain(tmp_path, FilesystemStore()) == []


def test_wait_can_write_the_payload_to_a_file(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    target = tmp_path / "approved.json"
    done = cli("wait", str(tmp_path), hid, "--out", str(target))
    assert (done.returncode, done.stdout) == (0, "")
    assert json.loads(target.read_text()) == PLAN


def test_a_rejection_exits_1_with_the_reason(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    done = cli(
        "decide", str(tmp_path), hid, "reject", "--reason", "wrong quarter", "--category", "wrong"
    )
    assert done.returncode == 0
    waited = cli("wait", str(tmp_path), hid, "--timeout", "5")
    assert waited.returncode == 1
    assert waited.stdout == ""
    assert "wrong quarter" in waited.stderr


def test_wait_times_out_with_3_and_delivers_nothing(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    done = cli("wait", str(tmp_path), hid, "--timeout", "0.1")
    assert (done.returncode, done.stdout) == (3, "")


def test_a_handoff_edited_after_approval_makes_wait_exit_4(tmp_path: Path) -> None:
    hid = _submit(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    path = tmp_path / "handoffs" / f"{hid}.json"
    envelope = json.loads(path.read_text())
    envelope["raw"] = json.dumps({**PLAN, "risks": []})
    atomic_write(path, json.dumps(envelope).encode())
    done = cli("wait", str(tmp_path), hid, "--timeout", "5")
    assert (done.returncode, done.stdout) == (4, "")
    assert "changed" in done.stderr


def test_decide_refusals_exit_1_with_a_message(tmp_path: Path) -> None:
    good = _submit(tmp_path)
    bad = _submit(tmp_path, b"I cannot help with this request.")
    no_reason = cli("decide", str(tmp_path), good, "reject")
    assert no_reason.returncode == 1
    assert "reason" in no_reason.stderr
    blocked = cli("decide", str(tmp_path), bad, "approve")
    assert blocked.returncode == 1
    assert "blocked" in blocked.stderr
    assert cli("decide", str(tmp_path), good, "approve", "--reviewer", "ana").returncode == 0
    again = cli("decide", str(tmp_path), good, "approve")
    assert again.returncode == 1
    assert "already approved by ana" in again.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["decide", "{run}", "../../etc", "approve"],
        ["decide", "{run}", "0001-plan", "maybe"],
        ["decide", "{run}/nowhere", "0001-plan", "approve"],
        ["decide", "{run}", "0001-plan", "approve", "--schemas", "{run}/missing.py"],
        ["wait", "{run}", "0009-plan", "--timeout", "1"],
        ["wait", "{run}", "0001-plan", "--timeout", "soon"],
        ["check", "{run}/missing.json"],
        ["schemas", "--json-schema", "nope/v1"],
        ["submit", "{run}", "--phase", "Bad Phase", "--schema", "plan/v1", "{run}/p.json"],
        ["submit", "{run}", "--schema", "plan/v1", "{run}/p.json"],
        ["frobnicate"],
        [],
    ],
)
def test_usage_and_io_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    _submit(tmp_path)
    (tmp_path / "p.json").write_bytes(PLAN_BYTES)
    done = cli(*[a.format(run=tmp_path) for a in args])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip()
    assert "Traceback" not in done.stderr


def test_check_reports_a_handoff_field_by_field(tmp_path: Path) -> None:
    good = _submit(tmp_path)
    bad = _submit(tmp_path, json.dumps({**PLAN, "research_questions": []}).encode())
    ok = cli("check", str(tmp_path / "handoffs" / f"{good}.json"))
    assert ok.returncode == 0, ok.stdout
    assert "APPROVABLE" in ok.stdout
    assert "problem_statement" in ok.stdout
    blocked = cli("check", str(tmp_path / "handoffs" / f"{bad}.json"))
    assert blocked.returncode == 1
    assert "research_questions" in blocked.stdout


def test_check_says_a_missing_field_is_absent_not_null(tmp_path: Path) -> None:
    payload = tmp_path / "brief.json"
    payload.write_text('{"brief": "timeout to vendor", "citations": ["log-17"]}')
    out = cli("check", str(payload), "--schema", "research_brief/v1").stdout
    row = next(line for line in out.splitlines() if line.strip().startswith("open_questions"))
    assert "[missing]" in row
    assert "(absent)" in row
    assert "null" not in row


def test_check_json_has_the_documented_shape(tmp_path: Path) -> None:
    payload = tmp_path / "payload.json"
    payload.write_bytes(PLAN_BYTES[:-40])
    done = cli("check", str(payload), "--schema", "plan/v1", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["verdict"] == "blocked"
    assert report["schema"] == "plan/v1"
    codes = {f["code"] for f in report["findings"]}
    assert "truncated" in codes
    for finding in report["findings"]:
        assert set(finding) == {"code", "path", "severity", "message"}
        assert finding["severity"] in {"block", "warn"}


def test_check_never_prints_terminal_controls_from_the_payload(tmp_path: Path) -> None:
    payload = tmp_path / "payload.json"
    evil = {**PLAN, "problem_statement": "ok\x1b]0;pwned\x07 \u202eevil\x1b[2J", "x\x1b[31m": 1}
    payload.write_text(json.dumps(evil, ensure_ascii=False))
    for args in (
        ["check", str(payload), "--schema", "plan/v1"],
        ["check", str(payload), "--schema", "plan/v1", "--json"],
    ):
        done = cli(*args)
        assert done.returncode == 1
        for bad in ("\x1b", "\x07", "\u202e", "\x9b"):
            assert bad not in done.stdout + done.stderr
    assert "⟨ESC⟩" in cli("check", str(payload), "--schema", "plan/v1").stdout


def _note_spec(tmp_path: Path) -> Path:
    spec = tmp_path / "my_contracts.py"
    spec.write_text(
        "from pydantic import BaseModel\n"
        "class Note(BaseModel):\n"
        '    """A free-form note."""\n'
        "    text: str\n"
        "    tags: list[str] = []\n"
        'SCHEMAS = {"note/v1": Note}\n'
    )
    return spec


def test_user_contracts_load_with_schemas(tmp_path: Path) -> None:
    spec = _note_spec(tmp_path)
    listed = cli("schemas", "--schemas", str(spec))
    assert listed.returncode == 0
    assert "note/v1" in listed.stdout
    assert "plan/v1" in listed.stdout
    payload = tmp_path / "note.json"
    payload.write_text('{"text": "hello"}')
    done = cli("check", str(payload), "--schema", "note/v1", "--schemas", str(spec), "--json")
    assert done.returncode == 0, done.stdout
    assert "defaulted_field" in {f["code"] for f in json.loads(done.stdout)["findings"]}


def test_schemas_prints_a_strict_json_schema(tmp_path: Path) -> None:
    done = cli("schemas", "--json-schema", "plan/v1")
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(schema["properties"])


def test_unsigned_pipeline_commands_load_neither_textual_nor_the_trust_code(tmp_path: Path) -> None:
    _submit(tmp_path)
    script = (
        "import sys, contextlib, io\n"
        "from handoff_gate.cli import main\n"
        f"run = {str(tmp_path)!r}\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "    codes = [main(['check', run + '/handoffs/0001-plan.json']),\n"
        "             main(['schemas']), main(['decide', run, '0001-plan', 'approve']),\n"
        "             main(['wait', run, '0001-plan', '--timeout', '0'])]\n"
        "assert codes == [0, 0, 0, 0], codes\n"
        "ui = ('textual', 'handoff_gate.tui')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ui or m.startswith(ui[1])))\n"
        "trust = ('cryptography', 'tomllib', 'handoff_gate.gates.trust.policy')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in trust or m in trust))\n"
    )
    out = python_stdout(script)
    assert out.split("\n")[:2] == ["[]", "[]"], "an unsigned step loaded UI or trust code"


def test_submit_loads_no_terminal_ui(tmp_path: Path) -> None:
    """A pipeline submits on every step: it must not pay for what only the review app
    needs. (It does inspect what it stored, to say BLOCKED and why: issue 41.)"""
    script = (
        "import sys, contextlib, io\n"
        "from handoff_gate.cli import main\n"
        f"args = ['submit', {str(tmp_path)!r}, '--phase', 'plan', '--schema', 'plan/v1',\n"
        f"        {str(example_path('plan/v1'))!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(args) == 0\n"
        "heavy = ('textual', 'handoff_gate.tui')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))\n"
    )
    out = python_stdout(script)
    assert out.strip() == "[]"
    assert [p.name for p in (tmp_path / "handoffs").glob("*.json")] == ["0001-plan.json"]


def test_wait_without_the_reviewers_contracts_delivers_nothing(tmp_path: Path) -> None:
    spec = _note_spec(tmp_path)
    run = tmp_path / "run"
    note = b'{"text": "hi", "tags": []}'
    args = ("submit", str(run), "--phase", "note", "--schema", "note/v1", "--schemas", str(spec))
    hid = cli(*args, "-", stdin=note).stdout.strip()
    assert cli("decide", str(run), hid, "approve", "--schemas", str(spec)).returncode == 0
    blind = cli("wait", str(run), hid, "--timeout", "5")
    assert (blind.returncode, blind.stdout) == (4, "")
    assert "unknown_schema" in blind.stderr
    assert "--schemas" in blind.stderr
    seeing = cli("wait", str(run), hid, "--timeout", "5", "--schemas", str(spec))
    assert seeing.returncode == 0
    assert json.loads(seeing.stdout) == {"text": "hi", "tags": []}


def test_submit_records_producer_signals_that_block(tmp_path: Path) -> None:
    cut = _submit(tmp_path, PLAN_BYTES, "--finish-reason", "length")
    refused = _submit(tmp_path, PLAN_BYTES, "--refusal", "I can't share that plan.")
    for hid, code in ((cut, "truncated"), (refused, "refusal")):
        done = cli("check", str(tmp_path / "handoffs" / f"{hid}.json"), "--json")
        assert done.returncode == 1
        assert code in {f["code"] for f in json.loads(done.stdout)["findings"]}


def test_submit_refuses_an_unknown_contract_unless_allowed(tmp_path: Path) -> None:
    """A handoff of a contract nobody knows can never be approved: refused by default."""
    args = ("submit", str(tmp_path), "--phase", "plan", "--schema", "plan/v9")
    refused = cli(*args, "-", stdin=PLAN_BYTES)
    assert refused.returncode == 2
    assert "unknown schema 'plan/v9'" in refused.stderr
    assert "--allow-unknown-schema" in refused.stderr
    assert not (tmp_path / "handoffs").exists()
    done = cli(*args, "--allow-unknown-schema", "-", stdin=PLAN_BYTES)
    assert done.returncode == 0
    assert "unknown schema" in done.stderr
    checked = cli("check", str(tmp_path / "handoffs" / f"{done.stdout.strip()}.json"))
    assert checked.returncode == 1
    assert "unknown_schema" in checked.stdout


def test_watch_and_demo_are_wired_to_their_entry_points(tmp_path: Path) -> None:
    missing = cli("watch", str(tmp_path / "missing"))
    assert missing.returncode == 2
    assert "not a directory" in missing.stdout + missing.stderr
    assert cli("demo", "--help").returncode == 0


def test_a_closed_pipe_ends_quietly_without_a_traceback() -> None:
    shell = f"{sys.executable} -m handoff_gate.cli schemas --json-schema plan/v1 | head -c 1"
    proc = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, timeout=60)
    assert proc.stdout == "{"
    assert "Traceback" not in proc.stderr
    assert "BrokenPipeError" not in proc.stderr


def test_help_lists_every_command_even_when_only_one_is_parsed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only the command being run gets its parser built; help must not notice."""
    from handoff_gate.cli.main import COMMANDS, main

    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    assert all(f"    {name} " in listing for name in COMMANDS)
    assert main(["--store", "postgresql://nowhere/db", "check", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: handoff-gate check")
    assert main(["-h", "check"]) == 0
    assert capsys.readouterr().out == listing
    assert main(["chek", "x"]) == 2
    assert "invalid choice: 'chek'" in capsys.readouterr().err
