"""``--policy`` and ``--key`` turned into the objects that verify and sign.

The parser imports this module only when one of those options (or its environment
default) is set, so every command run without them starts without the trust code:
TOML parsing, allowed_signers and the ed25519 library.
"""

from __future__ import annotations

from pathlib import Path

from handoff_gate.cli.errors import UsageError, one_line
from handoff_gate.gates.trust.policy import Policy, PolicyError
from handoff_gate.gates.trust.signing_key import SigningKey


def load_policy(path: str) -> Policy:
    """A policy file and the allowed_signers it names, or a one-line ``UsageError``."""
    try:
        return Policy.load(Path(path))
    except (PolicyError, OSError) as exc:
        raise UsageError(f"cannot use the policy: {one_line(exc)}") from exc


def signing_key(name: str) -> SigningKey:
    """The private key file ``--key`` names, which must exist (it is read when signing)."""
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{name} is a directory, not a key file")
    if not path.is_file():
        raise UsageError(f"no such key file: {name}")
    return SigningKey(path)
