"""The ``Gate`` a command's arguments describe, for the commands that work through one.

Its own module so that only they load the Gate's asyncio waits: ``check``, ``decide``
and ``wait`` start in a few tens of milliseconds and keep to ``cli.inputs``.
"""

from __future__ import annotations

import argparse

from handoff_gate.cli.inputs import policy, registry, signing_key, store
from handoff_gate.gates.gate import Gate


def gate_from(args: argparse.Namespace) -> Gate:
    """The store ``--store`` names, the contracts loaded under the policy's pins, the
    policy and the signing key: one configuration, however the command uses it."""
    rules = policy(args)
    contracts = registry(getattr(args, "schemas", None), rules)
    return Gate(store(args), contracts=contracts, policy=rules, key=signing_key(args))
