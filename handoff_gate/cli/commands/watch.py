"""``handoff-gate watch``: review the handoffs under ROOT in the terminal UI.

The first screen comes before the core. Arguments that can be wrong are checked before
the app starts, so their mistakes are the same one-line usage errors as everywhere: the
store, ``--key``, ``--policy`` and extra contracts (``--schemas`` or its variable). The
built-in contracts, the validators and the decision code load after the first paint,
when the app's core worker calls ``_loader``'s function: this command module is the
boundary where start-up laziness is allowed, so the imports that defer them are here
and nowhere in ``tui`` or ``gates``. ``cli.main`` asks for the app's frame rate before
it imports this module, since Textual reads it when it is imported.

``--notify-url``: the URLs are checked before the app starts (``cli.notify_urls``); the
announcer (``gates.notify``) runs beside the app, over the same store and contracts, and
loads only when a URL is given. The app owns the screen, so a notification that failed
is a toast while it runs and, once it has quit, one line on stderr counting them.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import UsageError
from handoff_gate.cli.notify_urls import notify_targets
from handoff_gate.cli.review_signing import unattended_signing
from handoff_gate.gates.decide.deciding_as import header_name
from handoff_gate.gates.store.select import StoreURLError, listed_store
from handoff_gate.gates.vocab.environment import SCHEMAS_ENV, STORE_ENV
from handoff_gate.tui.review_app import CoreMaker, ReviewApp, run_review

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.gate import Gate
    from handoff_gate.gates.notify.targets import Targets
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.tui.review_core import ReviewCore


def run(gate: Gate, args: argparse.Namespace) -> int:
    url = os.environ.get(STORE_ENV, "") if args.store is None else args.store
    try:
        where = listed_store(url, args.root, "watch")
    except StoreURLError as exc:
        raise UsageError(str(exc)) from exc
    key, policy = unattended_signing(args)
    spec = os.environ.get(SCHEMAS_ENV, "") if args.schemas is None else args.schemas
    registry = _registry(spec, policy)
    targets = notify_targets(args)
    warnings = AppWarnings()
    code = run_review(
        None,
        _loader(registry, reviewer=args.reviewer, key=key, policy=policy),
        reviewer=header_name(args.reviewer, key, policy),
        show=args.show,
        poll=args.poll,
        quiet=args.quiet,
        read_only=args.read_only,
        store=where,
        beside=None
        if targets is None
        else announcing(where, targets, registry, policy=policy, poll=args.poll, warn=warnings),
    )
    warnings.report()
    return code


def announcing(
    where: RunStore,
    targets: Targets,
    registry: Callable[[], Registry],
    *,
    policy: Policy | None,
    poll: bool,
    warn: AppWarnings,
) -> Callable[[ReviewApp], AbstractContextManager[object]]:
    """What runs beside the app: the announcer over the app's store and contracts,
    warning through ``warn``, which shows them on the app. It begins once the app is
    ready (first screen and core up): its first look inspects every undecided handoff,
    and started with the app it doubled the time to the first screen."""
    from handoff_gate.gates.notify.announcer import Announcer

    @contextmanager
    def beside(app: ReviewApp) -> Iterator[None]:
        warn.app = app
        try:
            announcer = Announcer(
                where, targets, registry, policy=policy, poll=poll, warn=warn, begin=app.ready
            )
            with announcer:
                yield
        finally:
            warn.app = None

    return beside


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


def _registry(spec: str, rules: Policy | None) -> Callable[[], Registry]:
    """The contracts: loaded now when extra ones are named (a bad module, or one a
    policy does not pin, is a usage error before the app starts), else the built-ins,
    loaded when first needed (by the app's core or the announcer: once for both)."""

    lock = threading.Lock()
    loaded: list[Registry] = []

    def load() -> Registry:
        """Loaded once, whichever of the app's core and the announcer asks first."""
        with lock:
            if not loaded:
                from handoff_gate.cli.inputs import registry

                loaded.append(registry(spec, rules))
            return loaded[0]

    if spec:
        load()
    return load


def _loader(
    registry: Callable[[], Registry],
    *,
    reviewer: str | None,
    key: SigningKey | None,
    policy: Policy | None,
) -> CoreMaker:
    """What the app calls (from its core worker, after the first paint) to make its
    inspection and decisions."""

    def load(*, store: RunStore) -> ReviewCore:
        from handoff_gate.tui.review_core import ReviewCore

        make = ReviewCore.maker(registry(), reviewer=reviewer, key=key, policy=policy)
        return make(store=store)

    return load
