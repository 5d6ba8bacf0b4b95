"""The approval app: it builds the feed and the review screen, and starts and stops the
workers (docs/architecture.md). It imports none of the core's inspection and decision
code, so the first screen paints before the core loads (``load_core``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message

from handoff_gate.tui.feed import Feed
from handoff_gate.tui.messages import Warned
from handoff_gate.tui.model import ReviewOptions
from handoff_gate.tui.screens.review import ReviewScreen

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Gate
    from handoff_gate.tui.review_core import ReviewCore

#: How often runs with a waiter are looked at again for waiters that died silently.
WAITER_RECHECK_S = 5.0


class ReviewApp(App[int]):
    """``handoff-gate watch``: review and decide handoffs as they arrive."""

    CSS_PATH = "app.tcss"
    TITLE = "handoff-gate"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", tooltip="quit (nothing is decided on the way out)", id="quit"),
    ]

    @dataclass
    class CoreReady(Message):
        core: ReviewCore

    def __init__(self, gate: Gate, options: ReviewOptions | None = None) -> None:
        super().__init__()
        #: Set once the core is handed to the screen: what runs beside the app waits for
        #: it, so its own start never slows the app's.
        self.ready = threading.Event()
        self.gate = gate
        self.options = options = options or ReviewOptions()
        # The feed posts straight to the review screen (its messages concern the view);
        # posting is thread-safe, and what arrives before the screen runs waits in its queue.
        self.feed = Feed(gate.store, lambda message: self.review.post_message(message))
        header = gate.deciding_as(options.reviewer)
        self.review = ReviewScreen(self.feed, options, where=gate.store.label(), reviewer=header)

    def get_default_screen(self) -> ReviewScreen:
        """The base screen: queries on the app (``query_one(FieldTree)``) find its widgets."""
        return self.review

    def on_mount(self) -> None:
        """Listing starts with the watch's first hint, so nothing that changes between the
        first listing and watching is missed."""
        self.run_worker(self.feed.relist_loop, thread=True, group="relist", name="relist")
        self.feed.listen(self.gate.events(poll=self.options.poll).subscribe)
        self.call_after_refresh(self.load_core)
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
        from handoff_gate.tui.review_core import ReviewCore

        self.post_message(self.CoreReady(ReviewCore(self.gate, reviewer=self.options.reviewer)))

    def on_review_app_core_ready(self, message: CoreReady) -> None:
        """The screen gets its core before inspecting starts: no result arrives before it."""
        self.review.core = message.core
        self.ready.set()
        inspecting = partial(self.feed.inspect_loop, message.core)
        self.run_worker(inspecting, thread=True, group="inspect", name="inspect")

    def _recheck_waiters(self) -> None:
        """Re-list runs someone waits in: a waiter killed before it could remove its
        record sends no event, and only a fresh look finds its process gone."""
        for run_dir in self.review.waited_runs():
            self.feed.relist(run_dir)

    def on_unmount(self) -> None:
        self.feed.close()

    def warn(self, text: str, *, title: str = "Warning") -> None:
        """Raise a warning toast, from any thread (what runs beside the app, such as
        ``watch --notify-url``'s announcer, warns through it; posting never blocks)."""
        self.review.post_message(Warned(title, text))
