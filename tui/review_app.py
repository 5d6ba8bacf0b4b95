"""The approval app: its lifecycle, the feed that keeps it current, and the entry point.

Disk work never runs on the UI thread: the ``Feed`` (or ``StoreFeed`` for a database)
watches, lists and inspects in background workers and posts its results to the
``ReviewScreen``, which owns the main view, its keys, its palette commands and its
state. This module only builds them and starts and stops the workers.

It imports nothing of the core's inspection and decision code. The app is given a
function that makes a ``review_core.ReviewCore`` (``handoff-gate watch``'s imports it
then; a script passes ``partial(ReviewCore, registry, ...)``); the core worker
(``load_core``) calls it once the first screen is up and posts ``CoreReady``. The
screen is handed the core and inspection starts; until then it shows listings only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message

from handoff_gate.gates.run.reviewer import default_reviewer
from handoff_gate.gates.trust.sshsig import SigningError
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.tui.feed import Feed
from handoff_gate.tui.model import Entry, Key, Show
from handoff_gate.tui.screens.review import ReviewScreen
from handoff_gate.tui.store_feed import StoreFeed, store_label

if TYPE_CHECKING:
    from collections.abc import Callable

    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.tui.review_core import ReviewCore

#: How often runs with a waiter are looked at again for waiters that died silently.
WAITER_RECHECK_S = 5.0


def header_name(reviewer: str | None, key: SigningKey | None, policy: Policy | None) -> str:
    """Who the header says decides: with a key under a policy, the approvers the key
    signs as (the name a signed decision carries), else ``--reviewer`` or ``user@host``."""
    if key is None or policy is None:
        return reviewer or default_reviewer()
    try:
        names = policy.approvers_for(key.public_key())
    except SigningError:  # not a key: deciding will say so
        return "an unreadable key"
    if reviewer in names:
        return f"{reviewer} (key)"
    return f"{', '.join(names)} (key)" if names else "no approver (key)"


class ReviewApp(App[int]):
    """``handoff-gate watch``: review and decide handoffs as they arrive."""

    CSS_PATH = "app.tcss"
    TITLE = "handoff-gate"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", tooltip="quit (nothing is decided on the way out)", id="quit"),
    ]

    @dataclass
    class CoreReady(Message):
        """The core worker has made the app's inspection and decisions."""

        core: ReviewCore

    def __init__(
        self,
        root: Path | None,
        load: Callable[[], ReviewCore],
        *,
        reviewer: str | None = None,
        show: str = "pending",
        poll: bool = False,
        quiet: bool = False,
        read_only: bool = False,
        store: RunStore | None = None,
    ) -> None:
        """``load``: makes the inspection and decisions (contracts, key, policy); called by
        the core worker once the first screen is up. ``reviewer``: who the header says
        decides (``header_name``). ``read_only``: review only; approve and reject are
        refused and nothing is written under ``root``. ``store``: a non-local store (a
        database) shows every run in it; ``root`` is then ignored, and runs are keyed by
        ``Path(run_id)``."""
        super().__init__()
        self._load = load
        self.store = store if root is None else None
        if self.store is None:
            if root is None:
                raise ValueError("a filesystem review needs a root folder")
            self.root = root.absolute()
            where = self.root.name or str(self.root)
        else:
            where = store_label(self.store)
            self.root = Path(where)
            self.title = f"handoff-gate · {visible(where)}"
        self.review = ReviewScreen(
            self._make_feed(poll),
            where=where,
            reviewer=reviewer or default_reviewer(),
            show=Show(show),
            quiet=quiet,
            read_only=read_only,
            count_waiters=self.store is None,
        )

    def _make_feed(self, poll: bool) -> Feed:
        """The feed posts straight to the review screen (its messages concern the view);
        posting is thread-safe, and what arrives before the screen runs waits in its queue."""

        def post(message: Any) -> bool:
            return self.review.post_message(message)

        if self.store is None:
            return Feed(self.root, post, poll=poll)
        return StoreFeed(self.store, post)

    @property
    def feed(self) -> Feed:
        return self.review.feed

    def get_default_screen(self) -> ReviewScreen:
        """The review screen is the app's base screen: dialogs go over it, and queries on
        the app (``app.query_one(FieldTree)``) find its widgets as before."""
        return self.review

    def on_mount(self) -> None:
        feed = self.feed
        feed.start()
        self.run_worker(feed.relist_loop, thread=True, group="relist", name="relist")
        if isinstance(feed, StoreFeed):
            self.run_worker(feed.listen_loop, thread=True, group="watch", name="listen")
        else:
            self.run_worker(feed.watch, thread=True, group="watch", name="watch")
        self.call_after_refresh(self.load_core)
        if self.store is None:
            self.set_interval(WAITER_RECHECK_S, self._recheck_waiters)

    @work(thread=True, exclusive=True, group="core", name="core")
    def load_core(self) -> None:
        """Make the core off the UI thread once the first screen is up, and post it.

        Making it imports the contracts, the validators and the decision code (about
        100 ms of Python holding the GIL); started with the listing, it slowed the first
        paint by about as much. Listing alone fills the first screen's rows. Watching
        still starts at mount: a handoff written as soon as the list is shown must not be
        missed.
        """
        self.post_message(self.CoreReady(self._load()))

    def on_review_app_core_ready(self, message: CoreReady) -> None:
        """Hand the screen its core, then start inspecting with it: every inspection
        reaches the screen after its core."""
        self.review.core = message.core
        self.run_worker(
            partial(self.feed.inspect_loop, message.core),
            thread=True,
            group="inspect",
            name="inspect",
        )

    def _recheck_waiters(self) -> None:
        """Re-list runs someone waits in: a waiter killed before it could remove its
        record sends no event, and only a fresh look finds its process gone."""
        for run_dir in self.review.waited_runs():
            self.feed.relist(run_dir)

    def on_unmount(self) -> None:
        self.feed.close()

    # The review screen's view, for scripts and tests that hold the app.

    @property
    def entries(self) -> dict[Key, Entry]:
        """Every handoff known, by (run directory, handoff id)."""
        return self.review.entries

    def listed(self) -> list[Key]:
        """The handoffs in the list, top to bottom."""
        return self.review.listed()

    def current_entry(self) -> Entry | None:
        """The handoff the list's cursor is on."""
        return self.review.current_entry()

    def jump_to(self, key: Key) -> None:
        """Select a handoff, widening the filter if it hides it."""
        self.review.jump_to(key)


def run_review(
    root: Path | None,
    load: Callable[[], ReviewCore],
    *,
    reviewer: str | None,
    show: str,
    poll: bool,
    quiet: bool,
    read_only: bool = False,
    store: RunStore | None = None,
) -> int:
    """Run the app until it quits; returns the process exit code.

    ``load``: see ``ReviewApp``. ``store``: a non-local store shows every run in it
    (``root`` ignored).
    """
    remote = root is None and store is not None
    if not remote and (root is None or not root.is_dir()):
        print(f"handoff-gate watch: not a directory: {visible(str(root))}", file=sys.stderr)
        return 2
    app = ReviewApp(
        root,
        load,
        reviewer=reviewer,
        show=show,
        poll=poll,
        quiet=quiet,
        read_only=read_only,
        store=store if remote else None,
    )
    result: Any = app.run()
    return int(result or 0)
