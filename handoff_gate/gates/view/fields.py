"""The field-by-field view of a report, one level at a time: a payload can hold a
hundred thousand fields, a reviewer looks at a screenful. Contract fields come first,
including those that never arrived; keys the contract does not name follow.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from handoff_gate.gates.contracts.shapes import (
    FieldPlan,
    ModelPlan,
    Shape,
    default_of,
    pick,
    plan_of,
)
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.fieldpaths import child, join, split
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import FieldRow, FieldState, NamedField, Report

_STATE = {
    Code.EMPTY_FIELD: FieldState.EMPTY,
    Code.DEFAULTED_FIELD: FieldState.DEFAULTED,
    Code.MISSING_FIELD: FieldState.MISSING,
    Code.INVALID_FIELD: FieldState.INVALID,
    Code.CROSS_FIELD: FieldState.INVALID,
    Code.APPEND_ONLY: FieldState.INVALID,
    Code.NOT_JSON: FieldState.INVALID,
    Code.UNKNOWN_KEY: FieldState.DROPPED,
    Code.UNNAMED_KEY: FieldState.UNNAMED,
    Code.SECRET: FieldState.SECRET,
    Code.UNSAFE_TEXT: FieldState.UNSAFE,
}
_ORDER = tuple(FieldState)


@dataclass(frozen=True, slots=True)
class _Index:
    """A report's findings by path, and how many block/warn findings lie below each path."""

    at: dict[str, list[Finding]]
    below: dict[str, list[int]]


_INDEXES: dict[int, _Index] = {}


def _index(report: Report) -> _Index:
    """Built once per report object and dropped with it."""
    key = id(report)
    index = _INDEXES.get(key)
    if index is None:
        index = _Index({}, {})
        for f in report.findings:
            index.at.setdefault(f.path, []).append(f)
            steps = split(f.path) or []
            ancestor = ""
            for step in steps[:-1]:
                ancestor = join(ancestor, step)
                counts = index.below.setdefault(ancestor, [0, 0])
                counts[f.severity is not Severity.BLOCK] += 1
        _INDEXES[key] = index
        weakref.finalize(report, _INDEXES.pop, key, None)
    return index


def field_rows(
    report: Report, parent: str = "", *, start: int = 0, limit: int | None = None
) -> list[FieldRow]:
    """The rows directly under ``parent`` (``""``: the payload); ``start``/``limit``
    window a very long level so a view can page through it."""
    steps = split(parent)
    if steps is None:
        return []
    node = report.payload
    root = Shape("any") if report.contract is None else Shape("model", model=report.contract)
    shape = pick(root, node)
    for step in steps:
        found, node = child(node, step)
        if not found:
            return []
        shape = pick(_child_shape(shape, step), node)
    end = None if limit is None else max(start, 0) + max(limit, 0)
    if report.layout is not None:
        rows = _schema_rows(report, report.layout, parent, node)
    else:
        rows = _rows(report, parent, node, shape)
    return list(islice(rows, max(start, 0), end))


def _child_shape(shape: Shape, step: str | int) -> Shape:
    if shape.kind == "model" and shape.model is not None and isinstance(step, str):
        plan = plan_of(shape.model)
        f = plan.by_key.get(step)
        if f is not None:
            return f.shape
        return plan.extra if plan.open else Shape("any")
    if shape.kind in ("list", "dict") and shape.item is not None:
        return shape.item
    return Shape("any")


def _rows(report: Report, parent: str, node: Any, shape: Shape) -> Iterator[FieldRow]:
    """A generator, so a window over a long level builds only what it shows."""
    index = _index(report)
    if isinstance(node, list):
        item = _child_shape(shape, 0)
        for i, v in enumerate(node):
            yield _row(index, join(parent, i), f"[{i}]", v, item)
        return
    if not isinstance(node, dict):
        return
    if shape.kind != "model" or shape.model is None:
        for k, v in node.items():
            yield _row(index, join(parent, k), k, v, _child_shape(shape, k))
        return
    plan = plan_of(shape.model)
    for f in plan.fields:
        yield _contract_row(index, parent, node, f)
    for k, v in node.items():
        if k not in plan.keys:
            extra = plan.extra if plan.open else Shape("any")
            yield _row(index, join(parent, k), k, v, extra, dropped=not plan.open)


def _schema_rows(
    report: Report, layout: Mapping[str, tuple[NamedField, ...]], parent: str, node: Any
) -> Iterator[FieldRow]:
    """The fields the schema names here first, then the other keys, then required keys
    that never came."""
    index = _index(report)
    if isinstance(node, list):
        for i, v in enumerate(node):
            path = join(parent, i)
            yield _finish(index, path, f"[{i}]", v, None, _schema_count(layout, path, v))
        return
    if not isinstance(node, dict):
        return
    named = layout.get(parent, ())
    for f in named:
        path = join(parent, f.key)
        if f.key in node:
            value = node[f.key]
            count = _schema_count(layout, path, value)
            yield _finish(index, path, f.key, value, None, count, f.description)
        elif f.required:
            yield _finish(index, path, f.key, None, FieldState.MISSING, 0, f.description)
        elif f.default is not ABSENT:
            yield _finish(index, path, f.key, f.default, FieldState.DEFAULTED, 0, f.description)
        else:
            yield _finish(index, path, f.key, None, None, 0, f.description, OPTIONAL_ABSENT)
    keys = {f.key for f in named}
    for k, v in node.items():
        if k not in keys:
            path = join(parent, k)
            yield _finish(index, path, k, v, None, _schema_count(layout, path, v))
    for path, found in index.at.items():
        steps = split(path)
        if not steps or join(parent, steps[-1]) != path or steps[-1] in node:
            continue
        if steps[-1] not in keys and any(f.code is Code.MISSING_FIELD for f in found):
            yield _finish(index, path, str(steps[-1]), None, FieldState.MISSING, 0)


def _schema_count(layout: Mapping[str, tuple[NamedField, ...]], path: str, value: Any) -> int:
    if isinstance(value, list):
        return len(value)
    if not isinstance(value, dict):
        return 0
    return len(value.keys() | {f.key for f in layout.get(path, ())})


OPTIONAL_ABSENT = "absent; optional, so nothing is delivered for it"


def _contract_row(index: _Index, parent: str, node: dict[str, Any], f: FieldPlan) -> FieldRow:
    about = f.info.description or ""
    key = next((k for k in f.keys if k in node), None)
    if key is not None:
        return _row(index, join(parent, key), key, node[key], f.shape, description=about)
    path = join(parent, f.keys[0])
    if f.required:
        return _finish(index, path, f.keys[0], None, FieldState.MISSING, 0, about)
    if f.optional:
        return _finish(index, path, f.keys[0], None, None, 0, about, OPTIONAL_ABSENT)
    default = default_of(f.info)
    value = None if default is ABSENT else default
    return _finish(index, path, f.keys[0], value, FieldState.DEFAULTED, 0, about)


def _row(
    index: _Index,
    path: str,
    key: str,
    value: Any,
    shape: Shape,
    *,
    dropped: bool = False,
    description: str = "",
) -> FieldRow:
    count = _child_count(value, pick(shape, value))
    implied = FieldState.DROPPED if dropped else None
    return _finish(index, path, key, value, implied, count, description)


def _finish(
    index: _Index,
    path: str,
    key: str,
    value: Any,
    implied: FieldState | None,
    count: int,
    description: str = "",
    note: str = "",
) -> FieldRow:
    found = index.at.get(path, ())
    states = {_STATE[f.code] for f in found if f.code in _STATE}
    if implied is not None:
        states.add(implied)
    ordered = tuple(s for s in _ORDER if s in states) or (FieldState.OK,)
    messages = list(dict.fromkeys(f.message for f in found))
    if note:
        messages.insert(0, note)
    blocking, warnings = index.below.get(path) or (0, 0)
    if blocking or warnings:  # points a reviewer at a collapsed row with problems below
        counts = ((blocking, "blocking"), (warnings, "warning"))
        messages.append("inside: " + ", ".join(f"{n} {what}" for n, what in counts if n))
    message = "; ".join(messages)
    return FieldRow(
        path,
        key,
        value,
        ordered,
        message=message,
        child_count=count,
        blocking_inside=blocking,
        warnings_inside=warnings,
        description=description,
    )


def _child_count(value: Any, shape: Shape) -> int:
    """Absent contract fields included."""
    if isinstance(value, list):
        return len(value)
    if not isinstance(value, dict):
        return 0
    if shape.kind == "model" and shape.model is not None:
        plan: ModelPlan = plan_of(shape.model)
        extra = sum(1 for k in value if k not in plan.keys)
        return len(plan.fields) + extra
    return len(value)
