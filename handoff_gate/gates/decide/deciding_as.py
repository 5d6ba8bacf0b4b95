"""Who a reviewing screen says decides, before anything is decided.

The terminal app's header and ``handoff-gate serve``'s page name the same person, and
the server names it without loading the app, so the rule lives here, UI-free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handoff_gate.gates.decide.reviewer import default_reviewer
from handoff_gate.gates.trust.sshsig import SigningError

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


def header_name(reviewer: str | None, key: SigningKey | None, policy: Policy | None) -> str:
    """Who the header says decides: with a key under a policy, the approvers the key
    signs as (the name a signed decision carries), else ``--reviewer`` or ``user@host``."""
    if key is None or policy is None:
        return reviewer or default_reviewer()
    try:
        names = policy.approvers_for(key.public_key())
    except SigningError:  # not a key: deciding will say so
        return "an unreadable key"
    if reviewer in names:
        return f"{reviewer} (key)"
    return f"{', '.join(names)} (key)" if names else "no approver (key)"
