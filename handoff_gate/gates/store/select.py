"""Which store a command or a pipeline talks to: a URL, or the filesystem by default.

``HANDOFF_GATE_STORE`` (or the CLI's ``--store``) names a store by a URL whose scheme is
in ``STORES``, the one table of stores by URL; unset, runs are directories. A store's
code (and its driver) is imported only when a URL of its scheme is opened, so filesystem
users never pay for it. Nothing here reads the environment: a ``Gate`` (or the CLI's
parser) does, once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.vocab.extras import needs_extra

#: What an error may show of a refused URL: its scheme, never the rest (it may hold a password).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,19})://")


class StoreURLError(ValueError):
    """A store URL this build cannot use."""


def _postgres(url: str) -> RunStore:
    # The driver boundary: psycopg loads only for a database URL (see architecture.md).
    with needs_extra("postgres"):
        from handoff_gate.gates.store.postgres import PostgresStore

    return PostgresStore(url)


#: The schemes naming a PostgreSQL database (libpq accepts both).
POSTGRES = ("postgresql", "postgres")
#: URL scheme -> what opens the store a URL of that scheme names.
STORES: dict[str, Callable[[str], RunStore]] = dict.fromkeys(POSTGRES, _postgres)


def scheme_of(spec: str) -> str | None:
    """The scheme of a ``scheme://`` URL, as written (libpq's are lower-case only);
    ``None`` for anything else."""
    found = _SCHEME.match(spec)
    return None if found is None else found.group(1)


def store_for(url: str) -> RunStore:
    """The store ``url`` names (``--store``, ``HANDOFF_GATE_STORE``); empty: run folders
    named by their paths. A URL of no scheme in ``STORES`` is one line naming those."""
    if not url:
        return FilesystemStore()
    opener = STORES.get(scheme_of(url) or "")
    if opener is None:
        known = ", ".join(f"{scheme}://" for scheme in STORES)
        raise StoreURLError(f"the store must be empty or a URL of {known}, not {_shown(url)}")
    return opener(url)


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
    """The store a ``Gate`` is given: a store URL, or a folder of runs."""
    spec = os.fspath(where)
    return FilesystemStore(spec) if scheme_of(spec) is None else store_for(spec)


def _shown(spec: str) -> str:
    """A refused store spec as an error may name it: a URL or a libpq ``key=value`` string
    can carry a password, so only a well-formed scheme is ever repeated."""
    scheme = scheme_of(spec)
    if scheme is None:
        return "this value (not shown: it may hold a password)"
    return f"a {scheme}:// URL"
