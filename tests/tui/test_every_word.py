"""Every word of every value is painted whole, at every width and after every resize.

The assertions read what the compositor paints in the field view's region (scrollbar
included), never the view's own strings: a scrollbar drawn over the last letters of a
line, or a line wrapped wider than the pane, fails them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from textual.pilot import Pilot
from tui_helpers import make_app, painted, placed, put, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.model import Entry
from handoff_gate.tui.render import FULL_VALUE
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.widgets.field_tree import FieldTree

#: (columns, rows): phones through ``serve`` first, then terminals up to very wide ones,
#: in an order that narrows and widens in turn, so each width is reached by a resize from
#: a wider and from a narrower one.
SIZES = [(80, 24), (40, 40), (200, 50), (48, 40), (160, 45), (60, 24), (120, 35)]
PHONE = (48, 40)

_BASE = [
    *("do", "not", "change", "the", "payment", "method", "before", "the", "customer"),
    *("confirms", "the", "refund", "in", "writing", "and", "the", "reviewer", "has", "read"),
    *("every", "line", "of", "this", "request", "twice"),
]


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str


class Context(BaseModel):
    model_config = ConfigDict(extra="forbid")

    background: str
    inner: Inner


class Essay(BaseModel):
    """A contract whose every value is prose: top level, a list, two levels down."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    instructions: str
    steps: list[str]
    context: Context
    appendix: str


def _sentences(start: int, words: int) -> str:
    """``words`` distinct words (each once in the whole payload, so a cut one cannot hide
    behind another whole copy), as sentences of twelve."""
    out = [f"{_BASE[(start + n) % len(_BASE)]}{start + n}" for n in range(words)]
    return ". ".join(" ".join(out[i : i + 12]) for i in range(0, len(out), 12)) + "."


def _words(*values: str) -> list[str]:
    return [word for value in values for word in re.findall(r"[a-z]+\d+", value)]


def _payload() -> tuple[dict[str, Any], list[str], list[str], str]:
    """The payload; the words of its top-level values, then those of the values inside
    its list and object, that must be painted whole; the long value's "+N chars" marker."""
    long_value = _sentences(5000, 260)  # past FULL_VALUE: its tail is behind a marker
    steps = [_sentences(200 + 100 * n, 30) for n in range(4)]
    background, note = _sentences(700, 50), _sentences(900, 45)
    summary, instructions = _sentences(0, 40), _sentences(100, 70)
    payload = {
        "summary": summary,
        "instructions": instructions,
        "steps": steps,
        "context": {"background": background, "inner": {"note": note}},
        "appendix": long_value,
    }
    shown = long_value[: FULL_VALUE - 20].rsplit(" ", 1)[0]
    marker = f"+{len(long_value) - FULL_VALUE:,} chars"
    return payload, _words(summary, instructions, shown), _words(*steps, background, note), marker


#: Stripped from a painted word: its punctuation, and the scrollbar's glyphs (U+2580 to
#: U+259F) beside its last letter. A scrollbar painted over letters leaves a shorter word.
_PUNCTUATION = "\"',.:[]" + "".join(map(chr, range(0x2580, 0x25A0)))


async def _expand_all(pilot: Pilot[Any], fields: FieldTree) -> None:
    """Open every field with children, top to bottom, as the reader's keys do (right
    arrow, down arrow), without a round trip per key."""
    fields.focus()
    fields.action_cursor_to(0)
    for _ in range(40):
        before = fields.cursor_node_data
        fields.action_expand()
        fields.action_cursor(1)
        if fields.cursor_node_data is before:
            break
    await pilot.pause()


async def _read_through(pilot: Pilot[Any], app: ReviewApp, fields: FieldTree) -> list[str]:
    """Every painted line of the field view, scrolling a screenful at a time."""
    seen: list[str] = []
    y = 0
    while True:
        fields.scroll_to(y=y, animate=False, immediate=True)
        await pilot.pause()
        seen.extend(painted(app, fields))
        if y >= fields.max_scroll_y:
            return seen
        y = min(y + max(fields.scrollable_content_region.height - 1, 1), fields.max_scroll_y)


def _shows(fields: FieldTree, entry: Entry) -> Callable[[], bool]:
    return lambda: entry.report is not None and fields.report is entry.report


def _wider_than(fields: FieldTree, width: int) -> Callable[[], bool]:
    return lambda: fields.region.width >= width


async def _show(pilot: Pilot[Any], app: ReviewApp, *runs: str) -> None:
    """Choose each run's handoff on the list in turn, waiting until the view has it."""
    fields = app.screen.query_one(FieldTree)
    for run in runs:
        key = next(k for k in app.review.entries if k[0].name == run)
        app.review.jump_to(key)
        await settle(pilot, _shows(fields, app.review.entries[key]))
        await pilot.pause()


def _missing(seen: list[str], words: list[str]) -> list[str]:
    tokens = {token.strip(_PUNCTUATION) for line in seen for token in line.split()}
    return [word for word in words if word not in tokens]


async def test_every_word_is_painted_whole_at_every_width(root: Path, registry: Registry) -> None:
    payload, top, inside, marker = _payload()
    put(root, "job-1", payload, phase="essay", schema="essay/v1")
    put(root, "job-0", {"title": "short"}, phase="note", schema="note/v1")
    app = make_app(root, {**registry, "essay/v1": Essay})
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot, lambda: placed(app))
        fields = app.screen.query_one(FieldTree)
        # A short handoff (its fields need no scrollbar) is shown before the long one,
        # which is read as it first appears, then with every field expanded.
        await _show(pilot, app, "job-0", "job-1")
        seen = await _read_through(pilot, app, fields)
        missing = _missing(seen, top)
        assert not missing, f"as first shown: {len(missing)} words not whole: {missing[:5]}"
        await _expand_all(pilot, fields)
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            if fields.region.width == 0:  # one pane at a time: open the handoff
                app.screen.query_one("#list").focus()
                await pilot.press("enter")
                await settle(pilot, lambda: fields.region.width > 0)
            await settle(pilot, _wider_than(fields, size[0] // 3))
            seen = await _read_through(pilot, app, fields)
            missing = _missing(seen, top + inside)
            assert not missing, f"at {size}: {len(missing)} words not whole: {missing[:5]}"
            assert any(marker in line for line in seen), f"at {size}: the cut value says so"
            if size == PHONE:
                # Back on the list, the short handoff then the long one are chosen while
                # the fields are hidden; Enter shows the long one wrapped to the phone.
                await pilot.press("escape")
                assert fields.region.width == 0, "Escape gives the list the screen back"
                await _show(pilot, app, "job-0", "job-1")
                await pilot.press("enter")
                await settle(pilot, lambda: fields.region.width > 0)
                missing = _missing(await _read_through(pilot, app, fields), top)
                assert not missing, f"reopened at {size}: {missing[:5]}"
                await _expand_all(pilot, fields)
