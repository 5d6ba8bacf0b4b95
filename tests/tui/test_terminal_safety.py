"""Every string that reaches the terminal goes through the one sanitiser.

Run names, reasons, reviewers, policy paths and error messages carry OSC 0 (set the
title), OSC 52 (write the clipboard), CSI, bidi overrides and C1 controls; each
notification path, the palette's labels and the dialog titles are driven for real, and
no escape, C1 or bidi character may reach the notifications, the screen or the title.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tui_helpers import (
    PLAN,
    SIZE,
    all_inspected,
    make_app,
    put,
    raised,
    review_app,
    screen_text,
    settle,
)

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.vocab.safe_text import has_unsafe
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.approve import ApproveScreen

#: OSC 0, OSC 52, CSI, a bidi override and a C1 CSI: a directory name can hold them all.
EVIL = "x\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202eevil\u2066\x9b31m"


def _clean(text: str) -> bool:
    return "\x1b" not in text and not has_unsafe(text)


def _shown(app: ReviewApp) -> str:
    told = [f"{n.title}\n{n.message}" for n in raised(app)]
    return "\n".join([*told, screen_text(app), app.title, app.sub_title])


def _titles(app: ReviewApp) -> str:
    return "\n".join(n.title or "" for n in raised(app))


def _assert_clean(app: ReviewApp) -> None:
    shown = _shown(app)
    assert _clean(shown), repr([c for c in shown if has_unsafe(c) or c == "\x1b"][:5])


async def test_new_handoff_toast_rows_palette_and_dialog_title(
    root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        handoff = put(root, EVIL, PLAN)
        await settle(pilot, lambda: "New handoff" in _titles(app))
        _assert_clean(app)
        labels = [
            label
            for label, _, help_text in app.review.jump_targets() + app.review.palette_actions()
        ]
        assert any("pwned" in label for label in labels)
        assert all(_clean(label) for label in labels)
        app.review.jump_to((root / EVIL, handoff))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        assert "pwned" in screen_text(app)
        _assert_clean(app)
        await pilot.press("escape")


async def test_decision_refused_and_written_toasts(root: Path, registry: Registry) -> None:
    handoff = put(root, EVIL, PLAN)
    other = put(root, EVIL, PLAN, phase="design")
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        app.review.jump_to((root / EVIL, handoff))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        (root / EVIL / "handoffs" / f"{handoff}.json").unlink()  # gone under the dialog
        await pilot.press("y")
        await settle(pilot, lambda: "Not written" in _titles(app))
        assert any("evil" in n.message for n in raised(app))  # the run path, made safe
        _assert_clean(app)
        app.review.jump_to((root / EVIL, other))
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, ApproveScreen))
        await pilot.press("y")
        await settle(pilot, lambda: any("approved by" in n.message for n in raised(app)))
        _assert_clean(app)


async def test_watcher_failure_names_the_root_safely(tmp_path: Path, registry: Registry) -> None:
    root = tmp_path / EVIL
    root.mkdir()
    put(root, "job-1", PLAN)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        shutil.rmtree(root)
        await settle(pilot, lambda: "Watcher" in _titles(app))
        assert any("evil" in n.message for n in raised(app))
        _assert_clean(app)


async def test_not_allowed_names_the_policy_safely(
    tmp_path: Path, root: Path, registry: Registry
) -> None:
    folder = tmp_path / EVIL
    folder.mkdir()
    key = tmp_path / "alice"
    command = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(key)]
    subprocess.run(command, check=True)
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f"alice {public}\n")
    rules = '[[rule]]\nphase = "design"\napprovers = ["alice"]\n'
    (folder / "policy.toml").write_text('allowed_signers = "allowed_signers"\n' + rules)
    policy = Policy.load(folder / "policy.toml")
    put(root, "job-1", PLAN)
    app = review_app(root, registry, quiet=True, policy=policy)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await pilot.press("a")
        await settle(pilot, lambda: "Not allowed" in _titles(app))
        assert any("no rule covers" in n.message for n in raised(app))
        _assert_clean(app)


async def test_a_reason_and_reviewer_with_escapes_never_reach_the_screen(
    root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    record = {
        "handoff": handoff,
        "run": "job-1",
        "action": "reject",
        "reason": EVIL,
        "category": "other",
        "reviewer": EVIL,
        "decided_at": "2026-01-15T09:30:00.000Z",
        "sha256": "0" * 64,
        "verdict": "pass",
    }
    path = Path(root / "job-1" / "decisions" / f"{handoff}.json")
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(record))
    app = make_app(root, registry, show="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        await settle(pilot, lambda: "UNUSABLE" in screen_text(app))
        _assert_clean(app)
        await pilot.press("r")
        await settle(pilot, lambda: "already" in "".join(n.message for n in raised(app)))
        _assert_clean(app)
