"""Trust in the TUI: decisions are signed with the reviewer's key, a key that may not
decide is refused before any dialog opens (naming who may), and the detail shows the
approvals so far and who signed the handoff. Real ed25519 keys made by ``ssh-keygen``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tui_helpers import (
    PLAN,
    SIZE,
    all_inspected,
    cursor_entry,
    notices,
    placed,
    review_app,
    screen_text,
    settle,
)

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.states import HandoffState
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen

NAMES = ("alice", "bob", "carol", "planner")
RULES = """
[[rule]]
phase = "plan"
approvers = ["alice", "bob"]
required = 2
producers = ["planner"]
"""


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    made = {}
    for name in NAMES:
        path = folder / name
        command = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)]
        subprocess.run(command, check=True)
        made[name] = path
    return made


@pytest.fixture
def policy(tmp_path: Path, keys: dict[str, Path]) -> Policy:
    folder = tmp_path / "policy"
    folder.mkdir()
    lines = []
    for name in NAMES:
        public = " ".join(keys[name].with_suffix(".pub").read_text().split()[:2])
        lines.append(f'{name} namespaces="handoff-gate" {public}')
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    (folder / "policy.toml").write_text('allowed_signers = "allowed_signers"\n' + RULES)
    return Policy.load(folder / "policy.toml")


def _signed_plan(root: Path, keys: dict[str, Path]) -> str:
    ref = submit(
        root / "job-1",
        json.dumps(PLAN).encode(),
        phase="plan",
        schema_id="plan/v1",
        key=SigningKey(keys["planner"]),
        signer="planner",
    )
    return ref.id


def _app(root: Path, registry: Registry, policy: Policy, key: Path | None) -> ReviewApp:
    return review_app(
        root,
        registry,
        quiet=True,
        show="all",
        key=None if key is None else SigningKey(key),
        policy=policy,
    )


async def test_a_key_that_may_not_decide_is_refused_before_the_dialog(
    root: Path, registry: Registry, keys: dict[str, Path], policy: Policy
) -> None:
    handoff = _signed_plan(root, keys)
    app = _app(root, registry, policy, keys["carol"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("a")
        await settle(pilot, lambda: "Not allowed" in notices(app))
        assert not isinstance(app.screen, ApproveScreen)
        assert "who may: alice, bob" in notices(app)
        assert "Nothing was written" in notices(app)
    assert FilesystemStore().decision_records(str(root / "job-1"), handoff) == {}


async def test_the_producer_may_not_approve_its_own_handoff(
    root: Path, registry: Registry, keys: dict[str, Path], policy: Policy
) -> None:
    _signed_plan(root, keys)
    app = _app(root, registry, policy, keys["planner"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("a")
        await settle(pilot, lambda: "Not allowed" in notices(app))
        assert not isinstance(app.screen, ApproveScreen)


async def test_no_key_under_a_policy_is_refused_naming_who_may(
    root: Path, registry: Registry, keys: dict[str, Path], policy: Policy
) -> None:
    _signed_plan(root, keys)
    app = _app(root, registry, policy, None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("r")
        await settle(pilot, lambda: "Not allowed" in notices(app))
        assert "--key" in notices(app) and "alice, bob" in notices(app)


async def test_approvals_so_far_and_the_signer_are_shown_and_the_tui_signs(
    root: Path, registry: Registry, keys: dict[str, Path], policy: Policy
) -> None:
    handoff = _signed_plan(root, keys)
    decide(
        root / "job-1",
        handoff,
        "approve",
        registry=registry,
        key=SigningKey(keys["bob"]),
        policy=policy,
    )
    app = _app(root, registry, policy, keys["alice"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await settle(pilot, lambda: "approvals 1 of 2: bob" in screen_text(app))
        assert "producer signed by planner" in screen_text(app)
        assert "reviewer alice (key)" in screen_text(app)  # the name its decisions carry
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        await pilot.press("y")
        key = (root / "job-1", handoff)
        await settle(pilot, lambda: app.review.entries[key].state is HandoffState.APPROVED)
    records = FilesystemStore().decision_records(str(root / "job-1"), handoff)
    assert set(records) == {"alice", "bob"}
    assert b'"signature"' in records["alice"]


@pytest.mark.parametrize(("reviewer", "start"), [("alice", "job-2"), ("bob", "job-1")])
async def test_the_cursor_starts_on_what_this_key_may_decide(
    root: Path, registry: Registry, keys: dict[str, Path], policy: Policy, reviewer: str, start: str
) -> None:
    """alice approved job-1 already, so her cursor starts on job-2; bob's on job-1, the
    oldest; the header counts what each of them can still decide."""
    first = _signed_plan(root, keys)
    decide(
        root / "job-1",
        first,
        "approve",
        registry=registry,
        key=SigningKey(keys["alice"]),
        policy=policy,
    )
    second = submit(
        root / "job-2",
        json.dumps(PLAN).encode(),
        phase="plan",
        schema_id="plan/v1",
        key=SigningKey(keys["planner"]),
        signer="planner",
    )
    stamp = (root / "job-1" / "handoffs" / f"{first}.json").stat().st_mtime - 60
    os.utime(root / "job-1" / "handoffs" / f"{first}.json", (stamp, stamp))
    app = _app(root, registry, policy, keys[reviewer])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: placed(app))
        assert cursor_entry(app).key[0].name == start
        assert second.id == first  # each run numbers its own handoffs
        count = 1 if reviewer == "alice" else 2
        await settle(pilot, lambda: f"to decide {count} " in screen_text(app).splitlines()[0])
