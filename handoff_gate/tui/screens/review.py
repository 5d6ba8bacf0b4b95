"""The review screen: the live list of handoffs and the selected one, field by field.

It folds the feed's messages into its entries; the list and the detail only display them,
and the selection is the list's cursor, never a copy here. How the work is split between
it and its helpers is in docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from handoff_gate.gates.view.delivery import delivered_text
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.deadline import is_past
from handoff_gate.gates.vocab.report import FieldRow, Report
from handoff_gate.gates.vocab.safe_text import visible
from handoff_gate.gates.vocab.states import HandoffState, decidable_now, needs_person
from handoff_gate.tui.arrival_notices import ArrivalNotices
from handoff_gate.tui.cursor import RunFollow, next_after, start_target, step_waiting
from handoff_gate.tui.entries import Entries, Merged
from handoff_gate.tui.keys import READ_ONLY_STAND_IN, REVIEW_KEYS
from handoff_gate.tui.messages import (
    BatchDecided,
    BodyReady,
    DecisionFinished,
    Inspected,
    Listed,
    Warned,
    WatchFailed,
)
from handoff_gate.tui.model import (
    Entry,
    Key,
    ReviewOptions,
    Show,
    key_of,
    placement,
    previous_same_phase,
    visible_entries,
)
from handoff_gate.tui.notice import (
    CANNOT_MARK,
    NO_FIELD,
    NOTHING_MARKED,
    NOTHING_TO_DECIDE,
    READ_ONLY,
    STILL_INSPECTING,
    Notice,
    batch_decided,
    blocked,
    decided,
    nothing_earlier,
    undecided,
)
from handoff_gate.tui.palette import (
    ActionProvider,
    JumpProvider,
    Target,
    action_targets,
    jump_targets,
)
from handoff_gate.tui.render import entry_title, no_decision_text, safe
from handoff_gate.tui.rows import RowCache, Topbar
from handoff_gate.tui.screens.asker import Asker
from handoff_gate.tui.screens.decision import DecisionScreen
from handoff_gate.tui.screens.find import FindScreen
from handoff_gate.tui.screens.full_value import FullValueScreen, field_findings
from handoff_gate.tui.screens.help import EXTRA_KEYS, HelpScreen, key_rows
from handoff_gate.tui.screens.stats import NOT_READY, StatsScreen
from handoff_gate.tui.textviews import delivered_view, diff_view, raw_view
from handoff_gate.tui.throttle import Throttled
from handoff_gate.tui.widgets.detail import Body, Detail
from handoff_gate.tui.widgets.field_tree import FieldTree
from handoff_gate.tui.widgets.handoff_list import HandoffList
from handoff_gate.tui.widgets.marks_bar import MarksBar

if TYPE_CHECKING:
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.tui.feed import Feed
    from handoff_gate.tui.review_core import ReviewCore

#: Bulk updates (background inspection) repaint the list at most this often.
LIST_REFRESH_S = 0.1
#: How often pending rows with a deadline are looked at (time left, expiry).
DEADLINE_TICK_S = 1.0
#: From this many columns the rejected list widens for its decision columns.
WIDE_DECISIONS = 120
#: Below this many columns the list keeps a narrow column, the detail most of the width.
COMPACT_BELOW = 100
#: Below this many columns (phones through ``serve``) one pane at a time: two panes of
#: ~20 columns each made every field a column of single words.
SINGLE_BELOW = 70


class ReviewScreen(Screen[None]):
    """The main view of ``handoff-gate watch``: review and decide handoffs as they arrive."""

    BINDINGS: ClassVar[list[BindingType]] = REVIEW_KEYS
    #: What a read-only review does not offer (hidden from the footer, help and palette).
    DECIDING: ClassVar[frozenset[str]] = frozenset(
        {
            "approve",
            "reject",
            "edit",
            "mark",
            "mark_all",
            "approve_marked",
            "reject_marked",
            "rule_from_decision",
        }
    )
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {
        ActionProvider,
        JumpProvider,
    }

    #: The list filter. A repeat assignment needs no repaint: no ``always_update``.
    show: reactive[Show] = reactive(Show.OPEN, init=False)
    #: The ``/`` filter: only rows containing this text are listed (empty: every row).
    find_text: str = ""

    def __init__(self, feed: Feed, options: ReviewOptions, *, where: str, reviewer: str) -> None:
        super().__init__()
        self.feed = feed
        #: ``None`` until the app's core worker has made it.
        self.core: ReviewCore | None = None
        self.read_only = options.read_only
        self._heading = Topbar(where=where, reviewer=reviewer, read_only=options.read_only)
        self._quiet = options.quiet
        self._notices = ArrivalNotices(self._tell_arrivals, self.set_timer)
        self.set_reactive(ReviewScreen.show, options.show)
        self._book = Entries()
        self._marks = MarksBar(id="marks")
        self._rows = RowCache(self._book.by_key, self._book.runs, self._marks.keys)
        self._scanned = False
        #: Repaint the list (re-filter, re-sort) or only the header; ``now=False`` from
        #: bulk updates coalesces them to one paint per ``LIST_REFRESH_S``.
        self._paint_list = Throttled(self, LIST_REFRESH_S, self._repaint_list)
        self._update_topbar = Throttled(self, LIST_REFRESH_S, self._repaint_topbar)
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
        #: Handoffs asked to be inspected whose result has not arrived yet (``_hurry``).
        self._asked: set[Key] = set()
        #: The handoff this reviewer approved last: ``u`` proposes a rule from it once the
        #: cursor has moved on to the next one that waits.
        self._approved_last: Key | None = None
        self._topbar = Static("", id="topbar", markup=False)
        self._list = HandoffList(id="list")
        self._main = Horizontal(id="main")
        self._detail = Detail(self._field_rows, id="detail")
        self._asker = Asker()

    def compose(self) -> ComposeResult:
        yield self._topbar
        with self._main:
            yield self._list
            yield self._detail
        yield self._marks
        yield self._asker
        yield Footer(compact=True)

    def _field_rows(
        self, report: Report, parent: str = "", *, start: int = 0, limit: int | None = None
    ) -> list[FieldRow]:
        """A report exists only once the core has inspected it; before that there are none."""
        if self.core is None:
            return []
        return self.core.field_rows(report, parent, start=start, limit=limit)

    def on_mount(self) -> None:
        self._list.focus()
        self.set_interval(DEADLINE_TICK_S, self._tick_deadlines)

    def _tick_deadlines(self) -> None:
        """Keep the time left on pending rows current, and inspect again a handoff whose
        deadline has just passed, so it turns ``expired`` (and unmarked) without waiting
        for its files to change."""
        timed = [
            (entry, entry.label.expires_at)
            for entry in self.entries.values()
            if entry.state is HandoffState.PENDING and entry.label and entry.label.expires_at
        ]
        for entry, expires_at in timed:
            self._rows.drop(entry.key)
            if is_past(expires_at):
                self._asked.add(entry.key)
                self.feed.inspect(entry.ref, urgent=False)
        if timed:
            self._list.refresh()
        self._update_topbar()

    def on_resize(self) -> None:
        """The layout classes for the width (the constants above, app.tcss); the header
        is fitted again."""
        width = self.app.size.width
        self._main.set_class(width < WIDE_DECISIONS, "narrow")
        compact = width < COMPACT_BELOW
        self._main.set_class(SINGLE_BELOW <= width < COMPACT_BELOW, "compact")
        single = width < SINGLE_BELOW
        if single and not self.single:
            # Narrowing while reading the handoff keeps it open, in place of the list.
            self._main.set_class(self._detail.has_focus_within, "opened")
        self._main.set_class(single, "single")
        # A narrow footer cut the palette key mid-word; ctrl+p still opens it, ? lists it.
        self.query_one(Footer).show_command_palette = not compact
        self._update_topbar()

    # ------------------------------------------------------------ panes

    @property
    def single(self) -> bool:
        return self._main.has_class("single")

    @property
    def opened(self) -> bool:
        """One pane at a time, the handoff shown in place of the list."""
        return self.single and self._main.has_class("opened")

    def action_open_handoff(self) -> None:
        """Its fields take the focus; one pane at a time it takes the list's place."""
        if self.current_entry() is None:
            return
        self._main.add_class("opened")
        detail = self._detail
        body = detail.fields if detail.body is Body.FIELDS else detail.lines
        self.call_after_refresh(body.focus)

    def action_back_to_list(self) -> None:
        self._main.remove_class("opened")
        self._list.focus()

    # ------------------------------------------------------------ public view

    @property
    def entries(self) -> dict[Key, Entry]:
        """Read it, do not edit it."""
        return self._book.by_key

    def listed(self) -> list[Key]:
        """The handoffs in the list, top to bottom."""
        return [key for key in self._list.keys if isinstance(key, tuple)]

    def current_entry(self) -> Entry | None:
        key = self._list.current
        return self.entries.get(key) if isinstance(key, tuple) else None

    def waited_runs(self) -> set[Path]:
        """Runs with a live waiter on some handoff (worth a fresh look)."""
        return {e.key[0] for e in self.entries.values() if e.waiters}

    def jump_to(self, key: Key) -> None:
        """Select a handoff, widening the filter if it hides it."""
        if key not in self.entries:
            return
        handoffs = self._list
        if not handoffs.select_key(key):
            self.show = Show.ALL
            if not handoffs.select_key(key):  # already showing all: a repaint is due
                self._paint_list()
                handoffs.select_key(key)
        handoffs.focus()

    def jump_targets(self) -> list[Target]:
        return jump_targets(self._book.runs, self.entries.values(), self.jump_to)

    def offered(self) -> list[BindingType]:
        """A read-only review has no deciding keys."""
        hidden = self.DECIDING | {READ_ONLY_STAND_IN} if self.read_only else {READ_ONLY_STAND_IN}
        return [b for b in self.BINDINGS if not (isinstance(b, Binding) and b.action in hidden)]

    def palette_actions(self) -> list[Target]:
        return action_targets(self.offered(), self.run_action_soon, self._show)

    def run_action_soon(self, action: str) -> None:
        """Run a main-view action once the palette has closed (it is inert under it)."""
        self.call_after_refresh(self.run_action, action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Inert while anything is over this screen (palette actions run once it closes);
        ``False`` hides a key from the footer too."""
        if action in self.DECIDING and self.read_only:
            return False
        if action == READ_ONLY_STAND_IN and not self.read_only:
            return False
        if action == "reject_marked" and not self._marks.keys:
            return False  # R then lists the rejected handoffs, as it did before marks
        if action == "open_handoff" and self.focused is not self._list:
            return False  # Enter on the fields is theirs (expand, open a value)
        if action == "back_to_list" and not (self.opened or self._detail.has_focus_within):
            return False
        return self.app.screen is self

    # --------------------------------------------------------------- selection

    def on_handoff_list_highlighted(self, message: HandoffList.Highlighted) -> None:
        """With an empty list, say why (the list reports its empty cursor whenever it
        likes, also after it was painted)."""
        key = message.key if isinstance(message.key, tuple) else None
        entry = self.entries.get(key) if key is not None else None
        if key in self._new:
            self._new.discard(key)
            self._update_topbar()
        if entry is None:
            self._detail.show(None, None if self._list.keys else self._empty_hint())
            return
        self._detail.show(entry)
        if entry.report is None:
            self._hurry(entry.ref)
        else:
            self._book.keep_report(entry, self._list.current)

    def watch_show(self) -> None:
        self._paint_list()

    # --------------------------------------------------------------- messages

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
        current = self.current_entry()
        if current is not None and current.report is None:
            self._hurry(current.ref)

    def _apply(self, merged: Merged) -> None:
        rows = self._rows
        rows.id_width = max(rows.id_width, merged.id_width)
        for key in merged.stale:
            rows.drop(key)
        if merged.selected_changed:
            self._detail.show(self.current_entry())
        current = self._list.current
        for ref in merged.inspect:
            self._asked.add(key_of(ref))
            self.feed.inspect(ref, urgent=key_of(ref) == current)

    def _hurry(self, ref: HandoffRef) -> None:
        """Have a handoff on screen inspected first. One asked for already only jumps the
        line: asked again while it was being inspected, it was inspected twice."""
        if key_of(ref) in self._asked:
            self.feed.hurry(ref)
        else:
            self._asked.add(key_of(ref))
            self.feed.inspect(ref, urgent=True)

    def on_inspected(self, message: Inspected) -> None:
        core = self.core
        if core is None:  # the feed inspects only with the core: never the case
            return
        current = self._list.current
        refresh_detail = False
        moved = False
        for result in message.results:
            self._asked.discard(result.key)
            entry = self.entries.get(result.key)
            if entry is None:
                continue
            before = placement(entry, self.show)
            self._book.fold(result, current)
            _judge(core, entry)
            if result.key in self._arrivals:
                self._arrivals.discard(result.key)
                if entry.decidable:
                    self._landed.append(result.key)
            moved = moved or placement(entry, self.show) != before
            if result.key in self._marks.keys and not entry.decidable:
                self._marks.unmark([result.key])
            self._rows.drop(result.key)
            refresh_detail = refresh_detail or result.key == current
            if needs_person(entry.state):
                self._notices.add(entry)
        if moved:
            self._paint_list(now=False)
        else:
            self._list.refresh()
            self._update_topbar(now=False)
        self._settle_cursor()
        self._place_cursor()
        if refresh_detail:
            self._detail.show(self.current_entry())

    def on_decision_finished(self, message: DecisionFinished) -> None:
        """The cursor goes to the next handoff that waits and follows the decided run if
        that one is in another (``cursor``, ``follow``)."""
        run_dir = message.key[0]
        self._tell(decided(message))
        if message.decision is not None and message.decision.action is Action.APPROVE:
            self._approved_last = message.key
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
            self._detail.set_body(Body(message.body), message.title, message.lines)

    def on_watch_failed(self, message: WatchFailed) -> None:
        self.notify(
            f"Watching {safe(self._heading.where, 80)} stopped: {safe(message.error, 200)}. "
            "It resumes as soon as it can.",
            title="Watcher",
            severity="warning",
            markup=False,
        )

    def on_warned(self, message: Warned) -> None:
        self._tell(Notice(safe(message.text, 300), safe(message.title, 40), "warning"))

    def on_field_tree_open(self, message: FieldTree.Open) -> None:
        entry = self._detail.entry
        if entry is None or entry.report is None:
            return
        findings = field_findings(entry.report, message.row.path)
        self.app.push_screen(FullValueScreen(entry_title(entry), message.row, findings))

    # ---------------------------------------------------------------- cursor

    def _settle_cursor(self) -> None:
        """Let the cursor leave the first row once every handoff of the first listing is
        inspected: until then rows appear, move and vanish in whatever order results
        arrive, and the starting selection must not depend on it."""
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

    def _place_cursor(self) -> None:
        """The cursor's rules for arrivals, once the list shows them: while the cursor is
        where the start rule put it, the rule is applied again (a later pipeline handoff
        is then found too); otherwise a decidable arrival takes the cursor only off
        something that cannot be decided, and the header counts the ones it did not take."""
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
        """The arrivals are looked at once, followed or not (``cursor.RunFollow``)."""
        arrived, self._book.arrived = self._book.arrived, []
        self._arrivals.update(arrived)
        key = self._follow.target(arrived, self.entries, self._list.current)
        if key is not None:
            self._list.select_key(key)

    def _tell_arrivals(self, texts: list[str]) -> None:
        for text in texts:
            self.notify(text, title="New handoffs", markup=False)
        if not self._quiet:
            self.app.bell()

    def action_toggle_notices(self) -> None:
        said = "on" if self._notices.toggle() else "off: new handoffs still appear in the list"
        self.notify(f"New-handoff notifications {said}", timeout=2, markup=False)

    # ------------------------------------------------------------------ list

    def _repaint_list(self) -> None:
        show = self.show
        listed = visible_entries(self.entries, show, self.find_text)
        self._main.set_class(show is Show.REJECTED, "decisions")
        keys = [entry.key for entry in listed]
        self._list.set_rows(keys, lambda key, width: self._rows.row(key, width, self.show))
        if not keys:
            self._detail.show(None, self._empty_hint())
        self._update_topbar()
        self._settle_cursor()
        self._place_cursor()

    def _empty_hint(self) -> Text:
        if not self._scanned:
            return Text("Scanning…", style="dim")
        if not self.entries:
            return Text(
                "No handoffs yet. New ones appear here as soon as they are written.", style="dim"
            )
        if self.find_text:
            return Text(
                f"Nothing {self.show.value} contains {safe(self.find_text, 40)!r}. "
                "Press / to change the text, f the filter.",
                style="dim",
            )
        return Text(f"Nothing {self.show.value} here. Press f to change the filter.", style="dim")

    def _repaint_topbar(self) -> None:
        bar = replace(
            self._heading,
            show=self.show,
            listed=self._list.row_count,
            scanned=self._scanned,
            backlog=self.feed.backlog,
            new=sum(1 for key in self._new if (e := self.entries.get(key)) and e.decidable),
            find=self.find_text,
        ).render(self.entries.values(), self.app.size.width or 80)
        # One line high (app.tcss), so new counts never resize it: no layout pass, which
        # would re-render the whole screen ten times a second while a root loads.
        self._topbar.update(bar, layout=False)

    # ------------------------------------------------------------- deciding

    def action_approve(self) -> None:
        found = None if self._unread() else self._decidable()
        if found is None:
            return
        core, entry, report = found
        if not report.approvable:
            self._tell(blocked(entry, report))
            return
        self._asker.approve(core, entry, report)

    def _unread(self) -> bool:
        """One pane at a time, with the list shown, the cursor's handoff has not been
        read: open it instead (an approval follows the reading of what is approved).
        Opening is the answer: a toast would sit over the dialog the next key opens."""
        if self.read_only or not self.single or self.opened or self.current_entry() is None:
            return False
        self.action_open_handoff()
        return True

    def action_reject(self) -> None:
        found = self._decidable()
        if found is not None:
            self._asker.reject(*found)

    def action_edit(self) -> None:
        found = None if self._unread() else self._decidable()
        if found is None:
            return
        core, entry, report = found
        start = delivered_text(report)
        if start is None:
            self._tell(blocked(entry, report))
            return
        self._asker.edit(core, entry, report, start)

    # --------------------------------------------------------------- batches

    @property
    def marked(self) -> list[Key]:
        return self._marks.ordered(self.listed())

    def action_mark(self) -> None:
        """Only a handoff this reviewer can decide now can be marked, never a blocked one."""
        entry = self.current_entry()
        if entry is None:
            return
        if entry.key in self._marks.keys:
            self._marks.unmark([entry.key])
        elif entry.decidable:
            self._marks.mark([entry.key])
        else:
            self._tell(CANNOT_MARK)

    def action_mark_all(self) -> None:
        """Only the cursor's run, in the current view: a batch is one run's, never every
        run under the root."""
        current = self.current_entry()
        if current is None:
            self._tell(NOTHING_TO_DECIDE)
            return
        run = current.key[0]
        found = [
            key
            for key in self.listed()
            if key[0] == run and (e := self.entries.get(key)) and e.decidable
        ]
        if not found:
            self._tell(NOTHING_TO_DECIDE)
            return
        self._marks.mark(found)

    def on_marks_bar_changed(self, message: MarksBar.Changed) -> None:
        for key in message.keys:
            self._rows.drop(key)
        self._list.refresh()

    def _batch(self) -> list[tuple[Entry, str]] | None:
        """The marked handoffs still decidable, each with the sha256 it was seen with;
        ``None``, said why, when there are none."""
        if self.read_only:
            self._tell(READ_ONLY)
            return None
        if self.core is None:
            self._tell(STILL_INSPECTING)
            return None
        chosen: list[tuple[Entry, str]] = []
        for key in self.marked:
            entry = self.entries.get(key)
            if entry is not None and entry.decidable and entry.label and entry.label.sha256:
                chosen.append((entry, entry.label.sha256))
        if not chosen:
            self._tell(NOTHING_MARKED)
            return None
        return chosen

    def action_approve_marked(self) -> None:
        chosen = self._batch()
        if chosen is not None and self.core is not None:
            self._asker.approve_batch(self.core, chosen)

    def action_reject_marked(self) -> None:
        chosen = self._batch()
        if chosen is not None and self.core is not None:
            self._asker.reject_batch(self.core, chosen)

    @work(thread=True, group="decide", name="decide-batch")
    def on_asker_many(self, m: Asker.Many) -> None:
        self.post_message(m.core.decide_many(m.chosen, m.action, m.reason, m.category))

    def on_batch_decided(self, message: BatchDecided) -> None:
        """The cursor stays, or, if its handoff was decided, goes to the next one that
        waits (never to the top)."""
        self._tell(batch_decided(message.results))
        self._marks.unmark([r.key for r in message.results])
        current = self._list.current
        if isinstance(current, tuple) and any(r.key == current for r in message.results):
            target = next_after(self.entries, self._list.keys, current)
            if target is not None:
                self._list.select_key(target)
        for run_dir in {r.key[0] for r in message.results}:
            self.feed.relist(run_dir)

    def action_refuse_read_only(self) -> None:
        self._tell(READ_ONLY)

    @work(thread=True, group="decide", name="decide")
    def on_asker_one(self, m: Asker.One) -> None:
        self.post_message(
            m.core.decide(m.entry, m.action, m.sha256, m.reason, m.category, m.edited)
        )

    def _decidable(self) -> tuple[ReviewCore, Entry, Report] | None:
        """The cursor's handoff if a decision on it may be asked for now; else ``None``,
        said why."""
        if self.read_only:
            self._tell(READ_ONLY)
            return None
        entry = self.current_entry()
        if entry is None:
            return None
        if entry.report is None or self.core is None:
            self._tell(STILL_INSPECTING)
            self._hurry(entry.ref)
            return None
        refusal = self.core.refusal(entry)
        if refusal is not None:
            self._tell(refusal)
            return None
        return self.core, entry, entry.report

    def _tell(self, notice: Notice) -> None:
        self.notify(notice.message, title=notice.title, severity=notice.severity, markup=False)

    # ---------------------------------------------------------------- bodies

    def action_toggle_body(self, name: str) -> None:
        body = Body(name)
        entry = self.current_entry()
        if entry is not self._detail.entry:
            self._detail.show(entry)
        if self._detail.body is body or entry is None:
            self._detail.set_body(Body.FIELDS)
            return
        if entry.report is None or self.core is None:
            return
        previous = None
        if body is Body.DIFF:
            previous = previous_same_phase(self.entries, entry)
            if previous is None:
                self._tell(nothing_earlier(entry))
                return
        self.load_body(self.core, entry, body, previous)

    @work(thread=True, exclusive=True, group="body", name="body")
    def load_body(self, core: ReviewCore, entry: Entry, body: Body, previous: Entry | None) -> None:
        """Off the UI thread: making a large payload's unsafe characters visible, or
        inspecting the diff's earlier handoff again, is too slow for it. A cancelled
        build posts nothing."""
        report = entry.report
        if report is None:
            return
        if body is Body.DELIVERED:
            title, lines = delivered_view(report)
        elif previous is None:
            title, lines = raw_view(entry.ref, report, self.feed.handoff_bytes)
        else:
            before = previous.report or self.feed.inspect_now(core, previous.ref).report
            title, lines = diff_view(before, previous.ref.id, report, entry.ref.id)
        if not get_current_worker().is_cancelled:
            self.post_message(BodyReady(entry.key, body.value, title, tuple(lines)))

    # ------------------------------------------------------------ navigation

    def action_step_waiting(self, direction: int) -> None:
        handoffs = self._list
        if not handoffs.keys:
            return
        key = step_waiting(self.entries, handoffs.keys, handoffs.cursor, direction)
        if key is None:
            self._tell(NOTHING_TO_DECIDE)
        else:
            handoffs.select_key(key)

    def action_filter(self) -> None:
        self._show(self.show.next())

    def action_find(self) -> None:
        self.app.push_screen(FindScreen(self.find_text), self._found)

    def _found(self, text: str | None) -> None:
        if text is None or text == self.find_text:
            return
        self.find_text = text
        self._paint_list(now=True)
        shown = f"Showing rows containing {text!r}" if text else "Showing every row"
        self.notify(visible(shown), timeout=2, markup=False)

    def action_show_rejected(self) -> None:
        self._show(Show.REJECTED)

    def _show(self, show: Show) -> None:
        self.show = show
        self.notify(f"Showing {show.value} handoffs", timeout=2, markup=False)

    def action_open_value(self) -> None:
        """The first field's when none is highlighted."""
        fields = self._detail.fields
        row = fields.cursor_node_data
        if not isinstance(row, FieldRow):
            row = fields.first_row
        if isinstance(row, FieldRow):
            self.post_message(FieldTree.Open(row))
        else:
            self._tell(NO_FIELD)

    def action_decision(self) -> None:
        entry = self.current_entry()
        if entry is None:
            return
        if entry.decision is None and no_decision_text(entry) is None:
            self._tell(undecided(entry))
            return
        self.app.push_screen(DecisionScreen(entry))

    def action_stats(self) -> None:
        if self.core is None:
            self._tell(NOT_READY)
            return
        self.app.push_screen(
            StatsScreen(self.core.look_back),
            lambda rejected: self._show(Show.REJECTED) if rejected else None,
        )

    def action_rule_from_decision(self) -> None:
        """From the cursor's approved tool call, or, when the cursor is on one not approved
        (it moves on after a decision), the one this reviewer approved last. Imported
        only now, so the first paint never waits for the replay code."""
        from handoff_gate.tui.screens.rule_proposal import RuleProposalScreen

        entry = self.current_entry()
        last = self.entries.get(self._approved_last) if self._approved_last else None
        if last is not None and (entry is None or entry.state is not HandoffState.APPROVED):
            entry = last
        if entry is None:
            return
        if self.core is None:
            self._tell(STILL_INSPECTING)
            return
        screen = RuleProposalScreen(self.core, entry, self._heading.reviewer)
        self.app.push_screen(screen, lambda told: self._tell(told) if told else None)

    def action_help(self) -> None:
        app = self.app
        sections = [
            ("Anywhere", [*key_rows(app, [*self.offered(), *app.BINDINGS]), *EXTRA_KEYS]),
            ("On the list", key_rows(app, HandoffList.BINDINGS)),
            ("On the fields", key_rows(app, FieldTree.BINDINGS)),
        ]
        app.push_screen(HelpScreen(sections))


def _judge(core: ReviewCore, entry: Entry) -> None:
    """Only a pending handoff is asked about: the others need no word from the deciding
    code."""
    refusal = core.refusal(entry) if entry.state is HandoffState.PENDING else None
    entry.decidable = decidable_now(entry.state, refusal.message if refusal else None)
