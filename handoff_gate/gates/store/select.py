"""Which store a command or a pipeline talks to: a URL whose scheme is in ``STORES``, or
run directories. A store's driver is imported only when a URL of its scheme is opened.
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


#: libpq accepts both.
POSTGRES = ("postgresql", "postgres")
STORES: dict[str, Callable[[str], RunStore]] = dict.fromkeys(POSTGRES, _postgres)


def scheme_of(spec: str) -> str | None:
    """As written (libpq's are lower-case only)."""
    found = _SCHEME.match(spec)
    return None if found is None else found.group(1)


def store_for(url: str) -> RunStore:
    if not url:
        return FilesystemStore()
    opener = STORES.get(scheme_of(url) or "")
    if opener is None:
        known = ", ".join(f"{scheme}://" for scheme in STORES)
        raise StoreURLError(f"the store must be empty or a URL of {known}, not {_shown(url)}")
    return opener(url)


def listed_store(url: str, root: str | None, command: str) -> RunStore:
    """For a command that shows every run (``list``, ``watch``)."""
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
    spec = os.fspath(where)
    return FilesystemStore(spec) if scheme_of(spec) is None else store_for(spec)


def _shown(spec: str) -> str:
    """Only a well-formed scheme is repeated: a URL or ``key=value`` can hold a password."""
    scheme = scheme_of(spec)
    if scheme is None:
        return "this value (not shown: it may hold a password)"
    return f"a {scheme}:// URL"
