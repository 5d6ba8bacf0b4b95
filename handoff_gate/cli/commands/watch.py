"""``handoff-gate watch``: review the handoffs under ROOT in the terminal UI.

The review runs over the command's one ``Gate``, so its mistakes are the same one-line
usage errors as everywhere, before the app starts. With ``--notify-url`` the announcer
(``gates.notify``) shares the app's watch of the store; the app owns the screen, so a
failed notification is a toast, then one line on stderr once it has quit.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING

from handoff_gate.cli.notify_urls import notify_targets
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.tui.model import ReviewOptions, Show
from handoff_gate.tui.review_app import ReviewApp

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Gate, Targets


def run(gate: Gate, args: argparse.Namespace) -> int:
    """The app over ``gate`` until it quits, with the announcer beside it for
    ``--notify-url``; the exit code is the app's."""
    _settle(gate)
    targets = notify_targets(args)
    options = ReviewOptions(
        reviewer=args.reviewer,
        show=Show(args.show),
        poll=args.poll,
        quiet=args.quiet,
        read_only=args.read_only,
    )
    app = ReviewApp(gate, options)
    if args.root is None:  # a store, not a folder: the terminal's title says which
        app.title = f"handoff-gate · {visible(gate.store.label())}"
    warnings = AppWarnings()
    beside = nullcontext() if targets is None else announcing(app, targets, args.poll, warnings)
    with beside:
        code = int(app.run() or 0)
    warnings.report()
    return code


def _settle(gate: Gate) -> None:
    """A mistake in the store, ROOT, the policy or a named contracts module is a one-line
    usage error before the app starts; the built-in contracts alone load after the first
    paint, in the app's core worker (the only thread that asks for them first)."""
    _ = gate.store, gate.policy
    if gate.config is not None and gate.config.schemas:
        _ = gate.contracts


@contextmanager
def announcing(app: ReviewApp, targets: Targets, poll: bool, warn: AppWarnings) -> Iterator[None]:
    """The announcer beside ``app``, over its Gate and that Gate's one watch of the
    store, warning through ``warn``, which shows them on the app. It begins once the app
    is ready (first screen and core up): its first look judges every undecided handoff,
    and started with the app it doubled the time to the first screen."""
    warn.app = app
    try:
        with app.gate.announcer(targets, poll=poll, warn=warn, begin=app.ready):
            yield
    finally:
        warn.app = None


class AppWarnings:
    """The announcer's warnings while the app owns the screen: each a toast on the app
    (``ReviewApp.warn``, from the sending thread), and, once the app has quit, one line on
    stderr saying how many there were and the last (stderr is the app's screen before)."""

    def __init__(self) -> None:
        self.app: ReviewApp | None = None
        self._lock = threading.Lock()
        self._said: list[str] = []

    def __call__(self, text: str) -> None:
        with self._lock:
            self._said.append(text)
        app = self.app
        if app is not None:
            app.warn(text, title="Notifications")

    def report(self) -> None:
        with self._lock:
            said = list(self._said)
        if said:
            count = "1 warning" if len(said) == 1 else f"{len(said)} warnings"
            last = said[-1]
            print(f"handoff-gate watch: --notify-url: {count}; the last: {last}", file=sys.stderr)
