"""The handoff list: one virtual line per handoff. Rows are keyed, so the cursor stays on
its handoff through a re-sort; a row is rendered only when painted."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from handoff_gate.tui.keys import binding


class HandoffList(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        binding("up,k", "move(-1)", "Up", "previous row of the list", id="up"),
        binding("down,j", "move(1)", "Down", "next row of the list", id="down"),
        binding("pageup", "page(-1)", "Page up", "a page up", id="page-up"),
        binding("pagedown", "page(1)", "Page down", "a page down", id="page-down"),
        binding("home", "edge(0)", "First", "first row", id="first"),
        binding("end", "edge(1)", "Last", "last row", id="last"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"handoff-list--cursor"}
    DEFAULT_CSS = """
    HandoffList { overflow-x: hidden; }
    HandoffList > .handoff-list--cursor { background: $block-cursor-blurred-background; }
    HandoffList:focus > .handoff-list--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
    }
    """

    #: The row index of the cursor. ``always_update``: ``set_rows`` can put another key
    #: under an unchanged index, and the watcher is what tells the screen (``Highlighted``).
    cursor: reactive[int] = reactive(0, always_update=True)

    @dataclass
    class Highlighted(Message):
        """The cursor now rests on ``key`` (``None``: the list is empty)."""

        key: Hashable | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The cursor stays on the first row until the first look has settled or the
        #: reader moves: the start never depends on which background result came first.
        self.follow_top = True
        self._keys: list[Hashable] = []
        self._render_row: Callable[[Hashable, int], Text] = lambda key, _: Text(str(key))
        self._last_posted: Hashable | None = object()

    @property
    def keys(self) -> Sequence[Hashable]:
        return self._keys

    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def current(self) -> Hashable | None:
        return self._keys[self.cursor] if self._keys else None

    def set_rows(
        self, keys: Sequence[Hashable], render_row: Callable[[Hashable, int], Text]
    ) -> None:
        """Replace all rows without moving the selection or the view under the reader:
        scrolled to the top, the view stays there so new arrivals are seen; elsewhere, it
        moves with the selected row so the rows on screen do not jump."""
        keep, before = self.current, self.cursor
        self._keys = list(keys)
        self._render_row = render_row
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._keys))
        if self.follow_top:
            self.cursor = 0
        elif keep in self._keys:
            index = self._keys.index(keep)
            self.set_reactive(HandoffList.cursor, index)
            if self.scroll_offset.y > 0 and index != before:
                self.scroll_to(y=self.scroll_offset.y + index - before, animate=False, force=True)
        else:
            self.cursor = max(min(before, len(self._keys) - 1), 0)
        self.refresh()

    def select_key(self, key: Hashable) -> bool:
        """``False`` if it is not listed."""
        if key not in self._keys:
            return False
        self.follow_top = False
        self.cursor = self._keys.index(key)
        return True

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._keys) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()
        if self._keys:
            self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True)
        key = self.current
        if key != self._last_posted:
            self._last_posted = key
            self.post_message(self.Highlighted(key))

    def action_move(self, delta: int) -> None:
        self.follow_top = False
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        self.follow_top = False
        self.cursor += direction * max(self.scrollable_content_region.height - 1, 1)

    def action_edge(self, end: int) -> None:
        self.follow_top = False
        self.cursor = len(self._keys) - 1 if end else 0

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and offset.y + self.scroll_offset.y < len(self._keys):
            self.follow_top = False
            self.cursor = offset.y + self.scroll_offset.y

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self._keys):
            return Strip.blank(width, base)
        text = self._render_row(self._keys[index], width)
        strip = Strip(text.render(self.app.console)).crop_extend(0, width, None)
        if index == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("handoff-list--cursor"))
        return strip.apply_style(base)
