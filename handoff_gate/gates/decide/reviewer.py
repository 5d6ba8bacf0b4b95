"""Who a decision names when nobody said (the OS account, as ``user@host``), and who a
reviewing screen says decides: the terminal app's header and ``serve``'s page name the
same person, and the server names it without loading the app.

Standard library only at import, so the TUI can name the reviewer in its header before
anything else of the run layer is loaded.
"""

from __future__ import annotations

import getpass
import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


def default_reviewer() -> str:
    """``user@host`` of the OS account, so an unattended approval still names someone."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"


def header_name(reviewer: str | None, key: SigningKey | None, policy: Policy | None) -> str:
    """Who the header says decides: with a key under a policy, the approvers the key
    signs as (the name a signed decision carries), else ``--reviewer`` or ``user@host``."""
    if key is None or policy is None:
        return reviewer or default_reviewer()
    from handoff_gate.gates.trust.sshsig import SigningError

    try:
        names = policy.approvers_for(key.public_key())
    except SigningError:  # not a key: deciding will say so
        return "an unreadable key"
    if reviewer in names:
        return f"{reviewer} (key)"
    return f"{', '.join(names)} (key)" if names else "no approver (key)"
