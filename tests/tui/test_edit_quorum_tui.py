"""Under a quorum the TUI counts only approvals of one byte string: two approvals of
different edits read as one approval, with the other named as approving other bytes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tui_helpers import PLAN, SIZE, all_inspected, review_app, screen_text, settle

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.gates.vocab.states import HandoffState

RULES = '[[rule]]\nphase = "plan"\napprovers = ["alice", "bob"]\nrequired = 2\n'


def _policy(folder: Path) -> tuple[Policy, dict[str, Path]]:
    keys = {}
    lines = []
    for name in ("alice", "bob"):
        path = folder / name
        command = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)]
        subprocess.run(command, check=True)
        keys[name] = path
        lines.append(f"{name} {' '.join(path.with_suffix('.pub').read_text().split()[:2])}")
    (folder / "allowed_signers").write_text("\n".join(lines) + "\n")
    (folder / "policy.toml").write_text('allowed_signers = "allowed_signers"\n' + RULES)
    return Policy.load(folder / "policy.toml"), keys


async def test_approvals_of_different_edits_are_not_counted_together(
    root: Path, registry: Registry, tmp_path: Path
) -> None:
    policy, keys = _policy(tmp_path)
    handoff = submit(root / "job-1", json.dumps(PLAN).encode(), phase="plan", schema_id="plan/v1")
    for who, risks in (("alice", ["a"]), ("bob", ["b"])):
        decide(
            root / "job-1",
            handoff.id,
            "approve",
            registry=registry,
            key=SigningKey(keys[who]),
            policy=policy,
            edited_payload={**PLAN, "risks": risks},
        )
    app = review_app(
        root, registry, reviewer="alice", key=SigningKey(keys["alice"]), policy=policy, quiet=True
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        entry = app.review.entries[(root / "job-1", handoff.id)]
        assert entry.state is HandoffState.PENDING
        await settle(pilot, lambda: "approvals 1 of 2: alice" in screen_text(app))
        assert "bob approved an edit (sha256" in screen_text(app)
