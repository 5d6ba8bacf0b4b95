"""Where a test's run lives: a run folder or a database, both through the CLI's words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    """A store (a folder or a URL), the run in it, and the CLI's ``--store`` words."""

    store: str
    run: str
    store_args: tuple[str, ...]
