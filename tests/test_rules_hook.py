"""Policy rules through the real hook command of each coding agent (run by ``sh`` as the
agent runs it), on a run folder and on a database, and through ``mcp-proxy``'s Gate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cli_helpers import cli
from rules_policy import rules_policy
from test_cli_hook import AGENTS, BOUND, RUN, answer, blocked, event, finish, start, stop

from handoff_gate.gates.store.postgres_schema import init_schema

#: The shell tool of each agent, and the argument its command is in.
SHELL_TOOL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
RULES = """
[[auto]]
name = "read-only git"
decide = "approve"
tool = "Bash"
argv = ["git", "status"]

[[auto]]
name = "read-only git, gemini"
decide = "approve"
tool = "run_shell_command"
agent = "gemini"
argv = ["git", "status"]

[[auto]]
name = "no rm"
decide = "reject"
tool = "*"
argv = ["rm"]
"""


def shell_event(agent: str, command: str, call: str = "call-1") -> dict[str, Any]:
    data = event(agent)
    data["tool_name"] = SHELL_TOOL[agent]
    data["tool_input"] = {"command": command}
    for key in ("tool_use_id", "call_id"):
        if key in data:
            data[key] = call
    return data


def listed(run: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(cli("list", str(run), "--json").stdout)
    return rows


@pytest.mark.parametrize("agent", AGENTS)
def test_a_rule_approves_in_the_agents_own_form(tmp_path: Path, agent: str) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    hook = start(tmp_path, agent, shell_event(agent, "git status --short"), "--policy", str(policy))
    code, out, err = finish(hook)
    assert code == 0, err
    if agent == "codex":
        assert out == ""  # no objection: the only allow Codex's PreToolUse reads
    elif agent == "claude-code":
        output = answer(out)["hookSpecificOutput"]
        assert output["permissionDecision"] == "allow"
        assert "rule read-only git" in output["permissionDecisionReason"]
    else:
        assert (
            answer(out)
            == {
                "decision": "allow",
                "reason": answer(out)["reason"],
            }
            and "rule read-only git, gemini" in answer(out)["reason"]
        )
    run = tmp_path / RUN[agent]
    [row] = listed(run)
    assert row["state"] == "approved" and row["reviewer"].startswith("rule read-only git")
    assert cli("audit", str(run), "--verify", "--policy", str(policy)).returncode == 0


@pytest.mark.parametrize("agent", AGENTS)
def test_a_reject_rule_denies_a_command_hidden_in_a_compound(tmp_path: Path, agent: str) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    command = "git status && bash -c 'rm -rf ~'"
    hook = start(tmp_path, agent, shell_event(agent, command), "--policy", str(policy))
    code, out, err = finish(hook)
    assert code == 0, err
    reason = json.dumps(answer(out))
    assert "rule 'no rm' rejected" in reason
    [row] = listed(tmp_path / RUN[agent])
    assert row["state"] == "rejected" and row["reviewer"] == "rule no rm"


def test_a_compound_command_waits_for_a_person(tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    data = shell_event("claude-code", "git status; git push --force")
    hook = start(tmp_path, "claude-code", data, "--policy", str(policy))
    run = tmp_path / RUN["claude-code"]
    try:
        assert blocked(run) == "0001-tool-call"  # waiting on a person
        [row] = listed(run)
        assert row["state"] == "pending" and row["reviewer"] is None
    finally:
        stop(hook)


def test_the_same_event_again_is_not_run_twice(tmp_path: Path) -> None:
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    data = shell_event("claude-code", "git status")
    outputs = []
    for _ in range(2):
        code, out, err = finish(start(tmp_path, "claude-code", data, "--policy", str(policy)))
        assert code == 0, err
        outputs.append(answer(out)["hookSpecificOutput"]["permissionDecision"])
    assert outputs == ["allow", "deny"]
    assert len(listed(tmp_path / RUN["claude-code"])) == 1


def test_a_rule_decides_through_the_hook_on_a_database(tmp_path: Path, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        init_schema(conn, roles=False)
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    hook = ["handoff-gate", "--store", pg_url, "hook", "codex", "job-1", "--policy", str(policy)]
    for command, expected in (("git status", ""), ("rm -rf /", "deny")):
        done = subprocess.run(
            hook, input=json.dumps(shell_event("codex", command, command)), cwd=tmp_path,
            env=env, capture_output=True, text=True, timeout=BOUND, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert expected in done.stdout and (expected or done.stdout == "")
    rows = json.loads(cli("--store", pg_url, "list", "--json").stdout)
    assert [(r["state"], r["reviewer"]) for r in rows] == [
        ("approved", "rule read-only git"),
        ("rejected", "rule no rm"),
    ]


def test_a_rule_decided_call_loads_no_waiting_half(tmp_path: Path) -> None:
    """The fast path (docs/performance.md): a call a rule decides is answered without the
    hook's waiting half (its wait, withdrawal and giving up); one nobody decides loads it."""
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    gate = str(Path(sys.executable).parent / "handoff-gate")
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    loaded = {}
    for command in ("git status", "git log"):
        done = subprocess.run(
            [gate, "hook", "claude-code", str(tmp_path / "run"), "--policy", str(policy),
             "--timeout", "5"],
            input=json.dumps(shell_event("claude-code", command, command)), env=env,
            capture_output=True, text=True, timeout=BOUND, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        loaded[command] = {
            line.rsplit("|", 1)[-1].strip()
            for line in done.stderr.splitlines()
            if line.startswith("import time:")
        }
    waiting = {
        "handoff_gate.integrations.coding_agent_hook",
        "handoff_gate.integrations.giving_up",
        "handoff_gate.integrations.tool_calls",
    }
    assert not waiting & loaded["git status"]
    assert waiting <= loaded["git log"]  # nobody decided it: the hook waited
