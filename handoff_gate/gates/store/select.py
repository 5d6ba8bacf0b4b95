"""Which store a command or a pipeline talks to: a URL, or the filesystem by default.

``HANDOFF_GATE_STORE`` (or the CLI's ``--store``) names a PostgreSQL database with a
``postgresql://`` URL; unset, runs are directories, exactly as without a database. The
database driver is loaded only when a URL asks for it, so filesystem users never pay
for it. Nothing here reads the environment: a ``Gate`` (or the CLI's parser) does, once.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.vocab.extras import needs_extra

#: URL schemes naming a PostgreSQL database (libpq accepts both).
_SCHEMES = ("postgresql://", "postgres://")
#: What an error may show of a refused URL: its scheme, never the rest (it may hold a password).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,19})://")


class StoreURLError(ValueError):
    """A store URL this build cannot use."""


def store_for(url: str) -> RunStore:
    """The store ``url`` names (``--store``, ``HANDOFF_GATE_STORE``); empty: run folders
    named by their paths."""
    if not url:
        return FilesystemStore()
    if url.startswith(_SCHEMES):
        # The driver boundary: psycopg loads only for a database URL (see architecture.md).
        with needs_extra("postgres"):
            from handoff_gate.gates.store.postgres import PostgresStore

        return PostgresStore(url)
    raise StoreURLError(f"the store must be empty or a postgresql:// URL, not {_shown(url)}")


def listed_store(url: str, root: str | None, command: str) -> RunStore:
    """The store a command that shows every run looks at (``list``, ``watch``): the
    database ``url`` names (no ROOT then), else the run folder or folder of runs ROOT."""
    if url:
        if root:
            raise StoreURLError(
                f"with a database store, {command} takes no ROOT: it shows every run"
            )
        return store_for(url)
    if not root:
        raise StoreURLError(f"{command} needs ROOT: a run directory or a folder of runs")
    if not Path(root).is_dir():
        raise StoreURLError(f"not a directory: {root}")
    return FilesystemStore(root)


def store_at(where: str | os.PathLike[str]) -> RunStore:
    """The store a ``Gate`` is given: a ``postgresql://`` URL, or a folder of runs."""
    spec = os.fspath(where)
    if spec.startswith(_SCHEMES) or _SCHEME.match(spec):
        return store_for(spec)
    return FilesystemStore(spec)


def _shown(spec: str) -> str:
    """A refused store spec as an error may name it: a URL or a libpq ``key=value`` string
    can carry a password, so only a well-formed scheme is ever repeated."""
    scheme = _SCHEME.match(spec)
    if scheme is None:
        return "this value (not shown: it may hold a password)"
    return f"a {scheme.group(1)}:// URL"
