"""A virtual list of pre-styled text lines, painted one visible line at a time.

``DataTable`` and ``OptionList`` measure every row up front, which costs seconds on ten
thousand handoffs or a multi-megabyte raw payload. This widget keeps plain ``Text``
objects and renders only the lines in view, so its cost follows the screen size.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import chop_cells
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class TextLines(ScrollView):
    #: Lines are wrapped to the width left beside a kept scrollbar gutter, so a scrollbar
    #: appearing never paints over their last letters (as in ``FieldTree``).
    DEFAULT_CSS = """
    TextLines { overflow-x: hidden; scrollbar-gutter: stable; }
    """

    def __init__(
        self, *, id: str | None = None, classes: str | None = None, words: bool = False
    ) -> None:
        """``words``: wrap at word boundaries (prose); otherwise at the cell edge, which
        keeps the cost of a multi-megabyte raw view linear and low."""
        super().__init__(id=id, classes=classes)
        self._words = words
        self._source: list[Text] = []
        self._lines: list[Text] = []
        self._wrapped_at = 0

    def set_lines(self, lines: Sequence[Text]) -> None:
        self._source = list(lines)
        self._wrapped_at = 0
        self._rewrap()
        self.scroll_to(0, 0, animate=False)

    def _rewrap(self) -> None:
        width = self.scrollable_content_region.width or 20
        if width == self._wrapped_at and self._lines:
            return
        self._wrapped_at = width
        wrapped: list[Text] = []
        for line in self._source:
            if line.cell_len <= width:
                wrapped.append(line)
                continue
            if self._words:
                wrapped.extend(line.wrap(self.app.console, width))
                continue
            start = 0
            for piece in chop_cells(line.plain, width):
                wrapped.append(line[start : start + len(piece)])
                start += len(piece)
        self._lines = wrapped
        self.virtual_size = Size(width, len(wrapped))
        self.refresh()

    def on_resize(self) -> None:
        self._rewrap()

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, base)
        text = self._lines[index]
        strip = Strip(text.render(self.app.console)).crop_extend(0, width, None)
        return strip.apply_style(base)
