"""A one-approver policy with real ssh-keygen keys, for tests that need a policy in force
(the adapters' ``policy=`` and ``key=``, ``HANDOFF_GATE_POLICY``)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import NamedTuple


class SignedPolicy(NamedTuple):
    policy: Path
    alice: Path
    planner: Path


def key_line(path: Path) -> str:
    """A fresh ed25519 key at ``path``; its public ``type base64``."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", path], check=True
    )
    return " ".join(path.with_suffix(".pub").read_text().split()[:2])


def signed_policy(folder: Path, phase: str = "plan", *, producers: bool = False) -> SignedPolicy:
    """``folder/policy.toml``: ``alice`` alone approves ``phase``; with ``producers`` its
    handoffs must also be signed by ``planner``."""
    folder.mkdir(parents=True, exist_ok=True)
    alice, planner = folder / "alice", folder / "planner"
    (folder / "allowed_signers").write_text(
        f'alice namespaces="handoff-gate" {key_line(alice)}\n'
        f'planner namespaces="handoff-gate" {key_line(planner)}\n'
    )
    rule = f'[[rule]]\nphase = "{phase}"\napprovers = ["alice"]\n'
    if producers:
        rule += 'producers = ["planner"]\n'
    policy = folder / "policy.toml"
    policy.write_text(f'allowed_signers = "allowed_signers"\n\n{rule}')
    return SignedPolicy(policy, alice, planner)
