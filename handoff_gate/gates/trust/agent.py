"""Whether a running ssh-agent holds a key, asked with ``ssh-add -L``.

The review app signs from a worker thread while Textual owns the terminal, so it can
never let ``ssh-keygen`` ask for a passphrase there; a passphrase-protected key signs
from the app only through the agent (or a graphical ``SSH_ASKPASS``). Asking first
turns what would be a garbled screen and a hung decision into a clear refusal at start.
"""

from __future__ import annotations

import os
import subprocess

#: ``ssh-add -L`` answers at once; a wedged agent must not stall start-up.
_TIMEOUT_S = 5.0


def agent_holds(public_key: str) -> bool:
    """Whether the agent at ``$SSH_AUTH_SOCK`` lists ``public_key`` (``type base64``)."""
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
