"""``handoff-gate hook claude-code|codex|gemini RUN``: each coding agent's hook, run as the
agent runs it (the command from docs/integration.md's settings snippet, through ``sh``,
with the agent's documented event on stdin) while a reviewer decides in another process
with ``handoff-gate decide`` (issue 32)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from shlex import quote
from typing import Any

import psycopg
import pytest
from cli_helpers import cli

from handoff_gate.gates.contracts.json_schema import contract_from_json_schema
from handoff_gate.gates.store.postgres_schema import init_schema
from handoff_gate.schemas import HARNESS_TOOLS

REPO = Path(__file__).resolve().parent.parent
EVENTS = Path(__file__).parent / "hook_events"
BOUND = 60.0
AGENTS = ("claude-code", "codex", "gemini")
#: Each agent's event file, and the run its snippet submits to.
EVENT = {
    "claude-code": "claude_code_pre_tool_use.json",
    "codex": "codex_pre_tool_use.json",
    "gemini": "gemini_before_tool.json",
}
RUN = {"claude-code": "runs/claude-code", "codex": "runs/codex", "gemini": "runs/gemini"}
#: The project folder the page's snippets are written for.
DOC_PROJECT = "/home/me/project"


def snippet_commands() -> dict[str, str]:
    """The hook command each agent's settings snippet in docs/integration.md runs."""
    text = (REPO / "docs" / "integration.md").read_text()
    start = text.index("## Coding agents:")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"```(json|toml)\n(.*?)```", section, re.S)
    (claude, gemini) = [json.loads(body) for kind, body in blocks if kind == "json"]
    (codex,) = [tomllib.loads(body) for kind, body in blocks if kind == "toml"]
    commands = {
        "claude-code": claude["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "codex": codex["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "gemini": gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
    }
    # The page's project is /home/me/project; here it is the test's folder (the hook runs
    # there) with this interpreter's handoff-gate.
    gate = quote(str(Path(sys.executable).absolute().parent / "handoff-gate"))
    return {
        agent: command.replace(f"{DOC_PROJECT}/.venv/bin/handoff-gate", gate).replace(
            f"{DOC_PROJECT}/", ""
        )
        for agent, command in commands.items()
    }


COMMANDS = snippet_commands()


def event(agent: str, name: str | None = None, **tool_input: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / (name or EVENT[agent])).read_text())
    if tool_input:
        data["tool_input"] = tool_input
    return data


def start(
    cwd: Path, agent: str, data: dict[str, Any] | bytes, *extra: str
) -> subprocess.Popen[str]:
    """The agent running its hook: the snippet's command through ``sh``, in the project."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    command = " ".join([COMMANDS[agent], *extra])
    hook = subprocess.Popen(
        ["sh", "-c", command], cwd=cwd, env=env, text=True, start_new_session=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert hook.stdin is not None
    hook.stdin.write(raw.decode())
    hook.stdin.close()
    hook.stdin = None  # sent: communicate() only reads
    return hook


def stop(hook: subprocess.Popen[str]) -> None:
    """End a hook as an agent does, with SIGTERM to what it started: ``sh`` and the
    ``handoff-gate`` under it (killing ``sh`` alone left that one waiting for minutes)."""
    os.killpg(hook.pid, signal.SIGTERM)
    hook.communicate(timeout=BOUND)
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:  # until the group's last member is reaped
        try:
            os.killpg(hook.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError("a process of the hook outlived it")


def finish(hook: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = hook.communicate(timeout=BOUND)
    return hook.returncode, out, err


def kill(hook: subprocess.Popen[str]) -> None:
    """End the hook and everything under it at once (SIGKILL: no handler runs): the
    ``sh`` and the ``hook`` it started, each hook in a session of its own."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(hook.pid, signal.SIGKILL)
    hook.communicate(timeout=BOUND)


def blocked(run: Path) -> str:
    """The handoff the hook is waiting on, once its wait is registered."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        folder = run / "waiters"  # waiters/ID.PID, written through a hidden temp file
        waiting = list(folder.glob("[0-9]*.*")) if folder.is_dir() else []
        if waiting:
            return waiting[0].name.split(".")[0]
        time.sleep(0.05)
    raise AssertionError(f"no hook started waiting in {run}")


def decide(run: Path, handoff_id: str, *args: str) -> None:
    done = cli("decide", str(run), handoff_id, *args, "--reviewer", "alice")
    assert done.returncode == 0, done.stderr


def answer(out: str) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(out)
    return parsed


@pytest.mark.parametrize("agent", AGENTS)
def test_an_approved_call_is_allowed_in_the_agents_own_form(tmp_path: Path, agent: str) -> None:
    hook = start(tmp_path, agent, event(agent))
    run = tmp_path / RUN[agent]
    handoff_id = blocked(run)
    assert handoff_id == "0001-tool-call"
    row = json.loads(cli("list", str(run), "--json").stdout)[0]
    assert row["tool"]["agent"] == agent and row["state"] == "pending"
    decide(run, handoff_id, "approve")
    code, out, err = finish(hook)
    assert code == 0, err
    if agent == "claude-code":
        output = answer(out)["hookSpecificOutput"]
        assert output["hookEventName"] == "PreToolUse"
        assert output["permissionDecision"] == "allow" and "updatedInput" not in output
        assert "alice" in output["permissionDecisionReason"]
    elif agent == "codex":
        assert out == ""  # no objection: the only allow Codex's PreToolUse reads
    else:
        assert answer(out)["decision"] == "allow" and "hookSpecificOutput" not in answer(out)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_rejected_call_is_denied_with_the_reviewers_reason(tmp_path: Path, agent: str) -> None:
    hook = start(tmp_path, agent, event(agent))
    run = tmp_path / RUN[agent]
    decide(run, blocked(run), "reject", "--reason", "not on a friday")
    code, out, err = finish(hook)
    assert code == 0, err
    if agent == "gemini":
        assert answer(out)["decision"] == "deny"
        reason = answer(out)["reason"]
    else:
        output = answer(out)["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        reason = output["permissionDecisionReason"]
    assert "rejected" in reason and "not on a friday" in reason


@pytest.mark.parametrize("agent", AGENTS)
def test_an_edit_runs_as_edited_or_is_denied_where_the_agent_cannot(
    tmp_path: Path, agent: str
) -> None:
    sent = event(agent)
    hook = start(tmp_path, agent, sent)
    run = tmp_path / RUN[agent]
    handoff_id = blocked(run)
    edited = {**sent["tool_input"]}
    key = "command" if agent == "codex" else "content"
    edited[key] = "git push origin release" if agent == "codex" else "release on monday\n"
    edit = tmp_path / "edit.json"
    edit.write_text(json.dumps(edited))
    decide(run, handoff_id, "approve", "--edit", str(edit))
    code, out, err = finish(hook)
    assert code == 0, err
    if agent == "gemini":
        assert answer(out)["decision"] == "allow"
        assert answer(out)["hookSpecificOutput"]["tool_input"] == edited
    else:  # Claude Code and Codex 0.171 both run updatedInput
        output = answer(out)["hookSpecificOutput"]
        assert output["permissionDecision"] == "allow" and output["updatedInput"] == edited
        assert "with an edit" in output["permissionDecisionReason"]


def test_gemini_is_denied_an_edit_that_would_remove_an_argument(tmp_path: Path) -> None:
    """Gemini merges the hook's arguments into the model's: a key an edit removed would
    stay, so such an approval is a deny naming the key."""
    sent = event("gemini", None, file_path="/tmp/n.txt", content="x", mode="0777")
    hook = start(tmp_path, "gemini", sent)
    run = tmp_path / RUN["gemini"]
    edit = tmp_path / "edit.json"
    edit.write_text(json.dumps({"file_path": "/tmp/n.txt", "content": "x"}))
    decide(run, blocked(run), "approve", "--edit", str(edit))
    code, out, _ = finish(hook)
    assert code == 0 and answer(out)["decision"] == "deny"
    assert "cannot remove mode" in answer(out)["reason"]


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_a_plain_approval_runs_the_call_as_sent_with_a_key_the_contract_does_not_name(
    tmp_path: Path, agent: str
) -> None:
    """Nothing is dropped without an edit: the reviewer sees the key flagged on its
    field, and the approval runs the model's own arguments (no ``updatedInput``)."""
    sent = event(agent, None, file_path="/tmp/n.txt", content="x", mode="0777")
    hook = start(tmp_path, agent, sent)
    run = tmp_path / RUN[agent]
    handoff_id = blocked(run)
    shown = cli("show", str(run), handoff_id).stdout
    assert "unnamed_key" in shown and "mode" in shown  # flagged on the field
    decide(run, handoff_id, "approve")
    code, out, err = finish(hook)
    assert code == 0, err
    if agent == "claude-code":
        output = answer(out)["hookSpecificOutput"]
        assert output["permissionDecision"] == "allow" and "updatedInput" not in output
    else:
        assert answer(out)["decision"] == "allow" and "hookSpecificOutput" not in answer(out)


def denied_reason(agent: str, out: str) -> str:
    """The reason of the agent's own deny answer (failing unless it is a deny)."""
    if agent == "gemini":
        assert answer(out)["decision"] == "deny"
        return str(answer(out)["reason"])
    output = answer(out)["hookSpecificOutput"]
    if output["hookEventName"] == "PermissionRequest":
        assert output["decision"]["behavior"] == "deny"
        return str(output["decision"]["message"])
    assert output["permissionDecision"] == "deny"
    return str(output["permissionDecisionReason"])


@pytest.mark.parametrize("agent", AGENTS)
def test_nobody_deciding_in_time_is_a_deny_and_withdraws(tmp_path: Path, agent: str) -> None:
    code, out, err = finish(start(tmp_path, agent, event(agent), "--timeout", "5"))
    assert code == 0, err
    assert "no reviewer decided within 5 s" in denied_reason(agent, out)
    run = tmp_path / RUN[agent]
    (row,) = json.loads(cli("list", str(run), "--json").stdout)
    assert row["state"] == "withdrawn"
    late = cli("decide", str(run), row["id"], "approve")
    assert late.returncode == 1  # an approval after the agent moved on runs nothing


def test_arguments_the_contract_refuses_are_denied_without_asking_anyone(tmp_path: Path) -> None:
    code, out, err = finish(start(tmp_path, "claude-code", event("claude-code", None, path="x")))
    assert code == 0, err
    output = answer(out)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert "file_path: required but missing" in reason and "content" in reason


@pytest.mark.parametrize(
    ("stdin", "says"),
    [
        (b"", "not JSON"),
        (b"{\"session_id\": ", "not JSON"),
        (b"[]", "not a JSON object"),
        (b'{"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",'
         b' "tool_input": {}}', "not 'PostToolUse'"),
        (b'{"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",'
         b' "tool_input": "ls"}', "tool_input is not an object"),
        (b'{"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "",'
         b' "tool_input": {}}', "no tool_name"),
        (b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}',
         "no session_id"),
        (b'{"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",'
         b' "tool_input": {"command": "ls", "command": "rm -rf /"}}', "'command' twice"),
    ],
)  # fmt: skip
def test_an_event_the_agent_would_not_send_blocks_with_one_line(
    tmp_path: Path, stdin: bytes, says: str
) -> None:
    code, out, err = finish(start(tmp_path, "claude-code", stdin))
    assert code == 2 and out == ""
    assert says in err and err.count("\n") == 1 and "the call is blocked" in err
    assert not (tmp_path / RUN["claude-code"]).exists()  # nothing was submitted


@pytest.mark.parametrize("agent", AGENTS)
def test_an_unreachable_store_blocks(tmp_path: Path, agent: str) -> None:
    env_store = "postgresql://handoff@127.0.0.1:1/nowhere?connect_timeout=2"
    command = COMMANDS[agent].replace("handoff-gate ", f"handoff-gate --store '{env_store}' ", 1)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["sh", "-c", command], cwd=tmp_path, env=env, input=json.dumps(event(agent)),
        capture_output=True, text=True, timeout=BOUND,
    )  # fmt: skip
    assert done.returncode == 2
    assert "the call is blocked" in denied_reason(agent, done.stdout)  # the agent's own deny too
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("handoff-gate")


def test_a_run_that_cannot_be_made_blocks(tmp_path: Path) -> None:
    (tmp_path / "runs").write_text("a file where the runs folder should be")
    code, out, err = finish(start(tmp_path, "codex", event("codex")))
    assert code == 2 and err.count("\n") == 1
    assert "the call is blocked" in denied_reason("codex", out)


def test_the_same_event_again_gets_the_same_decision_and_no_new_handoff(tmp_path: Path) -> None:
    run = tmp_path / RUN["claude-code"]
    first = start(tmp_path, "claude-code", event("claude-code"))
    decide(run, blocked(run), "reject", "--reason", "not on a friday")
    told = answer(finish(first)[1])["hookSpecificOutput"]
    assert told["permissionDecisionReason"].endswith("0001-tool-call: not on a friday")
    again = answer(finish(start(tmp_path, "claude-code", event("claude-code")))[1])
    assert again["hookSpecificOutput"] == told  # the same decision, word for word
    assert len(json.loads(cli("list", str(run), "--json").stdout)) == 1


def test_an_approval_runs_once_however_often_the_event_is_sent(tmp_path: Path) -> None:
    run = tmp_path / RUN["gemini"]
    first = start(tmp_path, "gemini", event("gemini"))
    decide(run, blocked(run), "approve")
    assert answer(finish(first)[1])["decision"] == "allow"
    again = answer(finish(start(tmp_path, "gemini", event("gemini")))[1])
    assert again["decision"] == "deny" and "runs only once" in again["reason"]
    later = {**event("gemini"), "timestamp": "2026-12-04T09:16:40.002Z"}  # the call made again
    hook = start(tmp_path, "gemini", later)
    assert blocked_new(run) == "0002-tool-call"
    stop(hook)


def blocked_new(run: Path) -> str:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        if (run / "handoffs" / "0002-tool-call.json").exists():
            return "0002-tool-call"
        time.sleep(0.05)
    raise AssertionError("the call made again was not submitted")


def test_an_mcp_tool_is_shown_and_delivered_whole(tmp_path: Path) -> None:
    args = {"owner": "acme", "repo": "site", "title": "Broken link", "labels": ["bug"]}
    sent = {**event("claude-code"), "tool_name": "mcp__github__create_issue", "tool_input": args}
    hook = start(tmp_path, "claude-code", sent)
    run = tmp_path / RUN["claude-code"]
    handoff_id = blocked(run)
    shown = cli("show", str(run), handoff_id).stdout
    assert "open_key" in shown and "Broken link" in shown
    decide(run, handoff_id, "approve")
    output = answer(finish(hook)[1])["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow" and "updatedInput" not in output


@pytest.mark.parametrize(
    ("agent", "name"),
    [("claude-code", "claude_code_permission_request.json"),
     ("codex", "codex_permission_request.json")],
)  # fmt: skip
def test_a_permission_request_is_answered_with_a_behavior(
    tmp_path: Path, agent: str, name: str
) -> None:
    hook = start(tmp_path, agent, event(agent, name))
    run = tmp_path / RUN[agent]
    handoff_id = blocked(run)
    call_id = json.loads(cli("list", str(run), "--json").stdout)[0]["tool"]["call_id"]
    assert re.fullmatch("event-[0-9a-f]{32}", call_id)  # the event sends no call id
    decide(run, handoff_id, "approve")
    output = answer(finish(hook)[1])["hookSpecificOutput"]
    assert output == {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
    undecided = finish(start(tmp_path, agent, event(agent, name, command="ls"), "--timeout", "5"))
    assert undecided[0] == 0  # nobody decided: an explicit deny, never no decision
    assert "no reviewer decided" in denied_reason(agent, undecided[1])


def test_claude_code_hands_over_to_its_own_prompt_only_when_told(tmp_path: Path) -> None:
    told = start(
        tmp_path, "claude-code", event("claude-code"), "--timeout", "5", "--on-timeout", "ask"
    )
    code, out, err = finish(told)
    assert code == 0, err
    output = answer(out)["hookSpecificOutput"]
    assert output["permissionDecision"] == "ask"
    assert "no reviewer decided within 5 s" in output["permissionDecisionReason"]
    name = "claude_code_permission_request.json"
    asked = start(tmp_path, "claude-code", event("claude-code", name), "--timeout", "5",
                  "--on-timeout", "ask")  # fmt: skip
    assert finish(asked)[:2] == (0, "")  # no decision: its own dialog shows


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_on_timeout_ask_is_refused_where_the_agent_has_no_prompt(
    tmp_path: Path, agent: str
) -> None:
    code, out, err = finish(start(tmp_path, agent, event(agent), "--on-timeout", "ask"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--on-timeout ask" in err and "the call is blocked" in err
    assert not (tmp_path / RUN[agent]).exists()  # nothing was submitted


def test_the_hook_works_on_a_database_store(tmp_path: Path, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    hook = subprocess.Popen(
        ["handoff-gate", "--store", pg_url, "hook", "codex", "job-1"],
        cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert hook.stdin is not None
    hook.stdin.write(json.dumps(event("codex")))
    hook.stdin.close()
    hook.stdin = None
    deadline = time.monotonic() + BOUND
    waiting: list[dict[str, Any]] = []
    while not waiting and time.monotonic() < deadline:
        listed = cli("--store", pg_url, "list", "--json")
        rows = json.loads(listed.stdout) if listed.returncode == 0 else []
        waiting = [row for row in rows if row["state"] == "pending"]  # no waiter records here
        time.sleep(0.1)
    if not waiting:
        hook.kill()
        raise AssertionError(f"the hook never submitted: {hook.communicate()}")
    done = cli("--store", pg_url, "decide", "job-1", waiting[0]["id"], "reject", "--reason", "no")
    assert done.returncode == 0, done.stderr
    out, err = hook.communicate(timeout=BOUND)
    assert hook.returncode == 0, err
    assert answer(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize("name", ["claude_code.json", "codex.json", "gemini.json"])
def test_every_shipped_tool_contract_is_one_the_gate_accepts(name: str) -> None:
    tools = json.loads((HARNESS_TOOLS / name).read_text())["tools"]
    assert tools
    for tool, spec in tools.items():
        assert spec["description"], tool
        schema = spec["input_schema"]
        contract_from_json_schema(schema)
        for field, about in schema["properties"].items():
            assert about.get("description"), f"{tool}.{field} has no description"


def test_a_codex_command_that_opens_a_shell_is_denied_without_asking_anyone(
    tmp_path: Path,
) -> None:
    """What the model would type into it later (``write_stdin``) fires no hook."""
    code, out, err = finish(start(tmp_path, "codex", event("codex", None, command="bash")))
    assert code == 0, err
    reason = denied_reason("codex", out)
    assert "interactive session" in reason and "write_stdin" in reason
    (row,) = json.loads(cli("list", str(tmp_path / RUN["codex"]), "--json").stdout)
    assert row["verdict"] == "blocked"
