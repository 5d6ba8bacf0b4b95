"""``--notify-url URL`` (repeatable): the Apprise URLs, checked before the command starts,
so a URL Apprise cannot use is a usage error rather than a warning when the first
handoff waits. Nothing of Apprise loads unless a URL is given: most runs notify nobody.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import UsageError
from handoff_gate.gates.vocab.environment import ConfigError

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Targets


def add_notify_url(p: argparse.ArgumentParser) -> None:
    """The ``--notify-url`` option, worded alike on every command that takes it."""
    p.add_argument(
        "--notify-url",
        action="append",
        metavar="URL",
        help="announce handoffs that wait for a decision to this Apprise URL "
        "(ntfy://, slack://, discord://, mailto://, json://HOST:PORT/ ...; repeatable); "
        "ids, runs, phases, producers and verdicts, never payload text",
    )


def notify_targets(args: argparse.Namespace) -> Targets | None:
    """The checked ``--notify-url`` targets (``None``: none given)."""
    urls: list[str] | None = getattr(args, "notify_url", None)
    if not urls:
        return None
    from handoff_gate.gates.gate import Gate

    try:
        return Gate.notify_targets(urls)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
