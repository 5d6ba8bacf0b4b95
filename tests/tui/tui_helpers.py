"""Helpers for the TUI tests: building run directories with the real gate API, driving the app.

Times, reviewer names and directory names are fixed so that screens are byte-for-byte
repeatable (snapshots compare them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from textual.app import App
from textual.notifications import Notification
from textual.pilot import Pilot
from textual.widget import Widget

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.trust.policy import Policy
from handoff_gate.gates.trust.signing_key import SigningKey
from handoff_gate.schemas.planning import Plan
from handoff_gate.tui.model import Entry, ReviewOptions, Show
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.widgets.handoff_list import HandoffList

FIXED_TIME = "2026-01-15T09:30:00.000Z"
SIZE = (120, 35)
EXAMPLES = Path(__file__).parents[2] / "schemas" / "examples"
PLAN: dict[str, Any] = json.loads((EXAMPLES / "plan_v1.json").read_text())


class Note(BaseModel):
    """A lenient user contract: defaults everywhere, so absent fields show as defaulted."""

    title: str = "untitled"
    body: str = ""
    tags: list[str] = []
    owner: str = "nobody"


class Trap(BaseModel):
    """A user contract whose validation message itself looks like markup."""

    label: str

    @field_validator("label")
    @classmethod
    def _no_trap(cls, value: str) -> str:
        if value.startswith("trap"):
            raise ValueError("[@click=app.quit]bad[/] label [bold]x[/]")
        return value


def put(
    root: Path,
    run: str,
    payload: Any,
    *,
    phase: str = "plan",
    schema: str = "plan/v1",
    **producer: Any,
) -> str:
    """Submit a handoff (bytes as given, anything else as JSON) and return its id."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload, indent=2).encode()
    ref = submit(
        root / run,
        data,
        phase=phase,
        schema_id=schema,
        from_role="planner",
        to_role="designer",
        allow_unknown_schema=True,
        **producer,
    )
    return ref.id


def decide_as(root: Path, run: str, handoff_id: str, action: str, registry: Any, **kw: Any) -> None:
    decide(root / run, handoff_id, action, reviewer="alice", registry=registry, **kw)


def review_app(
    root: Path | None,
    registry: Registry,
    *,
    reviewer: str | None = None,
    key: SigningKey | None = None,
    policy: Policy | None = None,
    store: RunStore | None = None,
    show: str = "pending",
    poll: bool = False,
    quiet: bool = False,
    read_only: bool = False,
) -> ReviewApp:
    """The app over a loaded registry, as a script builds it: a Gate over ``root`` (or
    ``store``), the environment's configuration left out; its core made by the app's
    core worker, the header naming who decides (``Gate.deciding_as``)."""
    where = root.absolute() if root is not None else store
    setup = assemble(where, contracts=registry, policy=policy, key=key, env={})
    options = ReviewOptions(
        reviewer=reviewer, show=Show(show), poll=poll, quiet=quiet, read_only=read_only
    )
    return ReviewApp(Gate(setup=setup), options)


def make_app(
    root: Path, registry: Registry, show: str = "open", *, read_only: bool = False
) -> ReviewApp:
    return review_app(root, registry, reviewer="alice", show=show, quiet=True, read_only=read_only)


async def settle(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app work until ``condition`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


def cursor_entry(app: ReviewApp) -> Entry:
    """The handoff under the list's cursor; the test fails if the cursor is on none."""
    entry = app.review.current_entry()
    assert entry is not None, "the cursor is on no handoff"
    return entry


def all_inspected(app: ReviewApp) -> bool:
    return bool(app.review.entries) and all(
        e.state is not None for e in app.review.entries.values()
    )


def placed(app: ReviewApp) -> bool:
    """Every handoff inspected and the cursor put where it starts (``cursor.start_target``)."""
    return all_inspected(app) and not app.query_one(HandoffList).follow_top


def screen_text(app: App[Any]) -> str:
    """What the terminal would show for the top screen, as plain text.

    Textual has no public plain-text rendering of a screen (``export_screenshot`` gives
    SVG); this is the one place the tests read its compositor."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def painted(app: App[Any], widget: Widget) -> list[str]:
    """The text the compositor paints inside ``widget``'s region, a line per row
    (scrollbars and anything drawn over the widget included)."""
    strips = app.screen._compositor.render_strips()
    region = widget.region
    return [
        "".join(segment.text for segment in strip.crop(region.x, region.right))
        for strip in strips[region.y : region.bottom]
    ]


def list_rows(app: App[Any]) -> list[str]:
    """The handoff list's rows as painted (not the detail beside them)."""
    return painted(app, app.screen.query_one(HandoffList))


def raised(app: App[Any]) -> list[Notification]:
    """The notifications currently raised, oldest first.

    Textual has no public read access to them (``App.notify`` adds, ``clear_notifications``
    clears, the toasts only draw them); this is the one place the tests read ``App``'s
    private list, so a Textual upgrade that renames it breaks this helper only."""
    return list(app._notifications)


def notices(app: App[Any]) -> str:
    """The text of the notifications currently raised (toasts are drawn on their own layer)."""
    return "\n".join(f"{n.title}: {n.message}" for n in raised(app))


class LenientPlan(Plan):
    """plan/v1 saying nothing of other keys, so one that arrives is dropped and shown
    (the built-in closes the object, so there it blocks)."""

    model_config = ConfigDict(extra="ignore")


def lenient(registry: Registry) -> Registry:
    """``registry`` with plan/v1 as :class:`LenientPlan`."""
    return {**registry, "plan/v1": LenientPlan}
