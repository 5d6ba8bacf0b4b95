"""A rule from a decision (``u``): after approving a tool call, the ``[[auto]]`` table
that would approve calls like it, replay's verdict for it on the history (a person's
reject of such a call named first), and on ``y`` the table appended to the proposals file
beside the policy, the policy itself untouched."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from signed_policy import key_line
from textual.pilot import Pilot
from textual.widgets import Static
from tui_helpers import all_inspected, cursor_entry, notices, review_app, screen_text, settle

import handoff_gate as hg
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.rules.auto import parse_auto
from handoff_gate.gates.rules.judge import matches, subject_of
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen
from handoff_gate.tui.screens.review import ReviewScreen
from handoff_gate.tui.screens.rule_proposal import RuleProposalScreen

TALL = (120, 50)
ARGS_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}


@pytest.fixture
def trust(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """alice and bob approve tool calls; the rule does not say auto = true yet."""
    folder = tmp_path / "trust"
    folder.mkdir()
    keys = {name: folder / name for name in ("alice", "bob")}
    lines = [f"{name} {key_line(keys[name])}" for name in keys]
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "*"\n'
        'approvers = ["alice", "bob"]\n'
    )
    return policy, keys


def call(gate: hg.Gate, run: Path, command: str, call_id: str) -> hg.HandoffRef:
    return gate.submit_tool_call(
        run,
        tool="Bash",
        args={"command": command, "description": "look"},
        call_id=call_id,
        json_schema=ARGS_SCHEMA,
        agent="claude-code",
    )


def said(screen: RuleProposalScreen, part: str) -> str:
    """The plain text of one part of the proposal screen (``table``, ``verdict``, ``where``)."""
    content = screen.query_one(f"#rule-{part}", Static).content
    return content.plain if isinstance(content, Text) else str(content)


async def approve_the_cursor(app: ReviewApp, pilot: Pilot[Any], then: str | None = None) -> None:
    """Approve the cursor's handoff; ``then``: the one the cursor moves on to."""
    approving = cursor_entry(app)
    await pilot.press("a")
    await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
    await pilot.press("y")
    await settle(pilot, lambda: approving.state is HandoffState.APPROVED)
    if then is not None:
        await settle(pilot, lambda: cursor_entry(app).ref.id == then)


async def test_u_proposes_the_calls_rule_beside_the_policy_and_leaves_the_policy(
    root: Path, registry: Registry, trust: tuple[Path, dict[str, Path]]
) -> None:
    policy_path, keys = trust
    run = root / "job-1"
    with hg.Gate(root, policy=policy_path) as gate:
        earlier = call(gate, run, "git status --short", "c1")
        call(gate, run, "git status", "c2")
        call(gate, run, "ls", "c3")  # waits: the cursor moves on to it after the approval
    with hg.Gate(root, policy=policy_path, key=keys["bob"]) as gate:
        gate.decide(run, earlier, "reject", reason="not on this branch")
    policy_bytes = policy_path.read_bytes()
    app = review_app(
        root,
        registry,
        reviewer="alice",
        key=SigningKey(keys["alice"]),
        policy=Policy.load(policy_path),
        quiet=True,
        show="all",
    )
    async with app.run_test(size=TALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await settle(pilot, lambda: review.core is not None)
        assert cursor_entry(app).ref.id == "0002-tool-call"
        await approve_the_cursor(app, pilot, "0003-tool-call")
        await pilot.press("u")  # the call approved last, though the cursor moved on
        await settle(pilot, lambda: isinstance(app.screen, RuleProposalScreen))
        proposing = app.screen
        assert isinstance(proposing, RuleProposalScreen)
        await settle(pilot, lambda: proposing.verdict is not None)
        await pilot.pause()
        table, verdict, where = (said(proposing, part) for part in ("table", "verdict", "where"))
        assert table.startswith("[[auto]]\n") and 'tool = "Bash"' in table
        assert 'argv = ["git", "status"]' in table and 'agent = "claude-code"' in table
        assert "would approve 2 recorded calls, 1 of them rejected by a person" in verdict
        # the person's reject is named first
        assert verdict.index("0001-tool-call  rejected by bob") < verdict.index("0002-tool-call")
        assert "must also say auto = true" in where  # the policy's rule does not yet
        assert "policy.proposals.toml" in where and "re-pin" in where
        assert "[[auto]]" in screen_text(app)
        await pilot.press("y")
        await settle(pilot, lambda: app.screen is review)
        await settle(pilot, lambda: "Proposed in" in notices(app))
    proposals = policy_path.with_name("policy.proposals.toml")
    text = proposals.read_text()
    assert text.startswith("# proposed from job-1 0002-tool-call, approved; by alice at ")
    assert "# replay: would approve 2 recorded calls, 1 of them rejected by a person" in text
    assert "#   rejected: job-1 0001-tool-call by bob" in text
    (rule,) = parse_auto(tomllib.loads(text)["auto"])
    assert (rule.tool, rule.agent, rule.argv, rule.decide.value) == (
        "Bash",
        "claude-code",
        ("git", "status"),
        "approve",
    )
    assert policy_path.read_bytes() == policy_bytes, "the policy was edited"
    with hg.Gate(root) as gate:  # the rule covers the call it came from, and no compound one
        envelope = gate.inspect(run, "0002-tool-call").envelope
        assert envelope is not None and matches(rule, subject_of(envelope))


async def test_without_a_policy_it_goes_beside_the_runs_and_appends(
    root: Path, registry: Registry
) -> None:
    run = root / "job-1"
    with hg.Gate(root) as gate:
        call(gate, run, "ls -la", "c1")
    proposals = root / "policy.proposals.toml"
    proposals.write_text("# kept\n")
    app = review_app(root, registry, reviewer="alice", quiet=True, show="all")
    async with app.run_test(size=TALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await settle(pilot, lambda: review.core is not None)
        await approve_the_cursor(app, pilot)
        await pilot.press("u")
        await settle(pilot, lambda: isinstance(app.screen, RuleProposalScreen))
        proposing = app.screen
        assert isinstance(proposing, RuleProposalScreen)
        await settle(pilot, lambda: proposing.verdict is not None)
        assert "would approve 1 recorded call." in said(proposing, "verdict")
        await pilot.press("y")
        await settle(pilot, lambda: "Proposed in" in notices(app))
    text = proposals.read_text()
    assert text.startswith("# kept\n\n# proposed from job-1 0001-tool-call")
    (rule,) = parse_auto(tomllib.loads(text)["auto"])
    assert rule.argv == ("ls", "-la")


@pytest.mark.parametrize(
    ("command", "approve", "said"),
    [
        ("git status && rm -rf ~", True, "not one simple command"),
        ("ls $HOME", True, "not one simple command"),
        ("git status", False, "approve the call first"),
    ],
)
async def test_no_rule_for_a_compound_command_or_an_undecided_call(
    root: Path, registry: Registry, command: str, approve: bool, said: str
) -> None:
    run = root / "job-1"
    with hg.Gate(root) as gate:
        call(gate, run, command, "c1")
    app = review_app(root, registry, reviewer="alice", quiet=True, show="all")
    async with app.run_test(size=TALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await settle(pilot, lambda: review.core is not None)
        if approve:
            await approve_the_cursor(app, pilot)
        await pilot.press("u")
        await settle(pilot, lambda: said in notices(app))
        assert app.screen is review
        await pilot.press("escape")
    assert not (root / "policy.proposals.toml").exists()


async def test_escape_proposes_nothing(root: Path, registry: Registry) -> None:
    run = root / "job-1"
    with hg.Gate(root) as gate:
        call(gate, run, "git log", "c1")
    app = review_app(root, registry, reviewer="alice", quiet=True, show="all")
    async with app.run_test(size=TALL) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await settle(pilot, lambda: review.core is not None)
        await approve_the_cursor(app, pilot)
        await pilot.press("u")
        await settle(pilot, lambda: isinstance(app.screen, RuleProposalScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is review)
    assert not (root / "policy.proposals.toml").exists()
