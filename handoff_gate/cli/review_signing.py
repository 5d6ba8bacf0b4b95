"""The key and policy a review app decides with: ``watch``'s, and ``serve``'s for each tab.

Neither app owns a terminal it may prompt on (``serve``'s has none at all), so a key
that would need a passphrase is refused before the first screen, naming ``ssh-add``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import UsageError
from handoff_gate.gates.trust.sshsig import SigningError

if TYPE_CHECKING:
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


def unattended_signing(args: argparse.Namespace) -> tuple[SigningKey | None, Policy | None]:
    """``--key`` and ``--policy`` as the parser loaded them; ``cli.inputs`` (and the
    contracts it imports) loads here only when one of them is given.

    The key never prompts for a passphrase: one that would have to is refused now."""
    if getattr(args, "key", None) is None and getattr(args, "policy", None) is None:
        return None, None
    from handoff_gate.cli.inputs import policy, signing_key

    key, rules = signing_key(args), policy(args)
    if key is None:
        return None, rules
    if rules is None:
        raise UsageError("--key needs --policy")
    key = replace(key, prompt=False)
    try:
        problem = key.unattended_problem()
    except SigningError as exc:
        raise UsageError(f"cannot use the key: {exc}") from exc
    if problem is not None:
        raise UsageError(problem)
    return key, rules
