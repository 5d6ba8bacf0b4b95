"""The right-hand pane: decision summary, banners, header, producer, warnings, a body.

At 80x24 the verdict, the blocking findings and the first fields are on the first screen;
the summary holds no bordered box, so none is ever cut at its edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from handoff_gate.tui.decided import decided_lines
from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import banners, header, trust_lines, waiter_line, warnings_text
from handoff_gate.tui.widgets.field_tree import FieldRows, FieldTree
from handoff_gate.tui.widgets.lines import TextLines


class Body(StrEnum):
    FIELDS = "fields"
    RAW = "raw"
    DIFF = "diff"
    DELIVERED = "delivered"


_BANNER_CLASSES = ("truncated", "refusal", "approvable", "blocked")


class Detail(Vertical):
    """Its parts are made up front, so ``show`` may be called before they are mounted."""

    def __init__(self, rows: FieldRows, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entry: Entry | None = None
        self.body = Body.FIELDS
        self._header = Static(Text("No handoff selected.", style="dim"), id="header")
        self._banners = [
            Static("", id=f"banner-{n}", classes="banner", markup=False) for n in range(3)
        ]
        self._decided = Static("", id="decided", markup=False)
        self._decision = Static("", id="decision", markup=False)
        self._summary = VerticalScroll(id="summary", can_focus=False)
        self._warnings = Static("", id="warnings", markup=False)
        self._body_title = Static("", id="body-title", markup=False)
        self.fields = FieldTree(rows, id="fields")
        self.lines = TextLines(id="lines")
        self._hide()

    def compose(self) -> ComposeResult:
        # The summary scrolls within at most half the pane, so the fields keep room on 24
        # lines too; the verdict banner comes first: it is what the reviewer must see.
        with self._summary:
            yield self._decided
            yield from self._banners
            yield self._header
            yield self._decision
            yield self._warnings
        yield self._body_title
        yield self.fields
        yield self.lines

    def show(self, entry: Entry | None, empty: Text | None = None) -> None:
        """``empty``: shown when nothing is selected."""
        same = entry is not None and self.entry is not None and entry.key == self.entry.key
        report_changed = entry is None or entry.report is not self.fields.report
        self.entry = entry
        if entry is None:
            self._header.update(empty or Text("No handoff selected.", style="dim"))
            self._hide()
            self.fields.clear()
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
        self._show_decided()
        # The waiter on a line of its own: beside the producer it wrapped mid-phrase.
        trust = Text("\n").join([*trust_lines(entry, Text()), waiter_line(entry)])
        trust.rstrip()
        self._decision.update(trust)
        self._decision.display = bool(trust)
        warned = warnings_text(report) if report is not None else Text()
        self._warnings.update(warned)
        self._warnings.display = bool(warned)
        if report is None:
            self.fields.clear()
        elif report_changed:
            self.fields.show_report(report)
        if not same:
            self.set_body(Body.FIELDS)

    def _show_decided(self) -> None:
        entry = self.entry
        width = self._summary.scrollable_content_region.width
        lines = decided_lines(entry, width or 80, self.app.console) if entry is not None else []
        self._decided.update(Text("\n").join(lines))
        self._decided.display = bool(lines)

    def on_resize(self) -> None:
        self._show_decided()

    def _hide(self) -> None:
        """Everything but the header and the fields, until there is something to show."""
        for part in (self._decided, self._decision, self._warnings, self._body_title):
            part.display = False
        for widget in (self.lines, *self._banners):
            widget.display = False

    def set_body(self, body: Body, title: Text | None = None, lines: Sequence[Text] = ()) -> None:
        self.body = body
        fields = body is Body.FIELDS
        self.fields.display = fields
        self.lines.display = not fields
        self._body_title.display = title is not None and not fields
        if not fields:
            self._body_title.update(title or Text())
            self.lines.set_lines(lines)
