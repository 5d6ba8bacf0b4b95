"""``handoff-gate store init [--roles]``: create or migrate the PostgreSQL schema.

The store is the URL of ``--store`` (this command's own or the global one) or of
``HANDOFF_GATE_STORE``. Safe to run twice or from two hosts at once (``init_schema`` holds
an advisory lock). Every failure is one line on stderr and exit 2. The database driver is
imported only when the command runs, so building the CLI's parser never loads it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from handoff_gate.gates.store.select import STORE_ENV

OK = 0
USAGE = 2
_SCHEMES = ("postgresql://", "postgres://")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``store`` (with its ``init`` action) to the CLI's subcommands."""
    text = "manage the PostgreSQL store (HANDOFF_GATE_STORE or --store URL)"
    parser: argparse.ArgumentParser = subparsers.add_parser("store", help=text, description=text)
    actions = parser.add_subparsers(dest="store_action", required=True, metavar="ACTION")
    init_text = "create or migrate the schema (idempotent, versioned; safe from two hosts at once)"
    init = actions.add_parser("init", help=init_text, description=init_text)
    init.add_argument(
        "--roles",
        action="store_true",
        help="also create the LOGIN roles handoff_gate_pipeline and handoff_gate_reviewer "
        "(no passwords) and grant each only what it may do",
    )
    # SUPPRESS: without a value here, a global --store given before the subcommand stays.
    init.add_argument("--store", metavar="URL", default=argparse.SUPPRESS)
    init.set_defaults(func=run)
    return parser


def _fail(message: str) -> int:
    print(f"handoff-gate store init: {message}", file=sys.stderr)
    return USAGE


def run(args: argparse.Namespace) -> int:
    """Apply the missing migrations (and roles); 0 on success, 2 with one line otherwise."""
    url = getattr(args, "store", None) or os.environ.get(STORE_ENV, "")
    if not url.startswith(_SCHEMES):
        return _fail(f"needs a postgresql:// URL in --store or {STORE_ENV}")
    import psycopg  # the driver loads only when this command runs

    from handoff_gate.gates.store.pg_connect import (
        StoreUnavailable,
        connect,
        one_line,
    )
    from handoff_gate.gates.store.postgres_schema import (
        PIPELINE_ROLE,
        REVIEWER_ROLE,
        SchemaTooNew,
        init_schema,
    )

    try:
        with connect(url) as conn:
            version = init_schema(conn, roles=bool(args.roles))
    except (StoreUnavailable, SchemaTooNew) as exc:
        return _fail(one_line(exc))
    except psycopg.Error as exc:
        return _fail(f"the database refused: {one_line(exc)}")
    print(f"schema at version {version}")
    if args.roles:
        print(f"roles {PIPELINE_ROLE} and {REVIEWER_ROLE} ready (set their login in pg_hba.conf)")
    return OK
