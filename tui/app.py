"""The approval app: a live list of handoffs under ROOT and the selected one field by field.

Disk work never runs on the UI thread: the ``Feed`` watches, lists and inspects in the
background and posts results as messages. The app folds them into its entries; the
list and the detail pane only ever display entries. Decisions go through
``gates.decisions.decide`` in a worker thread.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Static

from handoff_gate.gates.run.decision_record import describe
from handoff_gate.gates.run.decisions import (
    DecisionRefused,
    decide,
    default_reviewer,
    principal_for,
)
from handoff_gate.gates.run.quorum import NoRule, rule_of
from handoff_gate.gates.view.reject_hint import suggest_category
from handoff_gate.gates.vocab.actions import Action, Category
from handoff_gate.gates.vocab.report import FieldRow
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.gates.vocab.states import HandoffState, needs_person
from handoff_gate.tui.feed import Feed
from handoff_gate.tui.messages import BodyReady, Decided, Inspected, Listed, WatchFailed
from handoff_gate.tui.model import (
    Entry,
    Key,
    Label,
    Show,
    placement,
    previous_same_phase,
    visible_entries,
)
from handoff_gate.tui.palette import ActionProvider, JumpProvider
from handoff_gate.tui.render import BADGE_WIDTH, finding_text, fit, list_row, safe
from handoff_gate.tui.scan import LOCAL, RunListing
from handoff_gate.tui.store_feed import StoreFeed, store_copy, store_label
from handoff_gate.tui.widgets.detail import Body, Detail
from handoff_gate.tui.widgets.field_tree import FieldTree
from handoff_gate.tui.widgets.handoff_list import HandoffList

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy, Rule
    from handoff_gate.tui.screens.reject import Rejection

#: Widest run name and handoff id columns in the list (longer ones are cut with "…").
MAX_RUN_WIDTH = 22
MAX_ID_WIDTH = 18
#: The run column never shrinks below this (an id still comes first).
MIN_RUN_WIDTH = 4
#: After a decision sent the cursor to another run, a handoff that arrives in the decided
#: run this soon (the pipeline's next step) takes the cursor back, if it has not moved.
FOLLOW_RUN_S = 5.0
#: Parsed reports kept in memory (the rest keep only their state and list label).
HOT_REPORTS = 64
#: New entries it takes before the heap is frozen out of garbage collection again.
FREEZE_MIN = 1000
#: Bulk updates (background inspection) repaint the list at most this often.
LIST_REFRESH_S = 0.1
#: How often runs with a waiter are looked at again for waiters that died silently.
WAITER_RECHECK_S = 5.0
#: Actions that only make sense on the main view, not under a dialog.
_MAIN_ACTIONS = frozenset(
    {
        "approve",
        "reject",
        "raw",
        "diff",
        "next_waiting",
        "previous_waiting",
        "filter",
        "help",
        "open_value",
        "show_rejected",
    }
)


class HandoffGateApp(App[int]):
    """``handoff-gate watch``: review and decide handoffs as they arrive."""

    CSS_PATH = "app.tcss"
    TITLE = "handoff-gate"
    COMMANDS: ClassVar = App.COMMANDS | {ActionProvider, JumpProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", tooltip="approve the selected handoff (asks first)"),
        Binding("r", "reject", "Reject", tooltip="reject with a reason and a category"),
        Binding("v", "raw", "Raw", tooltip="the exact text, unsafe characters made visible"),
        Binding("d", "diff", "Diff", tooltip="diff with the run's previous handoff of the phase"),
        Binding("n", "next_waiting", "Next pending", tooltip="next handoff needing a decision"),
        Binding("p", "previous_waiting", "Prev pending", tooltip="previous one needing one"),
        Binding("f", "filter", "Filter", tooltip="cycle pending → rejected → approved → all"),
        Binding("R", "show_rejected", "Rejected", show=False, tooltip="list rejected handoffs"),
        Binding("o", "open_value", "Full value", show=False, tooltip="the field's whole value"),
        Binding("question_mark", "help", "Help", tooltip="this help"),
        Binding("q", "quit", "Quit", tooltip="quit (nothing is decided on the way out)"),
    ]

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
        key_path: Path | None = None,
        policy: Policy | None = None,
        store: RunStore | None = None,
    ) -> None:
        """``read_only``: review only; approve and reject are refused and nothing is
        written under ``root``. ``key_path`` and ``policy``: decisions are signed with the
        key, and only a principal the policy lets decide a handoff's phase may try.
        ``store``: a non-local store (a database) shows every run in it; ``root`` is then
        ignored, and runs are keyed by ``Path(run_id)``."""
        super().__init__()
        self.read_only = read_only
        self.store = store if store is not None and not store.is_local else None
        self.key_path = key_path
        self.policy = policy
        self._principals: dict[Rule, str | DecisionRefused] = {}
        if self.store is None:
            if root is None:
                raise ValueError("a filesystem review needs a root folder")
            self.root = root.absolute()
            self._where = self.root.name or str(self.root)
        else:
            self._where = store_label(self.store)
            self.root = Path(self._where)
            self.title = f"handoff-gate · {visible(self._where)}"
        self.registry = registry
        self.reviewer = reviewer
        self._reviewer_shown = reviewer or default_reviewer()
        self.show = Show(show)
        self.poll = poll
        self.quiet = quiet
        self.entries: dict[Key, Entry] = {}
        self._runs: dict[Path, set[str]] = {}
        self._rows: dict[Key, Text] = {}
        self.feed: Feed = (
            Feed(self.root, registry, self.post_message, poll=poll, policy=policy)
            if self.store is None
            else StoreFeed(self.store, registry, self.post_message, policy=policy)
        )
        self._scanned = False
        self._list_painted = 0.0
        self._list_pending = False
        self._topbar_painted = 0.0
        self._widths = (16, 12, 0)
        self._show_painted = self.show
        self._id_width = 8
        self._hot: dict[Key, None] = {}
        #: (decided run, where the decision sent the cursor, until when) while following.
        self._follow: tuple[Path, object, float] | None = None
        self._arrived: list[Key] = []
        self._frozen_at: int | None = None
        self._topbar_pending = False
        self._topbar = Static("", id="topbar", markup=False)
        self._list = HandoffList(id="list")
        self._main = Horizontal(id="main")
        self._detail = Detail(id="detail")

    # ----------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield self._topbar
        with self._main:
            yield self._list
            yield self._detail
        yield Footer()

    def on_mount(self) -> None:
        self._list.focus()
        self._update_topbar()
        self.feed.start()
        self.run_worker(self.feed.relist_loop, thread=True, group="relist", name="relist")
        feed = self.feed
        if isinstance(feed, StoreFeed):
            self.run_worker(feed.listen_loop, thread=True, group="watch", name="listen")
        else:
            self.run_worker(feed.watch(self._runs), exclusive=True, group="watch", name="watch")
        self.call_after_refresh(self._start_inspecting)
        if self.store is None:
            self.set_interval(WAITER_RECHECK_S, self._recheck_waiters)

    def _start_inspecting(self) -> None:
        """Start inspecting once the first screen is up.

        The inspection thread begins by importing the validators and the contracts (tens
        of ms of Python holding the GIL); started with the listing, it slowed the first
        paint by about as much. Listing alone fills the first screen's rows. Watching
        still starts at mount: a handoff written as soon as the list is shown must not
        be missed.
        """
        self.run_worker(self.feed.inspect_loop, thread=True, group="inspect", name="inspect")

    def _recheck_waiters(self) -> None:
        """Re-list runs someone waits in: a waiter killed before it could remove its
        record sends no event, and only a fresh look finds its process gone."""
        for run_dir in {e.ref.run_dir for e in self.entries.values() if e.waiters}:
            self.feed.relist(run_dir)

    def on_unmount(self) -> None:
        self.feed.close()
        if self._frozen_at is not None:
            gc.unfreeze()

    # ------------------------------------------------------------ public view

    def listed(self) -> list[Key]:
        """The handoffs in the list, top to bottom, as (run directory, handoff id)."""
        return [key for key in self._list.keys if isinstance(key, tuple)]

    def current_entry(self) -> Entry | None:
        key = self._list.current
        return self.entries.get(key) if isinstance(key, tuple) else None

    def jump_to(self, key: Key) -> None:
        """Select a handoff, widening the filter if it hides it."""
        if key not in self.entries:
            return
        handoffs = self._list
        if not handoffs.select_key(key):
            self.show = Show.ALL
            self._paint_list()
            handoffs.select_key(key)
        handoffs.focus()

    def jump_targets(self) -> list[tuple[str, Callable[[], None], str]]:
        """Palette entries: each run (its newest handoff), then every handoff."""
        targets: list[tuple[str, Callable[[], None], str]] = []
        for run_dir, ids in sorted(self._runs.items()):
            if ids:
                newest = max(ids)
                targets.append(
                    (
                        f"run {safe(run_dir.name, 60)}",
                        partial(self.jump_to, (run_dir, newest)),
                        "Jump to this run's newest handoff",
                    )
                )
        for entry in sorted(self.entries.values(), key=lambda e: (e.run, e.ref.seq)):
            label = f"{safe(entry.run, 60)} {entry.ref.id}"
            targets.append((label, partial(self.jump_to, entry.key), "Jump to this handoff"))
        return targets

    # --------------------------------------------------------------- messages

    def on_listed(self, message: Listed) -> None:
        for listing in message.listings:
            self._merge(listing, message.initial)
        if message.runs is not None:
            for gone in set(self._runs) - message.runs:
                self._merge(RunListing(gone, (), {}, {}), message.initial)
                self._runs.pop(gone, None)
        if message.runs is not None or not message.initial:
            self._scanned = True
        self._paint_list()
        self._follow_run()
        if message.runs is not None:
            self._freeze_heap(settled=True)
        current = self.current_entry()
        if current is not None and current.report is None:
            self.feed.inspect(current.ref, urgent=True)

    def _merge(self, listing: RunListing, initial: bool) -> None:
        run_dir = listing.run_dir
        known = self._runs.setdefault(run_dir, set())
        present = {ref.id for ref in listing.refs}
        gone = (known - present) if listing.complete else listing.removed
        for handoff_id in gone:
            self.entries.pop((run_dir, handoff_id), None)
            self._rows.pop((run_dir, handoff_id), None)
        self._runs[run_dir] = present if listing.complete else (known - gone) | present
        for ref in listing.refs:
            key = (run_dir, ref.id)
            stamp = listing.stamps[ref.id]
            decision_stamp = listing.decision_stamps.get(ref.id)
            entry = self.entries.get(key)
            waiters = None if listing.waiters is None else listing.waiters.get(ref.id, ())
            if entry is None:
                entry = Entry(ref, stamp, decision_stamp, fresh=not initial, waiters=waiters)
                self.entries[key] = entry
                if not initial:
                    self._arrived.append(key)
                self._id_width = max(self._id_width, len(ref.id))
            else:
                if entry.waiters != waiters:
                    entry.waiters = waiters
                    self._rows.pop(key, None)
                    if key == self._list.current:
                        self._detail.show(entry)
                if (entry.stamp, entry.decision_stamp) == (stamp, decision_stamp):
                    continue
            entry.stamp, entry.decision_stamp = stamp, decision_stamp
            self._rows.pop(key, None)
            self.feed.inspect(ref, urgent=key == self._list.current)

    def on_inspected(self, message: Inspected) -> None:
        current = self._list.current
        refresh_detail = False
        moved = False
        for result in message.results:
            entry = self.entries.get(result.key)
            if entry is None:
                continue
            before = placement(entry, self.show)
            same_bytes = entry.report is not None and entry.report.sha256 == result.report.sha256
            entry.report = entry.report if same_bytes else result.report
            entry.label = Label.of(result.report)
            self._keep_report(entry)
            entry.decision, entry.decision_error = result.decision, result.decision_error
            entry.state = result.state
            entry.trust = result.trust
            moved = moved or placement(entry, self.show) != before
            self._rows.pop(result.key, None)
            refresh_detail = refresh_detail or result.key == current
            self._maybe_notify(entry)
        if moved:
            self._paint_list(now=False)
        else:
            self._list.refresh()
            self._update_topbar(now=False)
        self._freeze_heap()
        self._settle_cursor()
        if refresh_detail:
            self._detail.show(self.current_entry())

    def _settle_cursor(self) -> None:
        """Let the cursor leave the first row once the first look at the root is complete.

        Until every handoff of the first listing is inspected, results arrive in whatever
        order the threads deliver them and rows appear, move and vanish under the filter;
        holding the cursor on the first row makes the starting selection the first row of
        the settled list, every time.
        """
        handoffs = self._list
        if not handoffs.follow_top or not self._scanned or self._list_pending:
            return
        if all(entry.state is not None for entry in self.entries.values()):
            handoffs.follow_top = False

    def _freeze_heap(self, *, settled: bool = False) -> None:
        """Exempt the settled heap from the cyclic garbage collector.

        Done when a look at the whole root is through or the inspection backlog drains,
        at first and then whenever the entries have doubled. Full collections of the
        modules, widgets and entries paused the screen for 60-100 ms and slowed the
        background inspection; those objects are long-lived and entries have no cycles,
        so reference counting still frees them.
        """
        grown = self._frozen_at is None or len(self.entries) >= 2 * self._frozen_at + FREEZE_MIN
        if (settled or self.feed.backlog == 0) and grown:
            gc.freeze()
            self._frozen_at = len(self.entries)

    def _keep_report(self, entry: Entry) -> None:
        """Remember ``entry``'s report; drop the least recently used beyond the limit."""
        self._hot.pop(entry.key, None)
        self._hot[entry.key] = None
        current = self._list.current
        while len(self._hot) > HOT_REPORTS:
            key = next(iter(self._hot))
            del self._hot[key]
            old = self.entries.get(key)
            if key == current:
                self._hot[key] = None
            elif old is not None:
                old.report = None

    def _maybe_notify(self, entry: Entry) -> None:
        if not entry.fresh or entry.notified or not needs_person(entry.state):
            return
        entry.notified = True
        state = "blocked" if entry.state is HandoffState.BLOCKED else "waiting for you"
        self.notify(
            f"{safe(entry.run, 40)} / {entry.ref.id} is {state}",
            title="New handoff",
            markup=False,
        )
        if not self.quiet:
            self.bell()

    def on_handoff_list_highlighted(self, message: HandoffList.Highlighted) -> None:
        entry = self.entries.get(message.key) if isinstance(message.key, tuple) else None
        self._detail.show(entry)
        if entry is None:
            return
        if entry.report is None:
            self.feed.inspect(entry.ref, urgent=True)
        else:
            self._keep_report(entry)

    def on_field_tree_open(self, message: FieldTree.Open) -> None:
        entry = self._detail.entry
        if entry is None or entry.report is None:
            return
        from handoff_gate.tui.screens.full_value import FullValueScreen, field_findings

        findings = field_findings(entry.report, message.row.path)
        self.push_screen(FullValueScreen(self._title(entry), message.row, findings))

    def action_open_value(self) -> None:
        """Open the highlighted field's whole value (the first field when none is)."""
        fields = self._detail.fields
        row = fields.cursor_node_data
        if not isinstance(row, FieldRow):
            first = fields.root.children[0] if fields.root.children else None
            row = first.data if first is not None else None
        if isinstance(row, FieldRow):
            self.post_message(FieldTree.Open(row))
        else:
            self.notify("No field to open.", markup=False)

    def on_decided(self, message: Decided) -> None:
        run_dir, handoff_id = message.key
        if message.decision is None:
            self.notify(
                safe(message.refusal, 400), title="Not written", severity="error", markup=False
            )
        else:
            self.notify(f"{handoff_id}: {safe(describe(message.decision), 300)}", markup=False)
            target = self._next_after(message.key)
            if target is not None:
                self._list.select_key(target)
            if target is None or target[0] != run_dir:
                self._follow = (run_dir, self._list.current, time.monotonic() + FOLLOW_RUN_S)
        self.feed.relist(run_dir)

    def _follow_run(self) -> None:
        """Bring the cursor to a handoff just submitted in the run a decision was made in.

        A pipeline writes its next step a moment after the decision it waited for, so
        the next thing to review in that run often arrives after the cursor has moved
        on. Only within ``FOLLOW_RUN_S`` and only if the reader left the cursor where the
        decision put it; any other arrival never moves the cursor.
        """
        arrived, self._arrived = self._arrived, []
        follow = self._follow
        if follow is None:
            return
        run_dir, parked, until = follow
        if time.monotonic() > until or self._list.current != parked:
            self._follow = None
            return
        for key in arrived:
            entry = self.entries.get(key)
            if entry is not None and key[0] == run_dir and entry.waiting:
                self._follow = None
                self._list.select_key(key)
                return

    def _next_after(self, decided: Key) -> Key | None:
        """Where the cursor goes after a decision: the next handoff of the same run that
        needs a person (by sequence, wrapping), else the first one of the next run."""
        run_dir = decided[0]
        listed = set(self._list.keys)
        open_ = [e for e in self.entries.values() if e.waiting and e.key != decided]
        open_ = [e for e in open_ if e.key in listed]
        seq = self.entries[decided].ref.seq if decided in self.entries else 0
        same = sorted((e for e in open_ if e.ref.run_dir == run_dir), key=lambda e: e.ref.seq)
        if same:
            later = [e for e in same if e.ref.seq > seq]
            return (later or same)[0].key
        others = sorted(open_, key=lambda e: (e.ref.run_dir, e.ref.seq))
        after = [e for e in others if e.ref.run_dir > run_dir]
        return (after or others)[0].key if others else None

    def on_watch_failed(self, message: WatchFailed) -> None:
        self.notify(
            f"Watching {safe(self._where, 80)} stopped: {safe(message.error, 200)}. "
            "It resumes as soon as it can.",
            title="Watcher",
            severity="warning",
            markup=False,
        )

    def on_body_ready(self, message: BodyReady) -> None:
        detail = self._detail
        if detail.entry is not None and detail.entry.key == message.key:
            detail.set_body(Body(message.body), message.title, message.lines)

    # ------------------------------------------------------------------ list

    def _paint_list(self, *, now: bool = True) -> None:
        """Re-filter and re-sort; bulk updates are coalesced to one paint per interval."""
        wait = self._list_painted + LIST_REFRESH_S - time.monotonic()
        if not now and wait > 0:
            if not self._list_pending:
                self._list_pending = True
                self.set_timer(wait, self._paint_list)
            return
        self._list_pending = False
        self._list_painted = time.monotonic()
        listed = visible_entries(self.entries, self.show)
        if self._show_painted is not self.show:
            self._show_painted = self.show
            self._rows.clear()
        self._main.set_class(self.show is Show.REJECTED, "decisions")
        keys = [entry.key for entry in listed]
        self._list.set_rows(keys, self._row_text)
        if not keys:
            self._detail.show(None, self._empty_hint())
        self._update_topbar()
        self._settle_cursor()

    def _columns(self, width: int) -> tuple[int, int]:
        """Run and id column widths for a list ``width`` cells wide.

        The id keeps its full width (it is what a reviewer types into ``decide``); the
        run name gives way first, cut with a visible "…".
        """
        id_width = min(self._id_width, MAX_ID_WIDTH)
        widest = MAX_RUN_WIDTH if self.show is not Show.REJECTED else MIN_RUN_WIDTH * 3
        natural = min(max((len(run.name) for run in self._runs), default=8), widest)
        room = width - BADGE_WIDTH - 1 - id_width - len(" …")
        return max(min(natural, room), MIN_RUN_WIDTH), id_width

    def _row_text(self, key: object, width: int) -> Text:
        """A list row fitted to ``width``, rendered when first painted and cached until its
        entry, the filter or the list's width changes."""
        widths = (*self._columns(width), width)
        if widths != self._widths:
            self._widths = widths
            self._rows.clear()
        text = self._rows.get(key) if isinstance(key, tuple) else None
        if text is None:
            entry = self.entries.get(key) if isinstance(key, tuple) else None
            if entry is None:
                return Text()
            text = self._rows[entry.key] = list_row(
                entry, *widths, decision=self.show is Show.REJECTED
            )
        return text

    def _empty_hint(self) -> Text:
        if not self._scanned:
            return Text("Scanning…", style="dim")
        if not self.entries:
            return Text(
                "No handoffs yet. New ones appear here as soon as they are written.", style="dim"
            )
        return Text(f"Nothing {self.show.value} here. Press f to change the filter.", style="dim")

    def _update_topbar(self, *, now: bool = True) -> None:
        """Counts across all entries; during bulk updates at most once per interval."""
        wait = self._topbar_painted + LIST_REFRESH_S - time.monotonic()
        if not now and wait > 0:
            if not self._topbar_pending:
                self._topbar_pending = True
                self.set_timer(wait, self._update_topbar)
            return
        self._topbar_pending = False
        self._topbar_painted = time.monotonic()
        actionable = [e for e in self.entries.values() if e.actionable]
        listed = self._list.row_count
        waited = (
            ""
            if self.store is not None
            else f" · {sum(1 for e in actionable if e.waiters)} with a waiter"
        )
        bar = Text.assemble(
            (" handoff-gate ", "bold reverse"),
            " ",
            (" read-only ", "bold reverse") if self.read_only else "",
            " ",
            (safe(self._where, 30), "bold"),
            f"  pending {len(actionable)}{waited}",
            f"  showing {self.show.value} {listed}/{len(self.entries)}",
            ("  reviewer ", "dim"),
            safe(self._reviewer_shown, 20),
        )
        if not self._scanned:
            bar.append("  scanning…", style="dim")
        elif self.feed.backlog:
            bar.append(f"  inspecting {self.feed.backlog}…", style="dim")
        self._topbar.update(fit(bar, self.size.width or 80))

    def on_resize(self) -> None:
        """The header is fitted to the width with a marker; fit it again."""
        self._update_topbar()

    # --------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-view keys stay inert while a dialog or the full-value view is open."""
        return not (action in _MAIN_ACTIONS and len(self.screen_stack) > 1)

    def _title(self, entry: Entry) -> Text:
        return Text.assemble((safe(entry.run, 40), "bold"), " / ", (entry.ref.id, "bold cyan"))

    def _decidable(self, entry: Entry | None) -> Entry | None:
        if self.read_only:
            self.notify(
                "Read-only review: decisions cannot be made here. Nothing was written.",
                title="Read-only",
                severity="warning",
                markup=False,
            )
            return None
        if entry is None:
            return None
        if entry.report is None:
            self.notify("Still inspecting this handoff; try again in a moment.", markup=False)
            self.feed.inspect(entry.ref, urgent=True)
            return None
        if entry.state is HandoffState.UNUSABLE:
            self.notify(
                f"{entry.ref.id} is already decided, but its decision record is unusable: "
                f"{safe(entry.decision_error, 300)}. Nothing was written.",
                severity="warning",
                markup=False,
            )
            return None
        if entry.decision is not None or entry.decision_error:
            done = describe(entry.decision) if entry.decision else "decided (unreadable)"
            note = f"{entry.ref.id} is already {safe(done, 200)}."
            if entry.state is HandoffState.CHANGED:
                note += " Its file changed since, so a new handoff must be submitted."
            self.notify(note, severity="warning", markup=False)
            return None
        refusal = self.may_not_decide(entry)
        if refusal:
            self.notify(
                f"{safe(refusal, 300)}. Nothing was written.",
                title="Not allowed",
                severity="error",
                markup=False,
            )
            return None
        return entry

    def may_not_decide(self, entry: Entry) -> str:
        """Why this app's key may not decide ``entry`` under the policy (empty: it may).

        Checked before a dialog opens, so nobody types a reason for a decision ``decide``
        would refuse; ``decide`` checks again when writing.
        """
        policy = self.policy
        if policy is None:
            return ""
        handoff_id = entry.ref.id
        try:
            rule = rule_of(policy, handoff_id)
        except NoRule as exc:
            return str(exc)
        if self.key_path is None:
            return (
                f"under the policy only signed decisions count: start watch with --key; "
                f"who may decide {handoff_id}: {', '.join(rule.approvers)}"
            )
        principal = self._principals.get(rule)
        if principal is None:
            try:
                principal = principal_for(self.key_path, policy, rule, self.reviewer)
            except DecisionRefused as exc:
                principal = exc
            self._principals[rule] = principal
        if isinstance(principal, DecisionRefused):
            return f"{handoff_id}: {principal}"
        trust = entry.trust
        if trust is not None and trust.producer == principal:
            return f"{principal!r} produced {handoff_id} and may not decide it"
        if trust is not None and principal in trust.approvals:
            return f"{principal!r} already approved {handoff_id}"
        return ""

    def action_approve(self) -> None:
        entry = self._decidable(self.current_entry())
        if entry is None or entry.report is None:
            return
        report = entry.report
        if not report.approvable:
            codes = ", ".join(sorted({f.code.value for f in report.blocking}))
            self.notify(
                f"Approval refused: {entry.ref.id} is blocked ({codes}). Nothing was written.",
                title="Blocked",
                severity="error",
                markup=False,
            )
            return
        from handoff_gate.tui.screens.approve import ApproveScreen  # dialogs load on first use

        warnings = [finding_text(f) for f in report.warnings]
        screen = ApproveScreen(self._title(entry), report.sha256, warnings)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self._decide(entry, Action.APPROVE, report.sha256)

        self.push_screen(screen, confirmed)

    def action_reject(self) -> None:
        entry = self._decidable(self.current_entry())
        if entry is None or entry.report is None:
            return
        from handoff_gate.tui.screens.reject import RejectScreen

        sha256 = entry.report.sha256

        def submitted(rejection: Rejection | None) -> None:
            if rejection is not None:
                self._decide(entry, Action.REJECT, sha256, rejection.reason, rejection.category)

        screen = RejectScreen(self._title(entry), suggest_category(entry.report))
        self.push_screen(screen, submitted)

    @work(thread=True, group="decide")
    def _decide(
        self,
        entry: Entry,
        action: Action,
        sha256: str,
        reason: str | None = None,
        category: Category | None = None,
    ) -> None:
        store = LOCAL if self.store is None else store_copy(self.store)
        try:
            decision = decide(
                str(entry.ref.run_dir),
                entry.ref.id,
                action,
                reason=reason,
                category=category,
                reviewer=self.reviewer,
                registry=self.registry,
                expected_sha256=sha256,
                key_path=self.key_path,
                policy=self.policy,
                store=store,
            )
        except (DecisionRefused, ValueError, OSError) as exc:
            self.post_message(Decided(entry.key, None, f"Not written: {exc}"))
            return
        except Exception as exc:  # a store driver's own error: refused, never a crash
            self.post_message(Decided(entry.key, None, f"Not written: {type(exc).__name__}: {exc}"))
            return
        finally:
            if store is not LOCAL:
                close = getattr(store, "close", None)
                if close is not None:
                    close()
        self.post_message(Decided(entry.key, decision, ""))

    def action_raw(self) -> None:
        self._toggle_body(Body.RAW)

    def action_diff(self) -> None:
        self._toggle_body(Body.DIFF)

    def _toggle_body(self, body: Body) -> None:
        detail = self._detail
        entry = self.current_entry()
        if entry is not detail.entry:
            detail.show(entry)
        if detail.body is body or entry is None:
            detail.set_body(Body.FIELDS)
            return
        if entry.report is None:
            return
        previous = None
        if body is Body.DIFF:
            previous = previous_same_phase(self.entries, entry)
            if previous is None:
                self.notify(
                    f"No earlier {entry.ref.phase} handoff in this run to compare with.",
                    markup=False,
                )
                return
        self._load_body(entry, body, previous)

    @work(thread=True, exclusive=True, group="body")
    def _load_body(self, entry: Entry, body: Body, previous: Entry | None) -> None:
        from handoff_gate.tui.textviews import diff_view, raw_view  # difflib: only when asked for

        report = entry.report
        if report is None:
            return
        if previous is None:
            title, lines = raw_view(entry.ref, report)
        else:
            before = previous.report or self.feed.inspect_once(previous.ref).report
            title, lines = diff_view(before, previous.ref.id, report, entry.ref.id)
        self.post_message(BodyReady(entry.key, body.value, title, tuple(lines)))

    def _step_waiting(self, direction: int) -> None:
        handoffs = self._list
        keys = handoffs.keys
        if not keys:
            return
        for step in range(1, len(keys)):
            index = (handoffs.cursor + direction * step) % len(keys)
            key = keys[index]
            entry = self.entries.get(key) if isinstance(key, tuple) else None
            if entry is not None and entry.waiting:
                handoffs.select_key(key)
                return
        self.notify("No other handoff is waiting for a decision.", markup=False)

    def action_next_waiting(self) -> None:
        self._step_waiting(1)

    def action_previous_waiting(self) -> None:
        self._step_waiting(-1)

    def action_filter(self) -> None:
        self._show(self.show.next())

    def action_show_rejected(self) -> None:
        self._show(Show.REJECTED)

    def _show(self, show: Show) -> None:
        self.show = show
        self._paint_list()
        self.notify(f"Showing {self.show.value} handoffs", timeout=2, markup=False)

    def action_help(self) -> None:
        from handoff_gate.tui.screens.help import HelpScreen, key_rows

        keys = key_rows(self, [*self.BINDINGS, *HandoffList.BINDINGS, *FieldTree.BINDINGS])
        self.push_screen(HelpScreen(keys))

    def palette_actions(self) -> list[tuple[str, Callable[[], None], str]]:
        """Palette entries that act: every key of the main view, and each filter."""
        actions: list[tuple[str, Callable[[], None], str]] = []
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and binding.action != "quit":
                run = partial(self.run_action_soon, binding.action)
                actions.append((binding.description, run, binding.tooltip))
        for show in Show:
            actions.append(
                (f"Show {show.value}", partial(self._show, show), f"list {show.value} handoffs")
            )
        return actions

    def run_action_soon(self, action: str) -> None:
        """Run a main-view action once the palette has closed (it is inert under it)."""
        self.call_after_refresh(self.run_action, action)


def run_app(
    root: Path | None,
    registry: Registry,
    *,
    reviewer: str | None,
    show: str,
    poll: bool,
    quiet: bool,
    read_only: bool = False,
    key_path: Path | None = None,
    policy: Policy | None = None,
    store: RunStore | None = None,
) -> int:
    """Entry point of ``handoff-gate watch``; returns the process exit code.

    ``read_only``: decisions are refused in the app and nothing is written under ``root``.
    ``key_path``/``policy``: sign decisions, and refuse up front those the key's principal
    may not make. ``store``: a non-local store shows every run in it (``root`` ignored).
    """
    if key_path is not None and policy is None:
        print("handoff-gate watch: --key needs --policy", file=sys.stderr)
        return 2
    remote = store is not None and not store.is_local
    if not remote and (root is None or not root.is_dir()):
        print(f"handoff-gate watch: not a directory: {visible(str(root))}", file=sys.stderr)
        return 2
    app = HandoffGateApp(
        root,
        registry,
        reviewer=reviewer,
        show=show,
        poll=poll,
        quiet=quiet,
        read_only=read_only,
        key_path=key_path,
        policy=policy,
        store=store if remote else None,
    )
    result: Any = app.run()
    return int(result or 0)
