"""``handoff-gate store init [--roles]``: create or migrate the PostgreSQL schema.

The store is the URL of ``--store`` (this command's own or a global one) or of
``HANDOFF_GATE_STORE``: the Gate's configured store, which ``Gate.init_store`` migrates
without opening it as a run store. Safe to run twice or from two hosts at once
(``init_schema`` holds an advisory lock). Every failure is one line and exit 2; without
the ``postgres`` extra, the line names it.
"""

from __future__ import annotations

import argparse

<<<<<<< HEAD
import psycopg

from handoff_gate.cli.errors import OK, UsageError
from handoff_gate.gates.store.pg_connect import StoreUnavailable, connect, one_line
from handoff_gate.gates.store.postgres_schema import (
    PIPELINE_ROLE,
    REVIEWER_ROLE,
    SchemaTooNew,
    init_schema,
)
from handoff_gate.gates.store.select import POSTGRES, scheme_of
from handoff_gate.gates.vocab.environment import STORE_ENV
=======
from handoff_gate.cli.errors import OK
from handoff_gate.gates.gate import Gate
>>>>>>> cli-gate


def run(gate: Gate, args: argparse.Namespace) -> int:
    """Apply the missing migrations (and roles) and say which version the schema is at."""
<<<<<<< HEAD
    url = getattr(args, "store", None) or os.environ.get(STORE_ENV, "")
    if scheme_of(url) not in POSTGRES:
        raise UsageError(f"store init needs a postgresql:// URL in --store or {STORE_ENV}")
    try:
        with connect(url) as conn:
            version = init_schema(conn, roles=bool(args.roles))
    except (StoreUnavailable, SchemaTooNew) as exc:
        raise UsageError(one_line(exc)) from None
    except psycopg.Error as exc:
        raise UsageError(f"the database refused: {one_line(exc)}") from None
=======
    version, roles = gate.init_store(roles=bool(args.roles))
>>>>>>> cli-gate
    print(f"schema at version {version}")
    if roles is not None:
        print(f"roles {roles[0]} and {roles[1]} ready (set their login in pg_hba.conf)")
    return OK
