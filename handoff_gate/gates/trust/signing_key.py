"""The private key a person or a producer signs with, handed in as an object.

``decide`` and ``submit`` only call its methods, so ``cryptography`` loads only in the
processes that sign.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from handoff_gate.gates.trust.sshsig import NAMESPACE, private_header, public_key_of, read_key


@dataclass(frozen=True)
class SigningKey:
    """An OpenSSH ed25519 private key file; a passphrase-protected one signs through
    ``ssh-keygen`` (agent or terminal), so the passphrase never passes through here.

    ``prompt=False`` is for a process that does not own its terminal (the review app):
    ``ssh-keygen`` then runs without one, so it can use the agent or ``SSH_ASKPASS``
    but never writes a prompt over the screen or waits for an answer nobody sees.
    """

    path: Path
    prompt: bool = True

    def public_key(self) -> str:
        """``ssh-ed25519 AAAA...``, read from the file's unencrypted header; ``SigningError``
        when the file is not such a key."""
        return public_key_of(self.path)

    def sign(self, message: bytes, namespace: str = NAMESPACE) -> str:
        """An armored SSHSIG over ``message``; ``SigningError`` when none can be made."""
        from handoff_gate.gates.trust import ed25519  # cryptography: only when signing

        return ed25519.sign(message, self.path, namespace, prompt=self.prompt)

    def unattended_problem(self) -> str | None:
        """Why this key cannot sign without a terminal prompt (``None``: it can): a
        passphrase-protected key that the agent does not hold, with no ``SSH_ASKPASS``.
        ``SigningError`` when the file is not such a key."""
        cipher, public_key = private_header(read_key(self.path), self.path)
        if cipher == b"none" or os.environ.get("SSH_ASKPASS") or agent_holds(public_key):
            return None
        return (
            f"{self.path} is passphrase-protected and ssh-agent does not hold it; "
            f"run ssh-add {self.path} first (the review app cannot ask for a passphrase)"
        )


#: ``ssh-add -L`` answers at once; a wedged agent must not stall start-up.
_TIMEOUT_S = 5.0


def agent_holds(public_key: str) -> bool:
    """Whether the agent at ``$SSH_AUTH_SOCK`` lists ``public_key`` (``type base64``),
    asked at start: the review app signs while Textual owns the terminal, where a
    passphrase prompt would garble the screen and hang the decision."""
    if not os.environ.get("SSH_AUTH_SOCK"):
        return False
    try:
        listed = subprocess.run(
            ["ssh-add", "-L"],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    wanted = public_key.split()[:2]
    return listed.returncode == 0 and any(
        line.split()[:2] == wanted for line in listed.stdout.splitlines()
    )
