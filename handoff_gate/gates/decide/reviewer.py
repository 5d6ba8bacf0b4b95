"""Who a decision names when nobody said: the OS account, as ``user@host``.

Standard library only, so the TUI can name the reviewer in its header before anything
else of the run layer is loaded.
"""

from __future__ import annotations

import getpass
import socket


def default_reviewer() -> str:
    """``user@host`` of the OS account, so an unattended approval still names someone."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"
