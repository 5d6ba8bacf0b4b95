"""The field-by-field view: contract order, every state, one level at a time."""

from __future__ import annotations

import json

from inspect_contracts import REGISTRY, VALID_STRICT, dumps, strict_with
from pydantic import BaseModel, Field

from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.report import FieldRow, FieldState


def rows_of(data: bytes, schema: str | None = "strict/v1", parent: str = "") -> list[FieldRow]:
    return field_rows(inspect(data, schema, REGISTRY), parent)


def test_contract_order_first_then_dropped_keys() -> None:
    payload = {"zzz": 1, "notes": [], "title": "t", "kind": "fix", "aaa": 2}
    rows = rows_of(dumps(payload))
    assert [r.key for r in rows] == ["title", "kind", "steps", "notes", "zzz", "aaa"]
    states = {r.key: r.states for r in rows}
    assert states["title"] == (FieldState.OK,)
    assert states["steps"] == (FieldState.MISSING,)
    assert states["notes"] == (FieldState.EMPTY,)
    assert states["zzz"] == (FieldState.DROPPED,)


def test_defaulted_rows_show_the_default_and_say_so() -> None:
    rows = {r.key: r for r in rows_of(b'{"title": "t"}', "lenient/v1")}
    assert rows["tags"].states == (FieldState.DEFAULTED,)
    assert rows["tags"].value == []
    assert "default" in rows["tags"].message
    assert rows["owner"].value is None
    assert rows["title"].states == (FieldState.OK,)


def test_nested_levels_expand_lazily_with_paths_and_counts() -> None:
    steps = [{"name": "a", "owner": "x"}, {"name": "", "extra": 1}]
    report = inspect(strict_with(steps=steps), "strict/v1", REGISTRY)
    top = {r.key: r for r in field_rows(report)}
    assert top["steps"].child_count == 2
    assert top["steps"].states == (FieldState.OK,)
    assert top["steps"].message == "inside: 3 blocking"  # the closed model refuses "extra"
    items = field_rows(report, "steps")
    assert [(r.path, r.key, r.child_count) for r in items] == [
        ("steps[0]", "[0]", 2),
        ("steps[1]", "[1]", 3),
    ]
    second = {r.key: r for r in field_rows(report, "steps[1]")}
    assert second["name"].path == "steps[1].name"
    assert FieldState.EMPTY in second["name"].states
    assert second["owner"].states == (FieldState.MISSING,)
    assert second["extra"].states == (FieldState.DROPPED,)
    assert field_rows(report, "steps[1].name") == []
    assert field_rows(report, "steps[7]") == []
    assert field_rows(report, "no such path[") == []


def test_invalid_rows_carry_the_validation_message() -> None:
    rows = {r.key: r for r in rows_of(strict_with(kind="refactor"))}
    assert rows["kind"].states == (FieldState.INVALID,)
    assert "'fix'" in rows["kind"].message


def test_secret_and_unsafe_rows() -> None:
    report = inspect(
        strict_with(notes=["card 4111 1111 1111 1111", "\x1b[2J"]), "strict/v1", REGISTRY
    )
    notes = field_rows(report, "notes")
    assert notes[0].states == (FieldState.SECRET,)
    assert "4111 1111 1111 1111" not in json.dumps(notes[0].value)
    assert notes[1].states == (FieldState.UNSAFE,)
    assert "⟨ESC⟩" in notes[1].message


def test_odd_keys_round_trip_through_their_paths() -> None:
    report = inspect(dumps({"start": 1, "end": 2, "a.b": {"x y": [1]}}), "window/v1", REGISTRY)
    dropped = field_rows(report)[-1]
    assert dropped.path == '["a.b"]'
    inner = field_rows(report, dropped.path)
    assert inner[0].path == '["a.b"]["x y"]'
    assert field_rows(report, inner[0].path)[0].value == 1


def test_without_a_contract_every_key_is_a_plain_row() -> None:
    rows = rows_of(dumps({"b": 1, "a": {"c": 2}}), "unknown/v1")
    assert [(r.key, r.states, r.child_count) for r in rows] == [
        ("b", (FieldState.OK,), 0),
        ("a", (FieldState.OK,), 1),
    ]


def test_a_truncated_payload_still_shows_what_arrived() -> None:
    text = dumps(VALID_STRICT)
    rows = {r.key: r for r in rows_of(text[: text.index(b'"steps"') + 30])}
    assert rows["title"].value == VALID_STRICT["title"]
    assert rows["notes"].states == (FieldState.MISSING,)


def test_a_window_over_a_long_level() -> None:
    payload = {"title": "t", "kind": "fix", "steps": [], "notes": [f"n{i}" for i in range(100_000)]}
    report = inspect(dumps(payload), "strict/v1", REGISTRY)
    window = field_rows(report, "notes", start=50_000, limit=3)
    assert [(r.path, r.value) for r in window] == [
        ("notes[50000]", "n50000"),
        ("notes[50001]", "n50001"),
        ("notes[50002]", "n50002"),
    ]
    assert len(field_rows(report, "notes")) == 100_000


class _DerivedDefault(BaseModel):
    """A default that needs the other fields: the view cannot know it before validation."""

    title: str
    slug: str = Field(default_factory=lambda data: data["title"].lower())


def test_a_default_that_needs_other_fields_shows_as_no_value() -> None:
    """``default_of``'s "cannot know" and the view's must be the one ``ABSENT`` sentinel,
    or the sentinel object itself is shown as the field's value."""
    report = inspect(b'{"title": "T"}', "derived/v1", {"derived/v1": _DerivedDefault})
    rows = {r.key: r for r in field_rows(report)}
    assert rows["slug"].states == (FieldState.DEFAULTED,)
    assert rows["slug"].value is None
    messages = {f.path: f.message for f in report.findings}
    assert messages["slug"] == "absent; the contract computed a default"
