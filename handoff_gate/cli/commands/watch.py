"""``handoff-gate watch``: review the handoffs under ROOT in the terminal UI.

The review runs over one ``Gate`` (``gate_for``: the store, or the folder ROOT, the
contracts under the policy's pins, a key that never prompts), so its mistakes are the
same one-line usage errors as everywhere, before the app starts. The app's core
(``tui.review_core``, with the field view's models) loads after the first paint, in the
app's core worker.

``--notify-url``: the URLs are checked before the app starts (``cli.notify_urls``); the
announcer (``gates.notify``) runs beside the app over the same Gate, subscribed to the
same watch of the store (``Gate.events``), so each new handoff is inspected once for
both, and loads only when a URL is given. The app owns the screen, so a notification
that failed is a toast while it runs and, once it has quit, one line on stderr counting
them.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING

from handoff_gate.cli.notify_urls import notify_targets
from handoff_gate.cli.review_signing import unattended_signing
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.tui.model import ReviewOptions, Show
from handoff_gate.tui.review_app import ReviewApp

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Gate
    from handoff_gate.gates.notify.targets import Targets


def gate_for(args: argparse.Namespace) -> Gate:
    """The Gate ``watch``'s arguments describe: every run of ``--store`` (or the
    environment's), or of the folder ROOT; ``--schemas`` loaded under the pins of
    ``--policy``; ``--key``, refused now if it would prompt for a passphrase."""
    from handoff_gate.cli.inputs import listed, setup_from
    from handoff_gate.gates.gate import Gate

    key, _ = unattended_signing(args)
    setup = setup_from(args, listed(args, "watch"))
    return Gate(setup=replace(setup, key=key, owns_store=True))


def run(gate: Gate, args: argparse.Namespace) -> int:
    """The app over ``gate`` until it quits, with the announcer beside it for
    ``--notify-url``; the exit code is the app's."""
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


@contextmanager
def announcing(app: ReviewApp, targets: Targets, poll: bool, warn: AppWarnings) -> Iterator[None]:
    """The announcer beside ``app``, over its Gate and that Gate's one watch of the
    store, warning through ``warn``, which shows them on the app. It begins once the app
    is ready (first screen and core up): its first look judges every undecided handoff,
    and started with the app it doubled the time to the first screen."""
    from handoff_gate.gates.notify.announcer import Announcer

    warn.app = app
    try:
        with Announcer(app.gate.events(poll=poll), targets, warn=warn, begin=app.ready):
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
