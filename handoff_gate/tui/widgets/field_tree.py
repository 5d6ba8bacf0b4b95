"""The field-by-field view: every field on as many lines as it needs, children on expand.

A ``Tree`` draws each node on one line, so a plan's problem statement was cut at the edge
of the pane; this view wraps each field and paints only the lines in view. A level is
built when shown, a chunk at a time, so a payload with 100,000 leaves costs what the
screen shows. The rows come from the function it is given, not an import: computing them
walks the contracts' pydantic models, which load after the first paint
(docs/architecture.md, "Laziness at the boundary only").
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from handoff_gate.gates.vocab.report import FieldRow, Report
from handoff_gate.tui.keys import binding
from handoff_gate.tui.render import field_text

#: How many children one expansion (or one "more" line) adds.
CHUNK = 200
#: Cells each level of nesting is indented by.
INDENT = 3
#: The narrowest a field is wrapped to, however deep it sits.
MIN_WRAP = 20


@dataclass(frozen=True, slots=True)
class More:
    """A placeholder line standing for the children not added yet."""

    parent: str
    offset: int
    total: int | None


NodeData = FieldRow | More | None


@dataclass(eq=False)
class _Node:
    """One field (or "more" line) and where it hangs; ``children`` is ``None`` until the
    field is first expanded."""

    data: NodeData
    depth: int
    parent: _Node | None = None
    children: list[_Node] | None = None
    expanded: bool = False
    lines: list[Text] = field(default_factory=list)

    @property
    def expandable(self) -> bool:
        return isinstance(self.data, FieldRow) and self.data.child_count > 0


class FieldRows(Protocol):
    """``gates.view.fields.field_rows``'s signature."""

    def __call__(
        self, report: Report, parent: str = "", *, start: int = 0, limit: int | None = None
    ) -> list[FieldRow]: ...


class FieldTree(ScrollView, can_focus=True):
    """Fields of one report, each wrapped in full; the cursor is on one field at a time."""

    BINDINGS: ClassVar[list[BindingType]] = [
        binding("up,k", "cursor(-1)", "Up", "previous field", id="field-up"),
        binding("down,j", "cursor(1)", "Down", "next field", id="field-down"),
        binding("pageup", "page(-1)", "Page up", "a page up", id="field-page-up"),
        binding("pagedown", "page(1)", "Page down", "a page down", id="field-page-down"),
        binding("home", "cursor_to(0)", "First field", id="field-first"),
        binding("end", "cursor_to(-1)", "Last field", id="field-last"),
        binding(
            "enter",
            "select",
            "Expand or open",
            "with children: expand or collapse; without: its whole value",
            id="field-select",
        ),
        binding("right,l", "expand", "Expand", "expand", id="field-expand"),
        binding(
            "left,h",
            "collapse",
            "Collapse",
            "collapse, or go to the parent field",
            id="field-collapse",
        ),
        binding("space,o", "open", "Full value", "on a field: its whole value", id="field-value"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"field-tree--cursor"}
    #: The gutter is kept (``scrollbar-gutter: stable``) and lines wrapped beside it, so a
    #: scrollbar appearing never paints over their last letters.
    DEFAULT_CSS = """
    FieldTree { overflow-x: hidden; scrollbar-gutter: stable; }
    FieldTree > .field-tree--cursor { background: $block-cursor-blurred-background; }
    FieldTree:focus > .field-tree--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
    }
    """

    @dataclass
    class Open(Message):
        """Asks for ``row``'s whole value."""

        row: FieldRow

    def __init__(self, rows: FieldRows, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows = rows
        self._report: Report | None = None
        self._top: list[_Node] = []
        #: The nodes in view order, and the first line of each.
        self._shown: list[_Node] = []
        self._starts: list[int] = []
        self._cursor: _Node | None = None
        self._wrapped_at = 0

    @property
    def report(self) -> Report | None:
        return self._report

    @property
    def cursor_node_data(self) -> NodeData:
        return None if self._cursor is None else self._cursor.data

    @property
    def first_row(self) -> FieldRow | None:
        """The first top-level field, for keys that act on "the field" with none chosen."""
        first = self._top[0].data if self._top else None
        return first if isinstance(first, FieldRow) else None

    def clear(self) -> None:
        """Show nothing; showing the same report again rebuilds the view."""
        self._report, self._top, self._cursor = None, [], None
        self._layout()

    def show_report(self, report: Report) -> None:
        self._report = report
        self._top, self._cursor = self._level(None, "", 0, None), None
        if not self._top:
            self._top = [_Node(None, 0)]
        self._layout()
        self.scroll_to(0, 0, animate=False)

    def shown_text(self) -> list[str]:
        """Every line the view holds now, as plain text (what a reader could scroll to)."""
        return [line.plain for node in self._shown for line in node.lines]

    def _level(
        self, parent: _Node | None, path: str, offset: int, total: int | None
    ) -> list[_Node]:
        """One chunk of ``path``'s rows from ``offset``, then a "more" line if needed."""
        if self._report is None:
            return []
        depth = 0 if parent is None else parent.depth + 1
        rows = self._rows(self._report, path, start=offset, limit=CHUNK + 1)
        nodes = [_Node(row, depth, parent) for row in rows[:CHUNK]]
        if len(rows) > CHUNK:
            nodes.append(_Node(More(path, offset + CHUNK, total), depth, parent))
        return nodes

    def _layout(self) -> None:
        # Hidden (no width yet), lines are wrapped at MIN_WRAP; shown, a resize wraps
        # them again to the real width, which can be narrower than MIN_WRAP.
        width = self.scrollable_content_region.width or MIN_WRAP
        rewrap = width != self._wrapped_at
        self._wrapped_at = width
        shown: list[_Node] = []
        pending = list(reversed(self._top))
        while pending:
            node = pending.pop()
            shown.append(node)
            if node.expanded and node.children:
                pending.extend(reversed(node.children))
        starts, line = [], 0
        for node in shown:
            if rewrap or not node.lines:
                node.lines = self._wrap(node, width)
            starts.append(line)
            line += len(node.lines)
        self._shown, self._starts = shown, starts
        self.virtual_size = Size(width, line)
        self.refresh()

    def _wrap(self, node: _Node, width: int) -> list[Text]:
        # Deep fields give up indent before text: a line is never wider than the pane.
        indent = " " * min(INDENT * node.depth, max(width - 2 - MIN_WRAP, 0))
        room = max(width - len(indent) - 2, 1)
        data = node.data
        if isinstance(data, FieldRow):
            text = field_text(data)
        elif isinstance(data, More):
            rest = f"{data.total - data.offset:,} more" if data.total is not None else "more"
            text = Text(f"… {rest}: press Enter to show the next {CHUNK}", style="dim italic")
        else:
            text = Text("(no fields to show)", style="dim italic")
        icon = ("▼ " if node.expanded else "▶ ") if node.expandable else "  "
        wrapped = text.wrap(self.app.console, room, overflow="fold")
        return [
            Text.assemble(indent, icon if i == 0 else "  ", line) for i, line in enumerate(wrapped)
        ]

    def on_resize(self) -> None:
        self._layout()

    def on_focus(self) -> None:
        """Coming to the fields chooses the first one, so Enter acts on what is lit."""
        if self._cursor is None and self._shown:
            self._move(self._shown[0])

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        base = self.rich_style
        at = self._node_at(index)
        if at is None:
            return Strip.blank(width, base)
        node = self._shown[at]
        line = node.lines[index - self._starts[at]]
        segments = list(line.render(self.app.console))
        strip = Strip(segments).crop_extend(0, width, None).apply_style(base)
        if node is self._cursor:
            cursor = self.get_component_rich_style("field-tree--cursor")
            strip = Strip([Segment(s.text, cursor + s.style if s.style else cursor) for s in strip])
        return strip

    def _node_at(self, line: int) -> int | None:
        if line < 0 or line >= self.virtual_size.height or not self._shown:
            return None
        return bisect_right(self._starts, line) - 1

    def _move(self, node: _Node | None) -> None:
        if node is self._cursor:
            return
        self._cursor = node
        self.refresh()
        if node is None or node not in self._shown:
            return
        at = self._shown.index(node)
        region = Region(0, self._starts[at], 1, len(node.lines))
        self.scroll_to_region(region, animate=False, force=True)

    def _index(self) -> int:
        return -1 if self._cursor is None else self._shown.index(self._cursor)

    def action_cursor(self, step: int) -> None:
        if self._shown:
            at = min(max(self._index() + step, 0), len(self._shown) - 1)
            self._move(self._shown[at])

    def action_cursor_to(self, at: int) -> None:
        if self._shown:
            self._move(self._shown[at])

    def action_page(self, step: int) -> None:
        """By a screenful of lines, landing on the field that holds that line."""
        if not self._shown:
            return
        at = max(self._index(), 0)
        line = self._starts[at] + step * max(self.scrollable_content_region.height - 1, 1)
        target = min(max(bisect_right(self._starts, max(line, 0)) - 1, 0), len(self._shown) - 1)
        self._move(self._shown[target])

    def action_select(self) -> None:
        node = self._cursor
        if node is None:
            return
        if isinstance(node.data, More):
            self._more(node, node.data)
        elif node.expandable:
            self._toggle(node, not node.expanded)
        elif isinstance(node.data, FieldRow):
            self.post_message(self.Open(node.data))

    def action_expand(self) -> None:
        if self._cursor is not None and self._cursor.expandable:
            self._toggle(self._cursor, True)

    def action_collapse(self) -> None:
        node = self._cursor
        if node is None:
            return
        if node.expandable and node.expanded:
            self._toggle(node, False)
        elif node.parent is not None:
            self._move(node.parent)

    def action_open(self) -> None:
        row = self.cursor_node_data
        if isinstance(row, FieldRow):
            self.post_message(self.Open(row))

    def _toggle(self, node: _Node, expand: bool) -> None:
        data = node.data
        if not isinstance(data, FieldRow):
            return
        if expand and node.children is None:
            node.children = self._level(node, data.path, 0, data.child_count)
        node.expanded = expand
        node.lines = []
        self._layout()

    def _more(self, node: _Node, more: More) -> None:
        """The cursor goes to the first field the chunk adds."""
        siblings = self._top if node.parent is None else node.parent.children
        if siblings is None:
            return
        added = self._level(node.parent, more.parent, more.offset, more.total)
        at = siblings.index(node)
        siblings[at : at + 1] = added
        self._layout()
        self._cursor = None
        self._move(added[0] if added else None)

    def on_click(self, event: events.Click) -> None:
        """A click on the chosen field selects it."""
        at = self._node_at(event.y + self.scroll_offset.y)
        if at is None:
            return
        node = self._shown[at]
        if node is self._cursor:
            self.action_select()
        else:
            self._move(node)
