"""The field-by-field view: a tree whose children are asked of ``gates.fields`` on expand.

Only the top level is built when a handoff is shown, and a level with many children is
added a chunk at a time, so a payload with 100,000 leaves costs what the screen shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from gates.fields import field_rows
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from gates.report import FieldRow, Report
from tui.render import field_label

#: How many children one expansion (or one "more" line) adds.
CHUNK = 200


@dataclass(frozen=True, slots=True)
class More:
    """A placeholder line standing for the children not added yet."""

    parent: str
    offset: int


NodeData = FieldRow | More


class FieldTree(Tree[NodeData]):
    """Fields of one report; each node carries its ``FieldRow``."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("payload"), id=id)
        self.show_root = False
        self.guide_depth = 3
        self._report: Report | None = None
        self._rows: dict[str, list[FieldRow]] = {}

    @property
    def report(self) -> Report | None:
        return self._report

    def show_report(self, report: Report) -> None:
        """Replace the tree with the top-level fields of ``report``."""
        self.clear()
        self._report = report
        self._rows = {}
        self._fill(self.root, "", 0)
        self.root.expand()
        self.move_cursor(None)

    def _children(self, parent: str) -> list[FieldRow]:
        if parent not in self._rows and self._report is not None:
            self._rows[parent] = field_rows(self._report, parent)
        return self._rows.get(parent, [])

    def _fill(self, node: TreeNode[NodeData], parent: str, offset: int) -> None:
        rows = self._children(parent)
        if not rows and not parent:
            node.add_leaf(Text("(no fields to show)", style="dim italic"))
            return
        for row in rows[offset : offset + CHUNK]:
            node.add(field_label(row), data=row, allow_expand=row.child_count > 0)
        rest = len(rows) - offset - CHUNK
        if rest > 0:
            more = Text(f"… {rest:,} more: press Enter to show {min(rest, CHUNK)}")
            more.stylize("dim italic")
            node.add_leaf(more, data=More(parent, offset + CHUNK))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        node = event.node
        if isinstance(node.data, FieldRow) and not node.children:
            self._fill(node, node.data.path, 0)

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        node = event.node
        if isinstance(node.data, More) and node.parent is not None:
            parent, more = node.parent, node.data
            node.remove()
            self._fill(parent, more.parent, more.offset)
