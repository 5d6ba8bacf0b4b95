"""The private key a person or a producer signs with, handed in as an object.

A caller with a key builds a ``SigningKey`` and passes it to ``decide`` or ``submit``;
those only call its methods. So the ed25519 code (and ``cryptography`` with it) loads
in the processes that sign, and a pipeline step that submits or decides unsigned never
pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from handoff_gate.gates.trust import ed25519
from handoff_gate.gates.trust.sshsig import NAMESPACE, public_key_of


@dataclass(frozen=True)
class SigningKey:
    """An OpenSSH ed25519 private key file; a passphrase-protected one signs through
    ``ssh-keygen`` (agent or terminal), so the passphrase never passes through here."""

    path: Path

    def public_key(self) -> str:
        """``ssh-ed25519 AAAA...``, read from the file's unencrypted header; ``SigningError``
        when the file is not such a key."""
        return public_key_of(self.path)

    def sign(self, message: bytes, namespace: str = NAMESPACE) -> str:
        """An armored SSHSIG over ``message``; ``SigningError`` when none can be made."""
        return ed25519.sign(message, self.path, namespace)
