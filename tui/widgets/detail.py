"""The right-hand pane: header, banners, decision, warnings and one of three bodies.

The body is the field tree, the raw text or a diff. This widget only displays what the
app hands it; loading and inspecting happen in the app's workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.model import Entry
from tui.render import banners, decision_text, header, warnings_text
from tui.widgets.field_tree import FieldTree
from tui.widgets.lines import TextLines


class Body(StrEnum):
    FIELDS = "fields"
    RAW = "raw"
    DIFF = "diff"


_BANNER_CLASSES = ("truncated", "refusal", "approvable", "blocked")


class Detail(Vertical):
    """Shows one entry; ``show`` is cheap to call again when the entry is unchanged."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entry: Entry | None = None
        self.body = Body.FIELDS

    def compose(self) -> ComposeResult:
        yield Static(Text("No handoff selected.", style="dim"), id="header")
        for index in range(3):
            yield Static("", id=f"banner-{index}", classes="banner", markup=False)
        yield Static("", id="decision", markup=False)
        yield Static("", id="warnings", markup=False)
        yield Static("", id="body-title", markup=False)
        yield FieldTree(id="fields")
        yield TextLines(id="lines")

    def on_mount(self) -> None:
        for widget_id in ("decision", "warnings", "body-title", "lines"):
            self.query_one(f"#{widget_id}").display = False
        for index in range(3):
            self.query_one(f"#banner-{index}").display = False

    def show(self, entry: Entry | None, empty: Text | None = None) -> None:
        """Display ``entry``, or ``empty`` when nothing is selected; resets the body."""
        same = entry is not None and self.entry is not None and entry.key == self.entry.key
        report_changed = (
            entry is None
            or self.entry is None
            or entry.report is not (self.query_one(FieldTree).report)
        )
        self.entry = entry
        header_widget = self.query_one("#header", Static)
        if entry is None:
            header_widget.update(empty or Text("No handoff selected.", style="dim"))
            self._clear()
            return
        header_widget.update(header(entry))
        report = entry.report
        shown = banners(report) if report is not None else []
        for index in range(3):
            banner = self.query_one(f"#banner-{index}", Static)
            banner.remove_class(*_BANNER_CLASSES)
            banner.display = index < len(shown)
            if index < len(shown):
                text, css_class = shown[index]
                banner.update(text)
                banner.add_class(css_class)
        decision = self.query_one("#decision", Static)
        decision_shown = decision_text(entry)
        decision.update(decision_shown)
        decision.display = bool(decision_shown)
        warned = self.query_one("#warnings", Static)
        warned_text = warnings_text(report) if report is not None else Text()
        warned.update(warned_text)
        warned.display = bool(warned_text)
        if report is not None and report_changed:
            self.query_one(FieldTree).show_report(report)
        if not same:
            self.set_body(Body.FIELDS)

    def _clear(self) -> None:
        for widget_id in ("decision", "warnings", "body-title", "lines"):
            self.query_one(f"#{widget_id}").display = False
        for index in range(3):
            self.query_one(f"#banner-{index}").display = False
        self.query_one(FieldTree).clear()

    def set_body(self, body: Body, title: Text | None = None, lines: Sequence[Text] = ()) -> None:
        """Switch the body; raw and diff bodies come with their title and lines."""
        self.body = body
        fields = body is Body.FIELDS
        self.query_one(FieldTree).display = fields
        text_lines = self.query_one(TextLines)
        text_lines.display = not fields
        heading = self.query_one("#body-title", Static)
        heading.display = title is not None and not fields
        if not fields:
            heading.update(title or Text())
            text_lines.set_lines(lines)
