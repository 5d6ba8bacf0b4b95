"""Snapshots at 80×24 of the states a reviewer must tell apart: ``unusable`` (with the
record's exact problem), ``changed``, the approvals so far under a policy, and the
palette offering actions. Update with ``pytest tests/tui --snapshot-update``."""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from textual.pilot import Pilot
from textual.widgets import Input
from tui_helpers import PLAN, decide_as, make_app, placed, put, review_app, screen_text, settle

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.tui.review_app import ReviewApp

SMALL = (80, 24)


def _pin_times(root: Path) -> None:
    for n, path in enumerate(sorted(root.glob("*/handoffs/*.json"))):
        stamp = 1_768_469_400 + n * 60
        os.utime(path, (stamp, stamp))


def _snap(
    snap_compare: Callable[..., bool],
    app: ReviewApp,
    root: Path,
    run_before: Callable[[Pilot[Any]], Awaitable[None]] | None = None,
) -> bool:
    _pin_times(root)

    async def ready(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: placed(app))
        await settle(pilot, lambda: "inspecting" not in screen_text(app))
        if run_before is not None:
            await run_before(pilot)
        await pilot.pause()

    return snap_compare(app, terminal_size=SMALL, run_before=ready)


def test_unusable_decision_names_its_problem(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    record = root / "job-1" / "decisions" / f"{handoff}.json"
    record.write_text(json.dumps({"handoff": handoff, "run": "job-1", "action": "approve"}))
    assert _snap(snap_compare, make_app(root, registry), root)


def test_changed_after_its_decision(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    handoff = put(root, "job-1", PLAN)
    decide_as(root, "job-1", handoff, "approve", registry)
    path = root / "job-1" / "handoffs" / f"{handoff}.json"
    path.write_bytes(path.read_bytes().replace(b"Estimate", b"Guess"))
    assert _snap(snap_compare, make_app(root, registry), root)


def test_palette_offers_actions(
    snap_compare: Callable[..., bool], root: Path, registry: Registry
) -> None:
    put(root, "job-1", PLAN)

    async def palette(pilot: Pilot[Any]) -> None:
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: bool(pilot.app.screen.query(Input)))
        pilot.app.screen.query_one(Input).cursor_blink = False  # a blink is not a change
        await pilot.press(*"reject")
        await pilot.pause(0.3)

    assert _snap(snap_compare, make_app(root, registry), root, palette)


def _keys_and_policy(folder: Path) -> tuple[dict[str, Path], Policy]:
    """Real ed25519 keys from fixed seeds: the producer's signature is part of the handoff's
    bytes (and so of its sha256 on screen), so the keys must be the same every run."""
    folder.mkdir()
    keys, lines = {}, []
    for n, name in enumerate(("alice", "bob", "planner")):
        private = Ed25519PrivateKey.from_private_bytes(bytes([n + 1]) * 32)
        key = folder / name
        key.write_bytes(private.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
        key.chmod(0o600)
        keys[name] = key
        public = private.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH)
        lines.append(f"{name} {public.decode()}")
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    rules = '[[rule]]\nphase = "plan"\napprovers = ["alice", "bob"]\nrequired = 2\n'
    (folder / "policy.toml").write_text('allowed_signers = "allowed_signers"\n' + rules)
    return keys, Policy.load(folder / "policy.toml")


def test_approvals_so_far_under_a_policy(
    snap_compare: Callable[..., bool],
    tmp_path: Path,
    root: Path,
    registry: Registry,
) -> None:
    keys, policy = _keys_and_policy(tmp_path / "trust")
    data = json.dumps(PLAN).encode()
    ref = submit(
        root / "job-1",
        data,
        phase="plan",
        schema_id="plan/v1",
        key=SigningKey(keys["planner"]),
        signer="planner",
    )
    decide(
        root / "job-1",
        ref.id,
        "approve",
        registry=registry,
        key=SigningKey(keys["bob"]),
        policy=policy,
    )
    app = review_app(
        root, registry, reviewer="alice", quiet=True, key=SigningKey(keys["alice"]), policy=policy
    )
    assert _snap(snap_compare, app, root)
