"""``handoff-gate store init [--roles]``: create or migrate the PostgreSQL schema.

The store is the URL of ``--store`` (this command's own or a global one) or of
``HANDOFF_GATE_STORE``. Safe to run twice or from two hosts at once (``init_schema`` holds
an advisory lock). Every failure is a one-line ``UsageError`` (exit 2).

Unlike the other command modules this one imports inside ``run``: ``add_arguments`` is
called whenever the parser is built, for every command, and must not load the database
driver.
"""

from __future__ import annotations

import argparse
import os

from handoff_gate.cli.errors import OK, UsageError

#: Same as ``gates.store.select.STORE_ENV``, which this module does not import at the top.
_STORE_ENV = "HANDOFF_GATE_STORE"
_SCHEMES = ("postgresql://", "postgres://")
HELP = "manage the PostgreSQL store (HANDOFF_GATE_STORE or --store URL)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Fill the ``store`` subcommand's parser: its ``init`` action and options."""
    actions = parser.add_subparsers(dest="store_action", required=True, metavar="ACTION")
    text = "create or migrate the schema (idempotent, versioned; safe from two hosts at once)"
    init = actions.add_parser("init", help=text, description=text)
    init.add_argument(
        "--roles",
        action="store_true",
        help="also create the LOGIN roles handoff_gate_pipeline and handoff_gate_reviewer "
        "(no passwords) and grant each only what it may do",
    )
    # SUPPRESS: without a value here, a global --store given before the subcommand stays.
    init.add_argument("--store", metavar="URL", default=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Apply the missing migrations (and roles) and say which version the schema is at."""
    url = getattr(args, "store", None) or os.environ.get(_STORE_ENV, "")
    if not url.startswith(_SCHEMES):
        raise UsageError(f"store init needs a postgresql:// URL in --store or {_STORE_ENV}")
    import psycopg  # the driver loads only when this command runs

    from handoff_gate.gates.store.pg_connect import StoreUnavailable, connect, one_line
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
        raise UsageError(one_line(exc)) from None
    except psycopg.Error as exc:
        raise UsageError(f"the database refused: {one_line(exc)}") from None
    print(f"schema at version {version}")
    if args.roles:
        print(f"roles {PIPELINE_ROLE} and {REVIEWER_ROLE} ready (set their login in pg_hba.conf)")
    return OK
