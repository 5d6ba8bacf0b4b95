"""Check a parsed payload against a JSON Schema contract, and say what crosses.

Validity is the validator's answer (``jsonschema-rs``); this module turns it into the
gate's findings at exact JSON paths and decides, from the schema's plans
(``schema_plan``), which keys cross: the rules are docs/protocol.md's. A tool call's
unnamed key is shown and, if approved, crosses as sent: never quietly left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import pydantic_core

from handoff_gate.gates.contracts.json_schema import JsonSchemaContract
from handoff_gate.gates.inspect.schema_cost import listing_is_bounded
from handoff_gate.gates.inspect.schema_plan import (
    FREE,
    ROOT,
    ArrayPlan,
    NoPlan,
    ObjectPlan,
    OverBudget,
    Planner,
    named_field,
    planner_for,
)
from handoff_gate.gates.inspect.validate import (
    CLOSED,
    DROPPED,
    EMPTY_ACCEPTED,
    NO_FIELDS,
    Outcome,
    empty_findings,
    is_empty,
    merged_findings,
    without,
)
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.fieldpaths import Trail, child, path_of, split, steps_of
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import NamedField
from handoff_gate.gates.vocab.safe_text import elide, preview

#: A validator's message quotes the value it judged; a reviewer needs the gist.
MESSAGE_LIMIT = 300


def check_json_schema(
    payload: dict[str, Any],
    contract: JsonSchemaContract,
    *,
    tool_call: bool = False,
    empties: bool = True,
) -> Outcome:
    """Every finding for ``payload`` under ``contract``, and what may cross if valid.

    ``tool_call``: arguments cross as sent (no key dropped, no default filled in), and
    ``{}`` may satisfy a schema requiring nothing. ``empties=False`` (the text holds no
    empty value) lets a contract closed all the way down skip the walk.
    """
    validator = contract.validator
    if not validator.is_valid(payload):  # most are valid: nothing to collect then
        return _rejected(payload, contract, tool_call)
    try:
        walked = _planned(payload, contract, empties, tool_call)
    except NoPlan as exc:
        return Outcome([_cannot_tell(exc)], layout=_layout_for_display(payload, contract))
    findings, drops, layout, unmet, defaults = walked
    if not tool_call and unmet:
        findings.insert(0, NO_FIELDS)
    if tool_call:
        return Outcome(findings, delivered=payload, layout=layout)
    delivered, dropped = _delivery(payload, drops, validator)
    if len(dropped) < len(drops):
        gone = {path_of([*steps_of(t), k]) for t, k in dropped}
        findings = [
            f
            if f.code is not Code.UNKNOWN_KEY or f.path in gone
            else replace(f, code=Code.UNNAMED_KEY, message=_KEPT)
            for f in findings
        ]
    if defaults:
        delivered = _with_defaults(delivered, layout, validator)
    if delivered is not payload and not validator.is_valid(delivered):
        return Outcome([*findings, _UNDELIVERABLE], layout=layout)
    return Outcome(findings, delivered=delivered, layout=layout)


def _rejected(payload: dict[str, Any], contract: JsonSchemaContract, tool_call: bool) -> Outcome:
    """Its errors at their paths, then what the rows show; ``over_budget`` without the
    list where listing could take more than the budget (``schema_cost``)."""
    shown = _layout_for_display(payload, contract)
    if not listing_is_bounded(contract, payload):
        return Outcome([_UNLISTED], layout=shown)
    errors = list(contract.validator.iter_errors(payload))
    findings = sorted(_error_findings(errors, payload), key=_reading_order(payload))
    if not findings:  # rejected, yet no error listed: never read as valid
        findings.append(_REJECTED)
    findings.extend(empty_findings(_empty_named(payload, shown), findings))
    findings.extend(_defaulted(payload, shown))
    named = {f.key for f in shown.get("", ())}
    if not tool_call and named and not named.intersection(payload):
        findings.insert(0, NO_FIELDS)
    return Outcome(findings, layout=shown)


_UNLISTED = Finding(
    Code.OVER_BUDGET,
    "",
    Severity.BLOCK,
    "not valid against the contract; listing where would take the validator more "
    "evaluations than the gate allows (the schema's branches nest), so it is not listed",
)
_REJECTED = Finding(Code.INVALID_FIELD, "", Severity.BLOCK, "the contract rejects the payload")
_KEPT = "not named by the contract, but the delivery is not valid without it: delivered as sent"
_UNDELIVERABLE = Finding(
    Code.UNDELIVERABLE,
    "",
    Severity.BLOCK,
    "what would be delivered is not valid against the contract; nothing is delivered",
)


def _cannot_tell(exc: NoPlan) -> Finding:
    code = Code.OVER_BUDGET if isinstance(exc, OverBudget) else Code.UNDELIVERABLE
    reason = elide(str(exc), MESSAGE_LIMIT)
    return Finding(
        code,
        "",
        Severity.BLOCK,
        f"the gate cannot tell which keys the contract admits ({reason}); blocked rather "
        "than delivered with keys left out",
    )


#: What walking a valid payload gives: findings, drops, the named fields by object path,
#: whether the root's fields were all left out, and whether any field has a default.
_Walked = tuple[
    list[Finding], list[tuple[Trail, str]], Mapping[str, tuple[NamedField, ...]], bool, bool
]


def _planned(
    payload: dict[str, Any],
    contract: JsonSchemaContract,
    empties: bool = True,
    tool_call: bool = False,
) -> _Walked:
    """Which keys cross, in one pass over the payload's containers (:class:`NoPlan`
    where the gate cannot tell). Under a sealed contract a payload with no empty value
    has nothing to find: only the layout remains, walked if it is ever read."""
    planner = planner_for(contract)
    if not empties and planner.sealed():
        root = planner.object_plan(ROOT)
        unmet = bool(root.fields) and root.keys.keys().isdisjoint(payload)
        return (
            [],
            [],
            _Layout(lambda: _layout_later(payload, planner, contract)),
            unmet,
            False,
        )
    return _walk_planned(payload, planner, contract, tool_call)


def _layout_later(
    payload: dict[str, Any], planner: Planner, contract: JsonSchemaContract
) -> Mapping[str, tuple[NamedField, ...]]:
    try:
        return _walk_planned(payload, planner, contract)[2]
    except NoPlan:  # not expected once sealed: the rows only label the payload
        return _layout_for_display(payload, contract)


def _walk_planned(
    payload: dict[str, Any],
    planner: Planner,
    contract: JsonSchemaContract,
    tool_call: bool = False,
) -> _Walked:
    findings: list[Finding] = []
    drops: list[tuple[Trail, str]] = []
    placed: list[tuple[Trail, tuple[NamedField, ...]]] = []
    defaults = False
    root = planner.object_plan(ROOT)
    unmet = bool(root.fields) and root.keys.keys().isdisjoint(payload)
    stack: list[tuple[Any, Any, Trail]] = [(payload, root, None)]
    while stack:
        node, plan, trail = stack.pop()
        if type(node) is list:
            _push_items(node, plan, trail, planner, stack)
            continue
        below: list[tuple[Any, Any, Trail]] = []
        keys, formats = plan.keys, plan.formats
        for key, value in node.items():
            kp = keys.get(key)
            if kp is None:
                kp = planner.unnamed(plan, key) if plan.by_key else plan.other
            if kp is None:
                if tool_call:
                    findings.append(_at(Code.UNNAMED_KEY, trail, key, _AS_SENT))
                    continue
                findings.append(_at(Code.UNKNOWN_KEY, trail, key, DROPPED))
                drops.append((trail, key))
                continue
            if kp.free and not kp.named:
                findings.append(_at(Code.OPEN_KEY, trail, key, _OPEN))
            kind = type(value)
            if kind is str:
                if not value or value.isspace():
                    findings.append(_at(Code.EMPTY_FIELD, trail, key, EMPTY_ACCEPTED))
            elif value is None or ((kind is dict or kind is list) and not value):
                findings.append(_at(Code.EMPTY_FIELD, trail, key, EMPTY_ACCEPTED))
            if formats and kp.named and key in formats:
                findings.append(_format_finding(path_of([*steps_of(trail), key]), formats[key]))
            if kp.free:
                continue
            if kind is dict:
                below.append((value, planner.object_plan(kp.pointers), (trail, key)))
            elif kind is list:
                below.append((value, planner.array_plan(kp.pointers), (trail, key)))
        shown = plan.fields
        if plan.branch_fields:
            shown = (*shown, *(f for f in plan.branch_fields if f.key in node))
        if shown:
            placed.append((trail, shown))
            if plan.defaults:
                defaults = True
                for f in plan.fields:
                    if f.default is not ABSENT and f.key not in node:
                        path = path_of([*steps_of(trail), f.key])
                        findings.append(_defaulted_finding(path, f.default, tool_call))
        if below:
            stack.extend(reversed(below))
    loose = _loose_formats(contract)
    if loose:
        findings.append(_format_finding("", loose[0]))
    layout = _Layout(lambda: {path_of(steps_of(t)): fields for t, fields in placed})
    return findings, drops, layout, unmet, defaults


_AS_SENT = "not named by the contract; if approved, the call runs with it as sent"


def _push_items(
    items: list[Any], plan: ArrayPlan, trail: Trail, planner: Planner, stack: list[Any]
) -> None:
    """Last first, so the first is walked first; items past a tuple's prefix share one
    plan, looked up once."""
    shared: dict[type, ObjectPlan | ArrayPlan] = {}
    for i in range(len(items) - 1, -1, -1):
        value = items[i]
        kind = type(value)
        if (kind is not dict and kind is not list) or plan.at(i) is FREE:
            continue  # a scalar, or an item its schema leaves free-form: taken whole
        found: ObjectPlan | ArrayPlan | None
        if i < len(plan.prefix):
            pointers = plan.prefix[i]
            found = planner.object_plan(pointers) if kind is dict else planner.array_plan(pointers)
        else:
            found = shared.get(kind)
            if found is None:
                rest = plan.rest
                found = planner.object_plan(rest) if kind is dict else planner.array_plan(rest)
                shared[kind] = found
        stack.append((value, found, (trail, i)))


def _loose_formats(contract: JsonSchemaContract) -> list[str]:
    """Unchecked formats not on a named property, which cannot be tied to one field."""
    found: list[str] | None = contract.memo.get("#loose")
    if found is None:
        found = contract.memo["#loose"] = [
            fmt
            for pointer, fmt in contract.unknown_formats.items()
            if not pointer.rpartition("/")[0].endswith("/properties")
        ]
    return found


class _Layout(Mapping[str, tuple[NamedField, ...]]):
    """The named fields by object path, spelled out on first read: most inspections
    are never displayed field by field, and a path costs more than the walk."""

    def __init__(self, make: Callable[[], Mapping[str, tuple[NamedField, ...]]]) -> None:
        self._make = make
        self._made: Mapping[str, tuple[NamedField, ...]] | None = None

    def _paths(self) -> Mapping[str, tuple[NamedField, ...]]:
        if self._made is None:
            self._made = self._make()
        return self._made

    def __getitem__(self, path: str) -> tuple[NamedField, ...]:
        return self._paths()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    def __len__(self) -> int:
        return len(self._paths())


def _at(code: Code, trail: Trail, key: str, message: str) -> Finding:
    return Finding(code, path_of([*steps_of(trail), key]), Severity.WARN, message)


_OPEN = "not named by the contract, which admits any key here: delivered as sent"


def _format_finding(path: str, fmt: str) -> Finding:
    message = f"format {elide(fmt, 60)!r} not checked: the validator does not know it"
    return Finding(Code.UNCHECKED_FORMAT, path, Severity.WARN, message)


def _delivery(
    payload: dict[str, Any], drops: list[tuple[Trail, str]], validator: Any
) -> tuple[dict[str, Any], list[tuple[Trail, str]]]:
    """The payload minus the drops that stand: a key whose dropping makes the delivery
    invalid (required, or the object pinned by ``enum``) was constrained after all."""
    while drops:
        delivered = without(payload, drops)
        errors = list(validator.iter_errors(delivered))
        if not errors:
            return delivered, drops
        at = {tuple(e.instance_path) for e in errors}
        back = [d for d in drops if any(_under(steps_of(d[0]), p) for p in at)] or drops
        drops = [d for d in drops if d not in back]
    return payload, []


def _with_defaults(
    delivered: dict[str, Any], layout: Mapping[str, tuple[NamedField, ...]], validator: Any
) -> dict[str, Any]:
    """Absent fields' defaults filled in, as a class contract delivers them; JSON Schema
    does not check defaults, so if one would make the delivery invalid, none is."""
    wanted = [
        (path, f) for path, fields in layout.items() for f in fields if f.default is not ABSENT
    ]
    if not wanted:
        return delivered
    filled: dict[str, Any] = pydantic_core.from_json(pydantic_core.to_json(delivered))
    changed = False
    for path, f in wanted:
        found, node = _value_at(filled, split(path) or [])
        if found and isinstance(node, dict) and f.key not in node:
            node[f.key] = pydantic_core.from_json(pydantic_core.to_json(f.default))
            changed = True
    return filled if changed and validator.is_valid(filled) else delivered


def _under(location: list[str | int], error_at: tuple[Any, ...]) -> bool:
    return tuple(location) == error_at[: len(location)]


def _error_findings(errors: list[Any], payload: Any) -> list[Finding]:
    merged: dict[tuple[Code, str], list[str]] = {}
    for error in errors:
        steps = list(error.instance_path)
        kind = error.kind
        name = type(kind).__name__
        if name == "Required":
            path = path_of([*steps, str(kind.property)])
            merged.setdefault((Code.MISSING_FIELD, path), []).append("required but missing")
        elif name in ("AdditionalProperties", "UnevaluatedProperties"):
            for key in kind.unexpected:
                path = path_of([*steps, str(key)])
                merged.setdefault((Code.UNKNOWN_KEY, path), []).append(CLOSED)
        else:
            found, value = _value_at(payload, steps)
            code = Code.EMPTY_FIELD if found and steps and is_empty(value) else Code.INVALID_FIELD
            message = elide(str(error.message), MESSAGE_LIMIT)
            merged.setdefault((code, path_of(steps)), []).append(message)
    return merged_findings(merged)


#: How many payload nodes, and subschemas per node, the display layout of a rejected
#: payload looks at: it only labels rows, so it stops rather than grows.
DISPLAY_NODES = 10_000
DISPLAY_SCHEMAS = 64


def _layout_for_display(
    payload: Any, contract: JsonSchemaContract
) -> dict[str, tuple[NamedField, ...]]:
    """The fields named at each object of a rejected payload, for the rows a reviewer
    reads: ``properties`` through local ``$ref`` and ``allOf``. No verdict depends on it."""
    out: dict[str, tuple[NamedField, ...]] = {}
    stack: list[tuple[Any, list[Any], Trail]] = [(payload, [contract.document], None)]
    seen = 0
    while stack and seen < DISPLAY_NODES:
        node, schemas, trail = stack.pop()
        seen += 1
        here = _expanded(schemas, contract)
        if isinstance(node, dict):
            fields: dict[str, NamedField] = {}
            for schema in here:
                properties = schema.get("properties")
                required = schema.get("required")
                required = required if isinstance(required, list) else []
                if isinstance(properties, Mapping):
                    for key, sub in properties.items():
                        fields.setdefault(key, named_field(key, sub, key in required))
            out[path_of(steps_of(trail))] = tuple(fields.values())
            for key, value in node.items():
                below = [_property(schema, key) for schema in here]
                stack.append((value, [b for b in below if b is not None], (trail, key)))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                below = [_item(schema, i) for schema in here]
                stack.append((value, [b for b in below if b is not None], (trail, i)))
    return out


def _expanded(schemas: list[Any], contract: JsonSchemaContract) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    todo = list(schemas)
    while todo and len(out) < DISPLAY_SCHEMAS:
        schema = todo.pop()
        if not isinstance(schema, Mapping):
            continue
        out.append(schema)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            todo.append(contract.subschema(ref[1:]))
        parts = schema.get("allOf")
        if isinstance(parts, list):
            todo.extend(parts)
    return out


def _property(schema: Mapping[str, Any], key: str) -> Any:
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and key in properties:
        return properties[key]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


def _item(schema: Mapping[str, Any], index: int) -> Any:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and index < len(prefix):
        return prefix[index]
    items = schema.get("items")
    return items if isinstance(items, Mapping) else None


def _objects(
    payload: Any, layout: Mapping[str, tuple[NamedField, ...]]
) -> Iterator[tuple[list[Any], dict[str, Any], tuple[NamedField, ...]]]:
    """Each object of the layout the payload holds: its steps, itself, its named fields."""
    for path, fields in layout.items():
        steps = split(path) or []
        found, node = _value_at(payload, steps)
        if found and isinstance(node, dict):
            yield steps, node, fields


def _defaulted(payload: Any, layout: Mapping[str, tuple[NamedField, ...]]) -> Iterator[Finding]:
    for steps, node, fields in _objects(payload, layout):
        for f in fields:
            if f.key not in node and f.default is not ABSENT:
                yield _defaulted_finding(path_of([*steps, f.key]), f.default)


def _defaulted_finding(path: str, default: Any, tool_call: bool = False) -> Finding:
    if tool_call:  # nothing is filled in: the call crosses as sent
        message = f"absent; the tool applies its default: {preview(default, 80)}"
    else:
        message = f"absent; the default was used: {preview(default, 80)}"
    return Finding(Code.DEFAULTED_FIELD, path, Severity.WARN, message)


def _reading_order(payload: Any) -> Any:
    """A missing field's finding goes after everything its parent holds."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    stack: list[tuple[Any, Trail, bool]] = [(payload, None, False)]
    while stack:
        node, trail, leaving = stack.pop()
        path = path_of(steps_of(trail))
        if leaving:
            last[path] = len(first)
            continue
        first[path] = len(first)
        stack.append((node, trail, True))
        pairs: list[tuple[str | int, Any]] = []
        if isinstance(node, dict):
            pairs = list(node.items())
        elif isinstance(node, list):
            pairs = list(enumerate(node))
        stack.extend((v, (trail, k), False) for k, v in reversed(pairs))

    def key(finding: Finding) -> tuple[int, int]:
        if finding.path in first:
            return first[finding.path], 0
        steps = split(finding.path) or []
        for n in range(len(steps) - 1, -1, -1):
            found = last.get(path_of(steps[:n]))
            if found is not None:
                return found, len(steps) - n
        return len(first), 0

    return key


def _empty_named(payload: Any, layout: Mapping[str, tuple[NamedField, ...]]) -> Iterator[str]:
    """The paths of the named fields the payload holds empty."""
    for steps, node, fields in _objects(payload, layout):
        for f in fields:
            if f.key in node and is_empty(node[f.key]):
                yield path_of([*steps, f.key])


def _value_at(payload: Any, steps: list[Any]) -> tuple[bool, Any]:
    node = payload
    for step in steps:
        found, node = child(node, step)
        if not found:
            return False, None
    return True, node
