"""Which store a command or a pipeline talks to: a URL, or the filesystem by default.

``HANDOFF_GATE_STORE`` (or the CLI's ``--store``) names a PostgreSQL database with a
``postgresql://`` URL; unset, runs are directories, exactly as without a database. The
database driver is loaded only when a URL asks for it, so filesystem users never pay
for it.
"""

from __future__ import annotations

import os
import re

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore

#: The environment variable naming the store.
STORE_ENV = "HANDOFF_GATE_STORE"
#: URL schemes naming a PostgreSQL database (libpq accepts both).
_SCHEMES = ("postgresql://", "postgres://")
#: What an error may show of a refused URL: its scheme, never the rest (it may hold a password).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,19})://")


class StoreURLError(ValueError):
    """A store URL this build cannot use."""


def store_for(url: str | None = None) -> RunStore:
    """The store ``url`` names; ``None`` reads ``HANDOFF_GATE_STORE``; empty: the filesystem."""
    spec = os.environ.get(STORE_ENV, "") if url is None else url
    if not spec:
        return FilesystemStore()
    if spec.startswith(_SCHEMES):
        # The driver boundary: psycopg loads only for a database URL (see architecture.md).
        from handoff_gate.gates.store.postgres import PostgresStore

        return PostgresStore(spec)
    raise StoreURLError(f"the store must be empty or a postgresql:// URL, not {_shown(spec)}")


def _shown(spec: str) -> str:
    """A refused store spec as an error may name it: a URL or a libpq ``key=value`` string
    can carry a password, so only a well-formed scheme is ever repeated."""
    scheme = _SCHEME.match(spec)
    if scheme is None:
        return "this value (not shown: it may hold a password)"
    return f"a {scheme.group(1)}:// URL"
