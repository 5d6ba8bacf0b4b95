"""The field-by-field view: a tree whose children are asked of its ``FieldRows`` on expand.

Only the top level is built when a handoff is shown, and a level with many children is
added a chunk at a time, so a payload with 100,000 leaves costs what the screen shows.

The rows come from the function the tree is given (the review core's, which computes
them with ``gates.view.fields``), not from an import here: computing them walks the
contract's pydantic models, and the tree is part of the first screen, which is painted
before the core and pydantic's model machinery load (docs/architecture.md, "Laziness at
the boundary only").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from handoff_gate.gates.vocab.report import FieldRow, Report
from handoff_gate.tui.render import field_label

#: How many children one expansion (or one "more" line) adds.
CHUNK = 200
#: The width labels are fitted to before the tree has been laid out.
DEFAULT_WIDTH = 80


@dataclass(frozen=True, slots=True)
class More:
    """A placeholder line standing for the children not added yet."""

    parent: str
    offset: int
    total: int | None


NodeData = FieldRow | More


class FieldRows(Protocol):
    """The rows directly under ``parent`` in ``report``, windowed by ``start``/``limit``
    (``gates.view.fields.field_rows``'s signature)."""

    def __call__(
        self, report: Report, parent: str = "", *, start: int = 0, limit: int | None = None
    ) -> list[FieldRow]: ...


class FieldTree(Tree[NodeData]):
    """Fields of one report; each node carries its ``FieldRow``.

    Enter on a field without children, Space or ``o`` on any field, asks for its whole
    value (``Open``); Enter on a field with children expands or collapses it.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "space,o",
            "open",
            "Full value",
            show=False,
            tooltip="on a field: its whole value",
            id="field-value",
        ),
    ]

    @dataclass
    class Open(Message):
        """The reader asked for ``row``'s whole value."""

        row: FieldRow

    def __init__(self, rows: FieldRows, *, id: str | None = None) -> None:
        """``rows``: computes a level's rows when it is shown or expanded."""
        super().__init__(Text("payload"), id=id)
        self._rows = rows
        self.auto_expand = False
        self.show_root = False
        self.guide_depth = 3
        self._report: Report | None = None

    @property
    def report(self) -> Report | None:
        return self._report

    def show_report(self, report: Report) -> None:
        """Replace the tree with the top-level fields of ``report``."""
        self.clear()
        self._report = report
        self._fill(self.root, "", 0, None)
        self.root.expand()
        self.move_cursor(None)

    @property
    def cursor_node_data(self) -> NodeData | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def forget(self) -> None:
        """Drop the report (after ``clear``), so showing it again rebuilds the tree."""
        self._report = None

    def _label_width(self, parent: TreeNode[NodeData]) -> int:
        """Cells left for a child of ``parent`` once guides and the expand icon are drawn."""
        depth = 0
        while parent.parent is not None:
            depth, parent = depth + 1, parent.parent
        available = self.scrollable_content_region.width or DEFAULT_WIDTH
        return available - 3 - self.guide_depth * depth

    def _fill(self, node: TreeNode[NodeData], parent: str, offset: int, total: int | None) -> None:
        """Add one chunk of ``parent``'s rows from ``offset``, then a "more" line if needed."""
        if self._report is None:
            return
        rows = self._rows(self._report, parent, start=offset, limit=CHUNK + 1)
        if not rows and not parent and not offset:
            node.add_leaf(Text("(no fields to show)", style="dim italic"))
            return
        width = self._label_width(node)
        for row in rows[:CHUNK]:
            node.add(field_label(row, width), data=row, allow_expand=row.child_count > 0)
        if len(rows) > CHUNK:
            shown = offset + CHUNK
            rest = f"{total - shown:,} more" if total is not None else "more"
            more = Text(f"… {rest}: press Enter to show the next {CHUNK}")
            more.stylize("dim italic")
            node.add_leaf(more, data=More(parent, shown, total))

    def on_resize(self) -> None:
        """Re-fit every row to the new width: tree lines cannot wrap, and a row cut by
        the edge of the pane would lose its end without a marker."""
        pending = list(self.root.children)
        while pending:
            node = pending.pop()
            if isinstance(node.data, FieldRow):
                node.set_label(field_label(node.data, self._label_width(node.parent or self.root)))
            pending.extend(node.children)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        node = event.node
        if isinstance(node.data, FieldRow) and not node.children:
            self._fill(node, node.data.path, 0, node.data.child_count)

    def action_open(self) -> None:
        row = self.cursor_node_data
        if isinstance(row, FieldRow):
            self.post_message(self.Open(row))

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        node = event.node
        if isinstance(node.data, FieldRow):
            if node.allow_expand:
                node.toggle()
            else:
                self.post_message(self.Open(node.data))
        elif isinstance(node.data, More) and node.parent is not None:
            parent, more = node.parent, node.data
            node.remove()
            self._fill(parent, more.parent, more.offset, more.total)
