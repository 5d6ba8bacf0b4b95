"""``handoff-gate store init [--roles]``: create or migrate the PostgreSQL schema.

``Gate.init_store`` migrates the configured store without opening it as a run store;
``init_schema``'s advisory lock makes two runs at once safe.
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
