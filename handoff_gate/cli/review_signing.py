"""The key and policy a review app decides with: ``watch``'s, and ``serve``'s for each tab.

Neither app owns a terminal it may prompt on (``serve``'s has none at all), so a key
that would need a passphrase is refused before the first screen, naming ``ssh-add``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import UsageError

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Policy, SigningKey


def unattended_signing(args: argparse.Namespace) -> tuple[SigningKey | None, Policy | None]:
    """``--key`` and ``--policy`` as the parser loaded them; the Gate's module loads here
    only when a key is given, to ask whether it would prompt.

    The key never prompts for a passphrase: one that would have to is refused now."""
    key: SigningKey | None = getattr(args, "key", None)
    rules: Policy | None = getattr(args, "policy", None)
    if key is None:
        return None, rules
    if rules is None:
        raise UsageError("--key needs --policy")
    from handoff_gate.gates.gate import Gate

    key = replace(key, prompt=False)
    problem = Gate.unattended_problem(key)
    if problem is not None:
        raise UsageError(problem)
    return key, rules
