"""``HandoffGateApp``: the approval app built from a loaded registry, for scripts and tests.

``handoff-gate watch`` builds ``review_app.ReviewApp`` with a loader instead, so that
the contracts and the inspection and decision code load after the first paint; here
they are loaded already (importing this module imports them), and the app is the same.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import TYPE_CHECKING

from handoff_gate.tui.backend import CoreBackend
from handoff_gate.tui.review_app import ReviewApp, header_name, review_store, run_review

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey


class HandoffGateApp(ReviewApp):
    """``handoff-gate watch``: review and decide handoffs as they arrive."""

    def __init__(
        self,
        root: Path | None,
        registry: Registry,
        *,
        reviewer: str | None = None,
        show: str = "pending",
        poll: bool = False,
        quiet: bool = False,
        read_only: bool = False,
        key: SigningKey | None = None,
        policy: Policy | None = None,
        store: RunStore | None = None,
    ) -> None:
        """``read_only``: review only; approve and reject are refused and nothing is
        written under ``root``. ``key`` and ``policy``: decisions are signed with the
        key, and only a principal the policy lets decide a handoff's phase may try.
        ``store``: every run in it is shown (``root`` then ``None``); runs are keyed by
        ``Path(store.run_label(run))``."""
        super().__init__(
            root,
            _loaded(registry, reviewer, key, policy, review_store(root, store)),
            reviewer=header_name(reviewer, key, policy),
            show=show,
            poll=poll,
            quiet=quiet,
            read_only=read_only,
            store=store,
        )
        self.registry = registry


def run_app(
    root: Path | None,
    registry: Registry,
    *,
    reviewer: str | None,
    show: str,
    poll: bool,
    quiet: bool,
    read_only: bool = False,
    key: SigningKey | None = None,
    policy: Policy | None = None,
    store: RunStore | None = None,
) -> int:
    """``handoff-gate watch`` over a loaded registry; returns the process exit code.

    ``read_only``: decisions are refused in the app and nothing is written under ``root``.
    ``key``/``policy``: sign decisions, and refuse up front those the key's principal
    may not make. ``store``: every run in it is shown (``root`` then ``None``).
    """
    if key is not None and policy is None:
        print("handoff-gate watch: --key needs --policy", file=sys.stderr)
        return 2
    return run_review(
        root,
        _loaded(registry, reviewer, key, policy, review_store(root, store)),
        reviewer=header_name(reviewer, key, policy),
        show=show,
        poll=poll,
        quiet=quiet,
        read_only=read_only,
        store=store,
    )


def _loaded(
    registry: Registry,
    reviewer: str | None,
    key: SigningKey | None,
    policy: Policy | None,
    store: RunStore,
) -> Callable[[], CoreBackend]:
    """The loader ``ReviewApp`` takes, over a registry that is loaded already; ``store``:
    where the reviewed runs live."""
    return partial(CoreBackend, registry, reviewer=reviewer, key=key, policy=policy, store=store)
