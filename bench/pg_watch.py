"""``handoff-gate --store URL watch`` on PostgreSQL (issue 10): a new handoff's row
painted (``bench.pg_visible``) and 10,000 handoffs at start-up (``bench.pg_scale``).

One throwaway server for both, started the way the tests start theirs
(``tests/pg_server.py``); without PostgreSQL binaries the benchmark is left out.
"""

from __future__ import annotations

import sys

from bench.config import Context
from bench.figures import Figure
from bench.pg_scale import scale_figures
from bench.pg_visible import visible_figure
from bench.procs import compile_project
from tests.pg_server import PgServer, PgUnavailable


def run(ctx: Context) -> list[Figure]:
    try:
        server = PgServer.create()
    except PgUnavailable as exc:
        print(f"[pg_watch] left out: {exc}", file=sys.stderr)
        return []
    try:
        compile_project(ctx.python)  # time what an installed package starts from (see procs)
        return [visible_figure(ctx, server), *scale_figures(ctx, server)]
    finally:
        server.destroy()
