"""The ``Gate`` a command's arguments describe, for the commands that work through one.

Its own module so that only they load the Gate's asyncio waits: ``check``, ``decide``
and ``wait`` start in a few tens of milliseconds on ``cli.inputs.setup_from`` alone.
"""

from __future__ import annotations

import argparse

from handoff_gate.cli.inputs import setup_from
from handoff_gate.gates.gate import Gate


def gate_from(args: argparse.Namespace) -> Gate:
    """A Gate over the command's configuration (``setup_from``): its store, contracts
    loaded under the policy's pins, policy and signing key."""
    return Gate(setup=setup_from(args))
