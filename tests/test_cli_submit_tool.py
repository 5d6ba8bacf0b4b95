"""``handoff-gate submit RUN --tool NAME --call-id ID ... ARGS.json``: a tool call from the
command line, for shell hooks and pipelines in other languages (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli

ARGS = {"command": "ls -la", "timeout": 30, "options": {"cwd": "/tmp", "env": {"A": "1"}}}
SCHEMA = {
    "type": "object",
    "properties": {"command": {"type": "string", "description": "The command to run."}},
    "required": ["command"],
    "additionalProperties": False,
}


def _submit(run: Path, *extra: str, args: object = ARGS) -> tuple[int, str, str]:
    done = cli(
        "submit", str(run), "--tool", "Bash", "--call-id", "toolu_01", "--thread", "sess-1",
        "--agent", "claude-code", *extra, "-", stdin=json.dumps(args).encode(),
    )  # fmt: skip
    return done.returncode, done.stdout.strip(), done.stderr


def test_without_a_schema_every_argument_is_shown_and_delivered_as_sent(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "s1"
    code, hid, err = _submit(run)
    assert (code, hid) == (0, "0001-tool-call"), err
    (row,) = json.loads(cli("list", str(run), "--json").stdout)
    assert row["kind"] == "tool_call" and row["tool"]["name"] == "Bash"
    listed = cli("list", str(run)).stdout
    assert 'claude-code → Bash(command="ls -la", timeout=30' in listed and "[toolu_01]" in listed
    assert cli("decide", str(run), hid, "approve").returncode == 0
    waited = cli("wait", str(run), hid, "--timeout", "0")
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout) == ARGS  # never an empty delivery


def test_a_retry_of_the_same_call_finds_the_same_handoff_and_runs_once(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = _submit(run)
    again = _submit(run)
    assert first[1] == again[1] == "0001-tool-call"
    assert cli("decide", str(run), first[1], "approve").returncode == 0
    assert cli("wait", str(run), first[1], "--timeout", "0").returncode == 0
    assert cli("wait", str(run), first[1], "--timeout", "0").returncode == 7  # once
    other = _submit(run, args={**ARGS, "command": "rm -rf /"})
    assert other[1] == "0002-tool-call"  # the same call id with other arguments is new


def test_with_a_schema_its_fields_are_checked_and_an_extra_argument_blocks(
    tmp_path: Path,
) -> None:
    schema = tmp_path / "bash.schema.json"
    schema.write_text(json.dumps(SCHEMA))
    run = tmp_path / "run"
    code, hid, err = _submit(run, "--json-schema", str(schema), "--description", "Runs it.")
    assert code == 0, err
    shown = cli("show", str(run), hid).stdout
    assert "BLOCKED" in shown and "unknown_key  timeout" in shown
    assert "description Runs it." in shown
    code, hid, _ = _submit(run, "--json-schema", str(schema), args={"command": "ls"})
    assert "APPROVABLE" in cli("show", str(run), hid).stdout


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (("--tool", "Bash"), "--tool needs --call-id"),
        (("--tool", "Bash", "--call-id", "c", "--schema", "x/v1"), "--schema: a tool call"),
        (("--tool", "Bash", "--call-id", "c", "--refusal", "no"), "--refusal: not for a tool call"),
        (("--call-id", "c", "--phase", "plan", "--schema", "plan/v1"), "--call-id: only with"),
        ((), "required: --phase, --schema (or --tool NAME --call-id ID for a tool call)"),
    ],
)
def test_the_two_forms_take_only_their_own_options(
    tmp_path: Path, extra: tuple[str, ...], says: str
) -> None:
    done = cli("submit", str(tmp_path / "run"), *extra, "-", stdin=b"{}")
    assert done.returncode == 2
    assert done.stderr.startswith("handoff-gate submit: error: ")
    assert says in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()
