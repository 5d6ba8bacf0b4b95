"""``handoff-gate store init [--roles]``: create or migrate the PostgreSQL schema.

The store is the URL of ``--store`` (this command's own or a global one) or of
``HANDOFF_GATE_STORE``. Safe to run twice or from two hosts at once (``init_schema`` holds
an advisory lock). Every failure is a one-line ``UsageError`` (exit 2).

Only this command loads the database driver; the dispatch in ``cli.main`` imports this
module when ``store`` is the command being run.
"""

from __future__ import annotations

import argparse
import os

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


def run(args: argparse.Namespace) -> int:
    """Apply the missing migrations (and roles) and say which version the schema is at."""
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
    print(f"schema at version {version}")
    if args.roles:
        print(f"roles {PIPELINE_ROLE} and {REVIEWER_ROLE} ready (set their login in pg_hba.conf)")
    return OK
