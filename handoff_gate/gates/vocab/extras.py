"""The optional parts of the install, and the one line that names a missing one.

A database store, the browser front end and notifications pull in stacks most pipelines
never use, so each is an extra (pyproject.toml), imported inside :func:`needs_extra`: a
missing package becomes one line naming the extra to install (exit 2), not a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: extra -> the top-level modules it installs that the code imports.
EXTRAS: dict[str, frozenset[str]] = {
    "postgres": frozenset({"psycopg"}),
    "serve": frozenset({"textual_serve", "aiohttp", "aiohttp_jinja2"}),
    "notify": frozenset({"apprise"}),
}


class MissingExtra(ImportError):
    """A feature whose optional packages are not installed; the message says which extra."""

    def __init__(self, extra: str) -> None:
        super().__init__(f"needs the {extra} extra: pip install 'handoff-gate[{extra}]'")
        self.extra = extra


@contextmanager
def needs_extra(extra: str) -> Iterator[None]:
    """Import an extra's packages inside this block: one of them missing raises
    :class:`MissingExtra`. Any other import error (a bug, a broken install of something
    else) passes through unchanged, so it is never blamed on an extra."""
    modules = EXTRAS[extra]
    try:
        yield
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] in modules:
            raise MissingExtra(extra) from exc
        raise
