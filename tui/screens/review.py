"""The review screen: the live list of handoffs and the selected one, field by field.

It owns the main view's keys and its state: the filter (``show``), the selected handoff
(``selected``) and what the detail's body shows (``body``: fields, raw or diff), each a
reactive whose watcher repaints. It folds the feed's messages into its entries; the list
and the detail only ever display entries. Its helpers each do one job: ``DecisionFlow``
approves and rejects (refusals, dialogs, the write in a worker thread), ``BodyLoader``
builds raw and diff bodies off the UI thread, ``RunFollow`` moves the cursor after a
decision, ``HeapFreeze`` keeps the garbage collector off the settled heap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from handoff_gate.gates.view.decidable import decidable_now
from handoff_gate.gates.vocab.report import FieldRow
from handoff_gate.gates.vocab.states import HandoffState, needs_person
from handoff_gate.tui.cursor import next_after, start_target, step_waiting
from handoff_gate.tui.entries import Entries, Merged
from handoff_gate.tui.follow import RunFollow
from handoff_gate.tui.heap import HeapFreeze
from handoff_gate.tui.messages import BodyReady, Decided, Inspected, Listed, WatchFailed
from handoff_gate.tui.model import Entry, Key, Show, key_of, placement, visible_entries
from handoff_gate.tui.palette import Target, action_targets, jump_targets
from handoff_gate.tui.render import entry_title, safe
from handoff_gate.tui.rows import RowCache, topbar
from handoff_gate.tui.screens.body_loader import BodyLoader
from handoff_gate.tui.screens.decision_flow import DecisionFlow
from handoff_gate.tui.throttle import Throttled
from handoff_gate.tui.widgets.detail import Body, Detail
from handoff_gate.tui.widgets.field_tree import FieldTree
from handoff_gate.tui.widgets.handoff_list import HandoffList

if TYPE_CHECKING:
    from handoff_gate.tui.core import Core
    from handoff_gate.tui.feed import Feed

#: Bulk updates (background inspection) repaint the list at most this often.
LIST_REFRESH_S = 0.1
#: From this many columns the rejected list widens for its decision columns.
WIDE_DECISIONS = 120


class ReviewScreen(Screen[None]):
    """The main view of ``handoff-gate watch``: review and decide handoffs as they arrive."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", tooltip="approve the selected handoff (asks first)"),
        Binding("r", "reject", "Reject", tooltip="reject with a reason and a category"),
        Binding("n", "next_waiting", "Next", tooltip="next handoff you can decide now"),
        Binding("p", "previous_waiting", "Prev", show=False, tooltip="previous one to decide"),
        Binding(
            "w",
            "delivered",
            "Delivered",
            tooltip="what the next phase receives if approved now, as wait delivers it",
        ),
        Binding(
            "v", "raw", "Raw", show=False, tooltip="the exact text, unsafe characters made visible"
        ),
        Binding("d", "diff", "Diff", tooltip="diff with the run's previous handoff of the phase"),
        Binding("f", "filter", "Filter", tooltip="cycle open → rejected → approved → all"),
        Binding("R", "show_rejected", "Rejected", show=False, tooltip="list rejected handoffs"),
        Binding("o", "open_value", "Full value", show=False, tooltip="the field's whole value"),
        Binding("question_mark", "help", "Help", tooltip="this help"),
        # Tried when approve and reject are not offered: says why instead of nothing.
        Binding("a,r", "refuse_read_only", show=False),
    ]
    #: What a read-only review does not offer (hidden from the footer, help and palette).
    DECIDING: ClassVar[frozenset[str]] = frozenset({"approve", "reject"})
    #: Never offered: the stand-in for the deciding keys of a read-only review.
    STAND_IN = "refuse_read_only"

    #: The list filter; every assignment repaints the list.
    show: reactive[Show] = reactive(Show.OPEN, init=False, always_update=True)
    #: The handoff the list's cursor is on (``None``: no handoff row).
    selected: reactive[Key | None] = reactive(None, init=False, always_update=True)
    #: What the detail's body shows; raw and diff are set once their lines are ready.
    body: reactive[Body] = reactive(Body.FIELDS, init=False, always_update=True)

    def __init__(
        self,
        feed: Feed,
        core: Core,
        *,
        where: str,
        reviewer: str,
        show: Show,
        quiet: bool,
    ) -> None:
        """``where``: the root or store as the header names it; ``quiet``: no bell."""
        super().__init__()
        self.feed = feed
        self.core = core
        self._where = where
        self._reviewer_shown = reviewer
        self._quiet = quiet
        self.set_reactive(ReviewScreen.show, show)
        self._book = Entries()
        self._rows = RowCache(self._book.by_key, self._book.runs)
        self._body_view: tuple[Text | None, tuple[Text, ...]] = (None, ())
        self._scanned = False
        #: Repaint the list (re-filter, re-sort) or only the header; ``now=False`` from
        #: bulk updates coalesces them to one paint per ``LIST_REFRESH_S``.
        self._paint_list = Throttled(self, LIST_REFRESH_S, self._repaint_list)
        self._update_topbar = Throttled(self, LIST_REFRESH_S, self._repaint_topbar)
        self._show_painted = show
        self._decisions = DecisionFlow(self, core, feed)
        self._bodies = BodyLoader(self, feed)
        self._follow = RunFollow()
        #: Where the start rule put the cursor (``cursor.start_target``); while the cursor
        #: is still there the rule is applied again as handoffs arrive and settle.
        self._placed: object = None
        #: Handoffs that arrived after the first listing, not yet inspected.
        self._arrivals: set[Key] = set()
        #: Inspected arrivals this reviewer can decide, waiting for the cursor to get there.
        self._landed: list[Key] = []
        #: Decidable arrivals the cursor did not take (it was busy): the header counts them.
        self._new: set[Key] = set()
        self._heap = HeapFreeze()
        self._topbar = Static("", id="topbar", markup=False)
        self._list = HandoffList(id="list")
        self._main = Horizontal(id="main")
        self._detail = Detail(id="detail")

    def compose(self) -> ComposeResult:
        yield self._topbar
        with self._main:
            yield self._list
            yield self._detail
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._list.focus()
        self._update_topbar()

    def on_unmount(self) -> None:
        self._heap.release()

    def on_resize(self) -> None:
        """The header is fitted to the width with a marker; fit it again. Below
        ``WIDE_DECISIONS`` columns the rejected list keeps the usual width (app.tcss)."""
        self._main.set_class(self.app.size.width < WIDE_DECISIONS, "narrow")
        self._update_topbar()

    # ------------------------------------------------------------ public view

    @property
    def entries(self) -> dict[Key, Entry]:
        """Every handoff known, by (run directory, handoff id); read it, do not edit it."""
        return self._book.by_key

    @property
    def runs(self) -> dict[Path, set[str]]:
        """The handoff ids of every run known; the feed's watcher reads it live."""
        return self._book.runs

    @property
    def scanned(self) -> bool:
        """Whether the first look at the whole root is through."""
        return self._scanned

    def listed(self) -> list[Key]:
        """The handoffs in the list, top to bottom, as (run directory, handoff id)."""
        return [key for key in self._list.keys if isinstance(key, tuple)]

    def current_entry(self) -> Entry | None:
        key = self._list.current
        return self.entries.get(key) if isinstance(key, tuple) else None

    def waited_runs(self) -> set[Path]:
        """Run directories with a live waiter on some handoff (worth a fresh look)."""
        return {e.key[0] for e in self.entries.values() if e.waiters}

    def jump_to(self, key: Key) -> None:
        """Select a handoff, widening the filter if it hides it."""
        if key not in self.entries:
            return
        handoffs = self._list
        if not handoffs.select_key(key):
            self.show = Show.ALL
            handoffs.select_key(key)
        handoffs.focus()

    def jump_targets(self) -> list[Target]:
        """Palette entries: each run (its newest handoff), then every handoff."""
        return jump_targets(self._book.runs, self.entries.values(), self.jump_to)

    def offered(self) -> list[BindingType]:
        """The main view's keys this review offers: a read-only one has no deciding keys."""
        hidden = self.DECIDING | {self.STAND_IN} if self.core.read_only else {self.STAND_IN}
        return [b for b in self.BINDINGS if not _bound_to(b, hidden)]

    def palette_actions(self) -> list[Target]:
        """Palette entries that act: every key of the main view offered, and each filter."""
        return action_targets(self.offered(), self.run_action_soon, self._show)

    def run_action_soon(self, action: str) -> None:
        """Run a main-view action once the palette has closed (it is inert under it)."""
        self.call_after_refresh(self.run_action, action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-view actions stay inert while a dialog, the full-value view or the palette
        is over this screen (palette actions run on it once the palette is closed). A
        read-only review hides approve and reject (``False``: not in the footer either)."""
        if action in self.DECIDING and self.core.read_only:
            return False
        if action == self.STAND_IN and not self.core.read_only:
            return False
        return self.app.screen is self

    # -------------------------------------------------------------- watchers

    def watch_show(self) -> None:
        self._paint_list()

    def watch_selected(self, key: Key | None) -> None:
        """Show the selected handoff; with an empty list, say why it is empty (the list
        reports its empty cursor whenever it likes, also after the list was painted)."""
        entry = self.entries.get(key) if key is not None else None
        if key in self._new:
            self._new.discard(key)
            self._update_topbar()
        if entry is None:
            self._show_detail(None, None if self._list.keys else self._empty_hint())
            return
        self._show_detail(entry)
        if entry.report is None:
            self.feed.inspect(entry.ref, urgent=True)
        else:
            self._book.keep_report(entry, self._list.current)

    def watch_body(self, body: Body) -> None:
        title, lines = self._body_view if body is not Body.FIELDS else (None, ())
        self._detail.set_body(body, title, lines)

    def _show_detail(self, entry: Entry | None, empty: Text | None = None) -> None:
        """Show ``entry`` in the detail; showing an entry starts on its fields."""
        self._detail.show(entry, empty)
        self.set_reactive(ReviewScreen.body, self._detail.body)

    # --------------------------------------------------------------- messages

    def on_handoff_list_highlighted(self, message: HandoffList.Highlighted) -> None:
        self.selected = message.key if isinstance(message.key, tuple) else None

    def on_listed(self, message: Listed) -> None:
        selected = self._list.current
        for listing in message.listings:
            self._apply(self._book.merge(listing, message.initial, selected))
        if message.runs is not None:
            for gone in set(self._book.runs) - message.runs:
                self._apply(self._book.forget_run(gone, message.initial, selected))
        if message.runs is not None or not message.initial:
            self._scanned = True
        self._paint_list()
        self._follow_run()
        if message.runs is not None:
            self._freeze_heap(settled=True)
        current = self.current_entry()
        if current is not None and current.report is None:
            self.feed.inspect(current.ref, urgent=True)

    def _apply(self, merged: Merged) -> None:
        rows = self._rows
        rows.id_width = max(rows.id_width, merged.id_width)
        for key in merged.stale:
            rows.drop(key)
        if merged.selected_changed:
            self._show_detail(self.current_entry())
        current = self._list.current
        for ref in merged.inspect:
            self.feed.inspect(ref, urgent=key_of(ref) == current)

    def on_inspected(self, message: Inspected) -> None:
        current = self._list.current
        refresh_detail = False
        moved = False
        for result in message.results:
            entry = self.entries.get(result.key)
            if entry is None:
                continue
            before = placement(entry, self.show)
            self._book.fold(result, current)
            self._judge(entry)
            if result.key in self._arrivals:
                self._arrivals.discard(result.key)
                if entry.decidable:
                    self._landed.append(result.key)
            moved = moved or placement(entry, self.show) != before
            self._rows.drop(result.key)
            refresh_detail = refresh_detail or result.key == current
            self._maybe_notify(entry)
        if moved:
            self._paint_list(now=False)
        else:
            self._list.refresh()
            self._update_topbar(now=False)
        self._freeze_heap()
        self._settle_cursor()
        self._place_cursor()
        if refresh_detail:
            self._show_detail(self.current_entry())

    def on_decided(self, message: Decided) -> None:
        """Say what was decided; after a decision the cursor goes to the next handoff that
        waits (``cursor.next_after``) and follows the run if that one is in another."""
        run_dir = message.key[0]
        self._decisions.announce(message)
        if message.decision is not None:
            target = next_after(self.entries, self._list.keys, message.key)
            if target is not None:
                self._list.select_key(target)
            if target is None or target[0] != run_dir:
                self._follow.start(run_dir, self._list.current)
        self.feed.relist(run_dir)

    def on_body_ready(self, message: BodyReady) -> None:
        entry = self._detail.entry
        if entry is not None and entry.key == message.key:
            self._body_view = (message.title, message.lines)
            self.body = Body(message.body)

    def on_watch_failed(self, message: WatchFailed) -> None:
        self.notify(
            f"Watching {safe(self._where, 80)} stopped: {safe(message.error, 200)}. "
            "It resumes as soon as it can.",
            title="Watcher",
            severity="warning",
            markup=False,
        )

    def on_field_tree_open(self, message: FieldTree.Open) -> None:
        entry = self._detail.entry
        if entry is None or entry.report is None:
            return
        from handoff_gate.tui.screens.full_value import FullValueScreen, field_findings

        findings = field_findings(entry.report, message.row.path)
        self.app.push_screen(FullValueScreen(entry_title(entry), message.row, findings))

    # ------------------------------------------------------- cursor and heap

    def _settle_cursor(self) -> None:
        """Let the cursor leave the first row once the first look at the root is complete.

        Until every handoff of the first listing is inspected, results arrive in whatever
        order the threads deliver them and rows appear, move and vanish under the filter;
        holding the cursor on the first row makes the starting selection the first row of
        the settled list, every time.
        """
        handoffs = self._list
        if not handoffs.follow_top or not self._scanned or self._paint_list.pending:
            return
        if self._book.all_inspected:
            handoffs.follow_top = False
            self._arrivals.clear()
            self._landed.clear()
            target = start_target(self.entries, handoffs.keys)
            if target is not None:
                handoffs.select_key(target)
            self._placed = handoffs.current

    def _judge(self, entry: Entry) -> None:
        """Whether this reviewer can decide ``entry`` now; the rule is ``gates``' (only a
        pending handoff is asked about: the others need no word from the deciding code)."""
        refusal = self.core.refusal(entry) if entry.state is HandoffState.PENDING else None
        entry.decidable = decidable_now(entry.state, refusal.message if refusal else None)

    def _place_cursor(self) -> None:
        """Apply the cursor's rules for arrivals once the list shows them.

        While the cursor is where the start rule put it, the rule is applied again (a
        pipeline's handoff arriving later is then found too). Otherwise a decidable arrival
        takes the cursor only off something that cannot be decided; on a decidable handoff
        the cursor stays and the header counts the arrivals it did not take.
        """
        handoffs = self._list
        if handoffs.follow_top or self._paint_list.pending:
            return
        landed, self._landed = self._landed, []
        if handoffs.current == self._placed:
            target = start_target(self.entries, handoffs.keys)
            if target is not None and target != handoffs.current:
                handoffs.select_key(target)
                self._placed = handoffs.current
        else:
            current = self.current_entry()
            listed = set(handoffs.keys)
            idle = current is None or not current.decidable
            arrival = next((key for key in landed if key in listed), None)
            if idle and arrival is not None:
                handoffs.select_key(arrival)
        fresh = {key for key in landed if key != handoffs.current}
        if fresh:
            self._new |= fresh
            self._update_topbar()

    def _follow_run(self) -> None:
        """Bring the cursor to a handoff just submitted in the run a decision was made in
        (``follow.RunFollow``); the arrivals are looked at once, followed or not."""
        arrived, self._book.arrived = self._book.arrived, []
        self._arrivals.update(arrived)
        key = self._follow.target(arrived, self.entries, self._list.current)
        if key is not None:
            self._list.select_key(key)

    def _freeze_heap(self, *, settled: bool = False) -> None:
        """Freeze the heap out of the collector once the first look at the whole root is
        through (``settled``) or the inspection backlog drains (``heap.HeapFreeze``)."""
        self._heap.settle(len(self.entries), settled=settled, backlog=self.feed.backlog)

    def _maybe_notify(self, entry: Entry) -> None:
        if not entry.fresh or entry.notified or not needs_person(entry.state):
            return
        entry.notified = True
        state = "yours to decide" if entry.decidable else safe(str(entry.state), 20)
        self.notify(
            f"{safe(entry.run, 40)} / {entry.ref.id} is {state}",
            title="New handoff",
            markup=False,
        )
        if not self._quiet:
            self.app.bell()

    # ------------------------------------------------------------------ list

    def _repaint_list(self) -> None:
        """Re-filter and re-sort the list."""
        show = self.show
        listed = visible_entries(self.entries, show)
        if self._show_painted is not show:
            self._show_painted = show
            self._rows.clear()
        self._main.set_class(show is Show.REJECTED, "decisions")
        keys = [entry.key for entry in listed]
        self._list.set_rows(keys, self._row_text)
        if not keys:
            self._show_detail(None, self._empty_hint())
        self._update_topbar()
        self._settle_cursor()
        self._place_cursor()

    def _row_text(self, key: object, width: int) -> Text:
        return self._rows.row(key, width, self.show)

    def _empty_hint(self) -> Text:
        if not self._scanned:
            return Text("Scanning…", style="dim")
        if not self.entries:
            return Text(
                "No handoffs yet. New ones appear here as soon as they are written.", style="dim"
            )
        return Text(f"Nothing {self.show.value} here. Press f to change the filter.", style="dim")

    def _repaint_topbar(self) -> None:
        """The header's counts across all entries."""
        bar = topbar(
            where=self._where,
            read_only=self.core.read_only,
            reviewer=self._reviewer_shown,
            entries=self.entries.values(),
            show=self.show,
            listed=self._list.row_count,
            scanned=self._scanned,
            backlog=self.feed.backlog,
            new=sum(1 for key in self._new if (e := self.entries.get(key)) and e.decidable),
            width=self.app.size.width or 80,
        )
        # One line high (app.tcss), so new counts never resize it: no layout pass, which
        # would re-render the whole screen ten times a second while a root loads.
        self._topbar.update(bar, layout=False)

    # --------------------------------------------------------------- actions

    def action_approve(self) -> None:
        self._decisions.approve(self.current_entry())

    def action_reject(self) -> None:
        self._decisions.reject(self.current_entry())

    def action_refuse_read_only(self) -> None:
        self._decisions.say_read_only()

    def action_raw(self) -> None:
        self._toggle_body(Body.RAW)

    def action_diff(self) -> None:
        self._toggle_body(Body.DIFF)

    def action_delivered(self) -> None:
        self._toggle_body(Body.DELIVERED)

    def _toggle_body(self, body: Body) -> None:
        entry = self.current_entry()
        if entry is not self._detail.entry:
            self._show_detail(entry)
        if self.body is body or entry is None:
            self.body = Body.FIELDS
            return
        if entry.report is not None:
            self._bodies.load(entry, body, self.entries)

    def _step_waiting(self, direction: int) -> None:
        handoffs = self._list
        if not handoffs.keys:
            return
        key = step_waiting(self.entries, handoffs.keys, handoffs.cursor, direction)
        if key is None:
            self.notify("No other handoff is yours to decide now.", markup=False)
        else:
            handoffs.select_key(key)

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
        self.notify(f"Showing {show.value} handoffs", timeout=2, markup=False)

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

    def action_help(self) -> None:
        from handoff_gate.tui.screens.help import HelpScreen, key_rows

        bindings = [*self.offered(), *self.app.BINDINGS, *HandoffList.BINDINGS, *FieldTree.BINDINGS]
        self.app.push_screen(HelpScreen(key_rows(self.app, bindings)))


def _bound_to(binding: BindingType, actions: set[str] | frozenset[str]) -> bool:
    return isinstance(binding, Binding) and binding.action in actions
