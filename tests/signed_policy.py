"""A one-approver policy with a real ssh-keygen key, for tests that need a policy in force
(the adapters' ``policy=``, ``HANDOFF_GATE_POLICY``)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import NamedTuple


class SignedPolicy(NamedTuple):
    policy: Path
    alice: Path


def signed_policy(folder: Path, phase: str = "plan") -> SignedPolicy:
    """``folder/policy.toml``: ``alice`` (a fresh ed25519 key) alone approves ``phase``."""
    folder.mkdir(parents=True, exist_ok=True)
    alice = folder / "alice"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", alice], check=True
    )
    public = " ".join(alice.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f'alice namespaces="handoff-gate" {public}\n')
    policy = folder / "policy.toml"
    rule = f'[[rule]]\nphase = "{phase}"\napprovers = ["alice"]\n'
    policy.write_text(f'allowed_signers = "allowed_signers"\n\n{rule}')
    return SignedPolicy(policy, alice)
