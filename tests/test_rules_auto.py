"""``[[auto]]`` tables: read strictly from the policy, written back as the same table."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from cli_helpers import cli
from signed_policy import signed_policy

from handoff_gate.gates.rules.auto import AutoRule, parse_auto
from handoff_gate.gates.rules.judge import Subject, rule_for, subject_of
from handoff_gate.gates.trust.policy import Policy, PolicyError
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.envelope import Envelope, ToolCall

READ_ONLY_GIT = """
[[auto]]
name = "read-only git"
decide = "approve"
tool = "Bash"
agent = "claude-code"
argv = ["git", "status"]
"""


def test_a_policy_reads_its_auto_tables(tmp_path: Path) -> None:
    policy = signed_policy(tmp_path, "tool-call").policy
    policy.write_text(policy.read_text() + "auto = true\n" + READ_ONLY_GIT)
    loaded = Policy.load(policy)
    assert loaded.auto == (
        AutoRule(
            name="read-only git", decide=Action.APPROVE, tool="Bash", agent="claude-code",
            argv=("git", "status"),
        ),
    )  # fmt: skip
    assert loaded.rules[0].auto is True


def test_an_approve_rule_needs_its_phase_to_allow_rules(tmp_path: Path) -> None:
    policy = signed_policy(tmp_path, "tool-call").policy
    policy.write_text(policy.read_text() + READ_ONLY_GIT)
    with pytest.raises(PolicyError, match=r"auto\[0\]: approves 'tool-call' handoffs.*auto = true"):
        Policy.load(policy)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"decide": "approve", "tool": "Bash"}, r"auto\[0\]\.name: must be the rule's name"),
        ({"name": "x", "decide": "allow", "tool": "Bash"}, r"auto\[0\]\.decide"),
        ({"name": "x", "decide": "approve"}, r"exactly one of tool .* and phase"),
        ({"name": "x", "decide": "approve", "tool": "B", "phase": "plan"}, "exactly one"),
        ({"name": "x", "decide": "approve", "tool": "Bash", "argv": "git"}, r"\.argv: must be"),
        ({"name": "x", "decide": "approve", "tool": "Bash", "argv": []}, r"\.argv: must be"),
        ({"name": "x", "decide": "approve", "tool": "Bash", "argv": [1]}, r"\.argv: each word"),
        ({"name": "x", "decide": "approve", "phase": "plan", "argv": ["a"]}, "only a tool rule"),
        ({"name": "x", "decide": "approve", "phase": "plan", "agent": "a"}, "only a tool rule"),
        ({"name": "x", "decide": "approve", "phase": "tool-call"}, "tool = "),
        ({"name": "x", "decide": "approve", "phase": "Not a phase"}, r"\.phase: must be"),
        ({"name": "x", "decide": "approve", "tool": "B", "args": {"p": 1}}, r'\.args\."p"'),
        ({"name": "x", "decide": "approve", "tool": "B", "args": {}}, r"\.args: must be"),
        ({"name": "x\u202e", "decide": "approve", "tool": "B"}, r"\.name: must be"),
        ({"name": " x", "decide": "approve", "tool": "B"}, r"\.name: must be"),
        ({"name": "x", "decide": "approve", "tool": "B", "typo": 1}, r"auto\[0\]\.typo: unknown"),
        ("not a table", r"auto\[0\]: must be a table"),
    ],
)
def test_a_malformed_table_is_one_line_naming_the_field(table: object, problem: str) -> None:
    with pytest.raises(PolicyError, match=problem) as raised:
        parse_auto([table])
    assert "\n" not in str(raised.value)


def test_two_rules_with_one_name_are_refused() -> None:
    table = {"name": "x", "decide": "reject", "tool": "Bash"}
    with pytest.raises(PolicyError, match=r"auto\[1\]\.name: 'x' names an earlier rule"):
        parse_auto([table, table])


def test_to_toml_reads_back_as_the_same_rule_every_character_shown() -> None:
    rule = AutoRule(
        name='odd "name" \\ é',
        decide=Action.REJECT,
        tool="mcp__*",
        agent="codex",
        argv=("git", "log", "--format=%H\U0001f600"),
        args={"path key": "/work/*", "mode": "a [!b]?"},
    )
    text = rule.to_toml()
    assert text.isascii()
    assert parse_auto(tomllib.loads(text)["auto"]) == (rule,)
    phase_rule = AutoRule(name="plans", decide=Action.APPROVE, phase="plan")
    assert parse_auto(tomllib.loads(phase_rule.to_toml())["auto"]) == (phase_rule,)


def _tool_envelope(raw: str, agent: str | None = "claude-code") -> Envelope:
    return Envelope.model_validate(
        {
            "id": "0001-tool-call", "run": "r", "seq": 1, "phase": "tool-call",
            "schema": "tool", "created": "2026-01-01T00:00:00.000Z", "raw": raw,
            "kind": "tool_call", "tool": ToolCall(name="Bash", call_id="c1", agent=agent),
        }
    )  # fmt: skip


def test_subject_of_a_stored_tool_call() -> None:
    subject = subject_of(_tool_envelope('{"command": "git status"}'))
    assert subject == Subject("tool_call", "tool-call", "Bash", "claude-code", subject.args)
    assert dict(subject.args) == {"command": "git status"}
    rule = parse_auto(tomllib.loads(READ_ONLY_GIT)["auto"])[0]
    assert rule_for([rule], subject) is rule
    assert (
        rule_for([rule], subject_of(_tool_envelope('{"command": "git status"}', "codex"))) is None
    )


@pytest.mark.parametrize(
    "raw", ['{"command": "git status", "command": "rm -rf ~"}', "[1]", "not json"]
)
def test_arguments_no_rule_can_read_are_an_error(raw: str) -> None:
    with pytest.raises(ValueError):
        subject_of(_tool_envelope(raw))


def test_a_phase_rule_reads_the_payload() -> None:
    rule = AutoRule(name="drafts", decide=Action.APPROVE, phase="plan", args={"kind": "draft*"})
    envelope = Envelope.model_validate(
        {
            "id": "0001-plan", "run": "r", "seq": 1, "phase": "plan", "schema": "plan/v1",
            "created": "2026-01-01T00:00:00.000Z", "raw": '{"kind": "draft-2"}',
        }
    )  # fmt: skip
    assert rule_for([rule], subject_of(envelope)) is rule
    assert rule_for([rule], Subject("phase", "other", None, None, {"kind": "draft"})) is None


def test_an_approve_glob_never_matches_a_path_that_climbs_out() -> None:
    rule = AutoRule(name="docs", decide=Action.APPROVE, tool="Read", args={"file_path": "/w/*"})

    def read(path: str) -> Subject:
        return Subject("tool_call", "tool-call", "Read", None, {"file_path": path})

    assert rule_for([rule], read("/w/docs/a.md")) is rule
    assert rule_for([rule], read("/w/../etc/shadow")) is None
    assert rule_for([rule], read("/w/a\u202e.md")) is None


def test_the_policy_command_says_what_each_rule_decides(tmp_path: Path) -> None:
    policy = signed_policy(tmp_path, "tool-call").policy
    policy.write_text(policy.read_text() + "auto = true\n" + READ_ONLY_GIT)
    done = cli("policy", str(policy))
    assert done.returncode == 0, done.stderr
    assert "phase tool-call: 1 of alice approve; produced by anyone; rules may approve" in (
        done.stdout
    )
    assert (
        'rule "read-only git" approves Bash calls by claude-code whose command is one '
        'simple command starting ["git", "status"]'
    ) in done.stdout
