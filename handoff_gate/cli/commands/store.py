"""``handoff-gate store init [--roles]``: create or migrate the PostgreSQL schema.

The store is the URL of ``--store`` (this command's own or a global one) or of
``HANDOFF_GATE_STORE``: the Gate's configured store, which ``Gate.init_store`` migrates
without opening it as a run store. Safe to run twice or from two hosts at once
(``init_schema`` holds an advisory lock). Every failure is one line and exit 2; without
the ``postgres`` extra, the line names it.
"""

from __future__ import annotations

import argparse

from handoff_gate.cli.errors import OK
from handoff_gate.gates.gate import Gate


def run(gate: Gate, args: argparse.Namespace) -> int:
    """Apply the missing migrations (and roles) and say which version the schema is at."""
    version, roles = gate.init_store(roles=bool(args.roles))
    print(f"schema at version {version}")
    if roles is not None:
        print(f"roles {roles[0]} and {roles[1]} ready (set their login in pg_hba.conf)")
    return OK
