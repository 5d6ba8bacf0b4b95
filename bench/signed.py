"""A policy with one approver and that approver's real ed25519 key, for signed-decision figures.

The key is made by ``ssh-keygen`` (the reference implementation, as a reviewer would make
it); the policy's only rule lets ``alice`` approve every phase alone.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from handoff_gate.gates.trust.policy import Policy

APPROVER = "alice"


def signing_policy(folder: Path) -> tuple[Path, Path]:
    """``(key path, policy path)``: one approver, ``required = 1``, every phase."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / APPROVER
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", APPROVER, "-f", str(key)],
        check=True,
    )
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (folder / "allowed_signers").write_text(f'{APPROVER} namespaces="handoff-gate" {public}\n')
    policy = folder / "policy.toml"
    policy.write_text(
        'allowed_signers = "allowed_signers"\n'
        f'[[rule]]\nphase = "*"\napprovers = ["{APPROVER}"]\nrequired = 1\n'
    )
    Policy.load(policy)  # fail here, not in the waiter, if the files are wrong
    return key, policy
