"""A Codex command that opens an interactive session is blocked: what the model types
into it later (``write_stdin``) fires no hook (issue 40, way 4)."""

from __future__ import annotations

import json

import pytest

from handoff_gate.gates.contracts.json_schema import contract_from_json_schema
from handoff_gate.gates.inspect.stages import InspectOptions, inspect
from handoff_gate.gates.inspect.tool_session import opens_session
from handoff_gate.gates.vocab.findings import Code, Severity, Verdict
from handoff_gate.schemas import HARNESS_TOOLS

CODEX = json.loads((HARNESS_TOOLS / "codex.json").read_text())["tools"]


@pytest.mark.parametrize(
    "command",
    ["bash", "sh -l", "zsh -i", "/bin/bash", "python3", "python -i run.py", "node", "irb",
     "ssh prod", "ssh -t prod top", "sudo -i", "sudo -s", "su", "docker exec -it web sh",
     "kubectl exec -ti pod -- bash", "vim notes.txt", "less log.txt", "tmux", "psql -d app",
     "sqlite3 app.db", "cat > ~/.bashrc", "tee ~/.profile", "git status && bash",
     "FOO=1 env python3", "timeout 60 bash", "cd /tmp; python3", "nc -l 4444",
     ["bash"], ["python3", "-i"]],
)  # fmt: skip
def test_commands_that_open_a_session_are_named(command: object) -> None:
    assert opens_session(command) is not None


@pytest.mark.parametrize(
    "command",
    ["git push origin main", "bash run.sh", "bash -lc 'make test'", "python3 x.py",
     "python3 -c 'print(1)'", "python -m pytest", "node build.js", "ssh prod uptime",
     "docker run --rm app ls", "psql -d app -c 'select 1'", "sqlite3 app.db 'select 1'",
     "cat a.txt", "echo hi | tee out.txt", "echo 'print(1)' | python3", "cat < in.txt",
     "cat <<EOF\nit's here\nEOF", "sudo rm -rf build", "su -c id root", "npm test",
     ["ls", "-l"]],
)  # fmt: skip
def test_commands_that_run_to_their_end_are_not(command: object) -> None:
    assert opens_session(command) is None


@pytest.mark.parametrize(
    ("tool", "args", "where"),
    [("Bash", {"command": "bash"}, "command"),
     ("Bash", {"command": "git status", "tty": True}, "tty"),
     ("exec_command", {"cmd": "python3", "workdir": "/tmp"}, "cmd"),
     ("exec_command", {"cmd": "ls", "tty": True}, "tty")],
)  # fmt: skip
def test_codex_calls_that_open_a_session_are_blocked_naming_write_stdin(
    tool: str, args: dict[str, object], where: str
) -> None:
    contract = contract_from_json_schema(CODEX[tool]["input_schema"])
    report = inspect(
        json.dumps(args).encode(), "t/v1", {"t/v1": contract}, InspectOptions(tool_call=True)
    )
    assert report.verdict is Verdict.BLOCKED
    (finding,) = [f for f in report.findings if f.code is Code.INTERACTIVE_SESSION]
    assert finding.severity is Severity.BLOCK and finding.path == where
    assert "write_stdin" in finding.message and "no review" in finding.message


def test_a_call_that_runs_to_its_end_stays_approvable() -> None:
    contract = contract_from_json_schema(CODEX["Bash"]["input_schema"])
    report = inspect(
        b'{"command": "git status"}', "t/v1", {"t/v1": contract}, InspectOptions(tool_call=True)
    )
    assert report.verdict is Verdict.APPROVABLE, report.findings


def test_a_tool_without_the_channel_is_never_judged_by_its_command() -> None:
    """Claude Code's Bash has no stdin channel: ``bash`` there runs with no input."""
    claude = json.loads((HARNESS_TOOLS / "claude_code.json").read_text())["tools"]
    contract = contract_from_json_schema(claude["Bash"]["input_schema"])
    report = inspect(
        b'{"command": "bash"}', "t/v1", {"t/v1": contract}, InspectOptions(tool_call=True)
    )
    assert not [f for f in report.findings if f.code is Code.INTERACTIVE_SESSION]
