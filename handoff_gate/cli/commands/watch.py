"""``handoff-gate watch``: review the handoffs under ROOT in the terminal UI.

The first screen comes before the core. Arguments that can be wrong are checked before
the app starts, so their mistakes are the same one-line usage errors as everywhere: the
store, ``--key``, ``--policy`` and extra contracts (``--schemas`` or its variable). The
built-in contracts, the validators and the decision code load after the first paint,
when the app's core worker calls ``_loader``'s function: this command module is the
boundary where start-up laziness is allowed, so the imports that defer them are here
and nowhere in ``tui`` or ``gates``. ``cli.main`` asks for the app's frame rate before
it imports this module, since Textual reads it when it is imported.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from handoff_gate.cli.errors import UsageError
from handoff_gate.cli.review_signing import unattended_signing
from handoff_gate.gates.decide.deciding_as import header_name
from handoff_gate.gates.store.select import StoreURLError, listed_store
from handoff_gate.gates.vocab.environment import SCHEMAS_ENV, STORE_ENV
from handoff_gate.tui.review_app import CoreMaker, run_review

if TYPE_CHECKING:
    from collections.abc import Callable

    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.tui.review_core import ReviewCore


def run(args: argparse.Namespace) -> int:
    url = os.environ.get(STORE_ENV, "") if args.store is None else args.store
    try:
        where = listed_store(url, args.root, "watch")
    except StoreURLError as exc:
        raise UsageError(str(exc)) from exc
    key, policy = unattended_signing(args)
    spec = os.environ.get(SCHEMAS_ENV, "") if args.schemas is None else args.schemas
    registry = _registry(spec, policy)
    return run_review(
        None,
        _loader(registry, reviewer=args.reviewer, key=key, policy=policy),
        reviewer=header_name(args.reviewer, key, policy),
        show=args.show,
        poll=args.poll,
        quiet=args.quiet,
        read_only=args.read_only,
        store=where,
    )


def _registry(spec: str, rules: Policy | None) -> Callable[[], Registry]:
    """The contracts: loaded now when extra ones are named (a bad module, or one a
    policy does not pin, is a usage error before the app starts), else the built-ins,
    loaded when first needed."""

    def load() -> Registry:
        from handoff_gate.cli.inputs import registry

        return registry(spec, rules)

    if spec:
        loaded = load()
        return lambda: loaded
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
