"""Who a decision names when nobody said: the OS account, as ``user@host``.

A module of its own (standard library only), so the TUI can show it in its header
before the decision code is loaded.
"""

from __future__ import annotations

import os
import pwd
import socket

#: Where ``getpass.getuser`` looks first, in its order.
_USER_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")


def _user() -> str:
    """``getpass.getuser()``'s answer, found the same way (the environment, then the
    password database) without importing ``getpass``, which loads ``termios`` for its
    password prompt on every ``decide``."""
    for name in _USER_VARIABLES:
        user = os.environ.get(name)
        if user:
            return user
    return pwd.getpwuid(os.getuid()).pw_name


def default_reviewer() -> str:
    """``user@host`` of the OS account, so an unattended approval still names someone."""
    try:
        user = _user()
    except (OSError, KeyError):
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"
