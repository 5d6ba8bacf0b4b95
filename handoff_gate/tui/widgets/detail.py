"""The right-hand pane: header, banners, decision, warnings and one of three bodies.

The body is the field tree, the raw text or a diff. This widget only displays what the
app hands it; loading and inspecting happen in the app's workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import banners, decision_text, header, warnings_text
from handoff_gate.tui.widgets.field_tree import FieldRows, FieldTree
from handoff_gate.tui.widgets.lines import TextLines


class Body(StrEnum):
    FIELDS = "fields"
    RAW = "raw"
    DIFF = "diff"
    DELIVERED = "delivered"


_BANNER_CLASSES = ("truncated", "refusal", "approvable", "blocked")


class Detail(Vertical):
    """Shows one entry; ``show`` is cheap to call again when the entry is unchanged.

    Its parts are created up front and held as attributes, so the app may call ``show``
    before they are mounted.
    """

    def __init__(self, rows: FieldRows, *, id: str | None = None) -> None:
        """``rows``: the field tree's rows (``FieldTree``)."""
        super().__init__(id=id)
        self.entry: Entry | None = None
        self.body = Body.FIELDS
        self._header = Static(Text("No handoff selected.", style="dim"), id="header")
        self._banners = [
            Static("", id=f"banner-{n}", classes="banner", markup=False) for n in range(3)
        ]
        self._decision = Static("", id="decision", markup=False)
        self._summary = VerticalScroll(id="summary", can_focus=False)
        self._decided_first = False
        #: Where the decision box is in the summary now (``None``: as composed, below).
        self._applied: bool | None = None
        self._warnings = Static("", id="warnings", markup=False)
        self._body_title = Static("", id="body-title", markup=False)
        self.fields = FieldTree(rows, id="fields")
        self.lines = TextLines(id="lines")
        for hidden in (self._decision, self._warnings, self._body_title, self.lines):
            hidden.display = False
        for banner in self._banners:
            banner.display = False

    def compose(self) -> ComposeResult:
        # Banners, header, decision and warnings scroll within at most half the pane, so
        # the field rows below always keep room, on a 24-line terminal too. The verdict
        # banner comes first at every width: it is what the reviewer must see.
        with self._summary:
            yield from self._banners
            yield self._header
            yield self._decision
            yield self._warnings
        yield self._body_title
        yield self.fields
        yield self.lines

    def show(self, entry: Entry | None, empty: Text | None = None) -> None:
        """Display ``entry``, or ``empty`` when nothing is selected; resets the body."""
        same = entry is not None and self.entry is not None and entry.key == self.entry.key
        report_changed = entry is None or entry.report is not self.fields.report
        self.entry = entry
        if entry is None:
            self._header.update(empty or Text("No handoff selected.", style="dim"))
            self._clear()
            return
        self._header.update(header(entry))
        report = entry.report
        shown = banners(report) if report is not None else []
        for index, banner in enumerate(self._banners):
            banner.remove_class(*_BANNER_CLASSES)
            banner.display = index < len(shown)
            if index < len(shown):
                text, css_class = shown[index]
                banner.update(text)
                banner.add_class(css_class)
        decision_shown = decision_text(entry)
        self._decision.update(decision_shown)
        self._decision.display = bool(decision_shown)
        self._place_decision(entry.decision is not None or bool(entry.decision_error))
        warned = warnings_text(report) if report is not None else Text()
        self._warnings.update(warned)
        self._warnings.display = bool(warned)
        if report is None:
            self.fields.clear()
            self.fields.forget()
        elif report_changed:
            self.fields.show_report(report)
        if not same:
            self.set_body(Body.FIELDS)

    def _place_decision(self, decided: bool) -> None:
        """A decided handoff shows its decision first (state, who, when, category,
        reason), above the banners: on a 24-line terminal it is what a reviewer looking
        back came for. An undecided one shows the box (its producer, approvals, waiter)
        below the header."""
        self._decided_first = decided
        if not self._summary.is_attached or self._applied is decided:
            return  # placed on mount, or already where it belongs
        self._applied = decided
        if decided:
            self._summary.move_child(self._decision, before=self._banners[0])
        else:
            self._summary.move_child(self._decision, after=self._header)

    def on_mount(self) -> None:
        self._applied = False
        self._place_decision(self._decided_first)

    def _clear(self) -> None:
        for hidden in (self._decision, self._warnings, self._body_title, self.lines):
            hidden.display = False
        for banner in self._banners:
            banner.display = False
        self.fields.clear()
        self.fields.forget()

    def set_body(self, body: Body, title: Text | None = None, lines: Sequence[Text] = ()) -> None:
        """Switch the body; raw and diff bodies come with their title and lines."""
        self.body = body
        fields = body is Body.FIELDS
        self.fields.display = fields
        self.lines.display = not fields
        self._body_title.display = title is not None and not fields
        if not fields:
            self._body_title.update(title or Text())
            self.lines.set_lines(lines)
