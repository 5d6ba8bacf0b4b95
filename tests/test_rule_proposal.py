"""``gates.stats.proposal``: the rule a decision makes says no more than the call did,
none is made for a command the shell would do more with, and the proposals file is
appended to beside the policy, never through a link and never the policy itself."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from signed_policy import signed_policy

from handoff_gate.gates.rules.auto import parse_auto
from handoff_gate.gates.rules.judge import Subject, matches
from handoff_gate.gates.stats.proposal import (
    NO_POLICY_NAME,
    NoProposal,
    append_proposal,
    as_added,
    proposals_path,
    rule_like,
)
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.vocab.envelope import Envelope, ToolCall


def envelope(args: Any, tool: str = "Bash", agent: str | None = "claude-code") -> Envelope:
    return Envelope.model_validate(
        {
            "id": "0001-tool-call",
            "run": "job",
            "seq": 1,
            "phase": "tool-call",
            "schema": "tool/v1",
            "created": "2026-03-02T09:00:00Z",
            "kind": "tool_call",
            "tool": ToolCall(name=tool, call_id="c1", agent=agent).model_dump(exclude_none=True),
            "payload": args,
        }
    )


def subject(command: str, tool: str = "Bash", agent: str | None = "claude-code") -> Subject:
    return Subject("tool_call", "tool-call", tool, agent, {"command": command})


def test_the_rule_is_the_tool_the_agent_and_the_words() -> None:
    rule = rule_like(envelope({"command": "git  'status'", "description": "look"}))
    assert (rule.tool, rule.agent, rule.argv, rule.decide.value) == (
        "Bash",
        "claude-code",
        ("git", "status"),
        "approve",
    )
    assert matches(rule, subject("git status"))
    assert matches(rule, subject("git status --short"))  # the words start so
    assert not matches(rule, subject("git stash"))
    assert not matches(rule, subject("git status; rm -rf ~"))
    assert not matches(rule, subject("git status", agent="codex"))
    assert not matches(rule, subject("git status", tool="BashOutput"))
    (read_back,) = parse_auto(tomllib.loads(rule.to_toml())["auto"])
    assert read_back == rule


def test_glob_characters_in_a_tool_name_match_that_name_only() -> None:
    rule = rule_like(envelope({"command": "ls"}, tool="mcp*[x]?", agent=None))
    assert rule.agent is None
    assert matches(rule, subject("ls", tool="mcp*[x]?", agent=None))
    for other in ("mcpAx?", "mcp-anything[x]!", "mcpx"):
        assert not matches(rule, subject("ls", tool=other, agent=None)), other


@pytest.mark.parametrize(
    "command",
    [
        "git status && rm -rf ~",
        "git status; rm -rf ~",
        "git status | sh",
        "git status > /etc/passwd",
        "git status $(rm -rf ~)",
        "git status `id`",
        "X=1 git status",
        "git status\nrm -rf ~",
        "ls *",
        "ls ~",
        "(git status)",
        "git status &",
        "cat <<EOF\nx\nEOF",
        "'unterminated",
        "g" * 5000,
    ],
)
def test_no_rule_for_a_command_the_shell_would_do_more_with(command: str) -> None:
    with pytest.raises(NoProposal, match="not one simple command"):
        rule_like(envelope({"command": command}))


@pytest.mark.parametrize(
    ("args", "kind", "said"),
    [
        ({"file_path": "/etc/hosts"}, "tool_call", "no shell command"),
        ({"command": ["git", "status"]}, "tool_call", "no shell command"),
        ({"command": "ls"}, "output", "made from a tool call"),
    ],
)
def test_no_rule_without_a_shell_command(args: Any, kind: str, said: str) -> None:
    made = envelope(args)
    if kind == "output":
        made = made.model_copy(update={"kind": "output", "tool": None})
    with pytest.raises(NoProposal, match=said):
        rule_like(made)


def test_unsafe_characters_in_the_tool_name_make_no_rule() -> None:
    with pytest.raises(NoProposal, match="tool name"):
        rule_like(envelope({"command": "ls"}, tool="Bash\u202e"))


def test_proposals_go_beside_the_policy_or_the_runs(tmp_path: Path) -> None:
    made = signed_policy(tmp_path / "trust", phase="*")
    policy = Policy.load(made.policy)
    assert proposals_path(policy, tmp_path) == made.policy.with_name("policy.proposals.toml")
    assert proposals_path(None, tmp_path) == tmp_path / NO_POLICY_NAME
    with pytest.raises(NoProposal, match="--policy"):
        proposals_path(None, None)


def test_appending_keeps_what_was_there_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "policy.proposals.toml"
    path.write_text("# mine\n")
    first = rule_like(envelope({"command": "git status"}))
    second = rule_like(envelope({"command": "ls -la"}))
    append_proposal(path, first, "from job 0001\nby ana\u202e", None)
    append_proposal(path, second, "from job 0002", None)
    text = path.read_text()
    assert text.startswith("# mine\n\n# from job 0001\n# by ana\\u202e\n[[auto]]\n")
    assert text.isascii()
    assert parse_auto(tomllib.loads(text)["auto"]) == (first, second)


def test_a_link_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.toml"
    target.write_text("kept\n")
    path = tmp_path / "policy.proposals.toml"
    os.symlink(target, path)
    with pytest.raises(NoProposal, match="symbolic link"):
        append_proposal(path, rule_like(envelope({"command": "ls"})), "x", None)
    assert target.read_text() == "kept\n"


def test_the_policy_and_its_signers_are_never_the_proposals_file(tmp_path: Path) -> None:
    made = signed_policy(tmp_path / "trust", phase="*")
    policy = Policy.load(made.policy)
    before = made.policy.read_bytes()
    hard = tmp_path / "trust" / "policy.proposals.toml"
    os.link(made.policy, hard)  # the same file under the proposals' name
    for path in (hard, policy.signers_path):
        with pytest.raises(NoProposal, match="policy's own file"):
            append_proposal(path, rule_like(envelope({"command": "ls"})), "x", policy)
    assert made.policy.read_bytes() == before


def test_as_added_says_what_else_the_policy_needs(tmp_path: Path) -> None:
    made = signed_policy(tmp_path / "trust", phase="*")
    policy = Policy.load(made.policy)
    rule = rule_like(envelope({"command": "ls"}))
    added, also = as_added(policy, rule)
    assert also == "the [[rule]] for '*' must also say auto = true"
    assert added is not None and added.auto == (rule,)
    assert all(r.auto for r in added.rules) and not any(r.auto for r in policy.rules)
    plan_only = signed_policy(tmp_path / "plan", phase="plan")
    _, missing = as_added(Policy.load(plan_only.policy), rule)
    assert missing == "a [[rule]] for 'tool-call' saying auto = true must be added (none covers it)"
    alone, needed = as_added(None, rule)
    assert alone is None and needed.endswith("(there is no policy yet)")
