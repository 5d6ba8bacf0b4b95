"""Check a parsed payload against its class contract, field by field.

Pydantic alone would answer "valid or not" and silently ignore unknown keys or fill
defaults. The gate must also say *how* each field arrived, so before validating it
walks the payload along the contract's shape, drops the keys the contract does not
name, and notes the fields that were absent or empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from pydantic import BaseModel, ValidationError

from handoff_gate.gates.contracts.shapes import (
    ModelPlan,
    Shape,
    default_of,
    is_closed,
    pick,
    plan_of,
)
from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.fieldpaths import Trail, child, path_of, split, steps_of
from handoff_gate.gates.vocab.findings import Code, Finding, Severity
from handoff_gate.gates.vocab.report import NamedField
from handoff_gate.gates.vocab.safe_text import preview

Step = str | int


#: Bytes per structural character above which the tree is small next to its text (a
#: few long strings): looking at each field beats searching the text for empty values.
SPARSE_TEXT = 64

_EMPTY_STRING = re.compile('""')
_NULL = re.compile("null")
_BLANK_STRING = re.compile(r'"(?:\s|\\[nrtbf]|\\u[0-9a-fA-F]{4})+"')
_BLANK_ASCII = re.compile(r'" +"')


def empty_shapes(text: str, data: bytes, structure: bytes) -> tuple[bool, bool]:
    """Which empty values the JSON text can hold: ``(any empty value, blank strings)``.

    The pre-check that spares the contract walk on most payloads: a false "yes" only
    costs a closer look; a false "no" would hide an empty field. In ``structure``
    (:func:`parse.skeleton`) an empty array or object is ``[]`` or ``{}`` whatever
    whitespace it held.
    """
    if len(structure) * SPARSE_TEXT < len(data):
        return True, True
    if b"\\" in data or not data.isascii():
        blanks = _BLANK_STRING.search(text) is not None
    else:
        blanks = _BLANK_ASCII.search(text) is not None
    return (
        blanks
        or b"[]" in structure
        or b"{}" in structure
        or _EMPTY_STRING.search(text) is not None
        or _NULL.search(text) is not None
    ), blanks


def is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


@dataclass
class Walk:
    drops: list[tuple[Trail, str]] = field(default_factory=list)
    #: Of the drops, those a closed model (``extra="forbid"``) refuses: they block.
    refused: set[tuple[Trail, str]] = field(default_factory=set)
    passed: list[tuple[Trail, str]] = field(default_factory=list)
    defaulted: list[tuple[str, Any]] = field(default_factory=list)
    empty: list[tuple[str, Any]] = field(default_factory=list)
    supplied: int = 0


def walk_contract(
    payload: dict[str, Any], model: type[BaseModel], *, empties: bool = True, blanks: bool = True
) -> Walk:
    """Unknown keys, absent and empty fields, depth first in the order a reviewer reads.
    Items of a list of flat models (the bulk of a large payload) that carry exactly the
    contract's keys and nothing empty are passed over inline."""
    out = Walk()
    out.supplied = len(plan_of(model).keys.intersection(payload))
    stack: list[tuple[Any, Shape, Trail]] = [(payload, Shape("model", model), None)]
    while stack:
        value, shape, trail = stack.pop()
        if shape.kind == "union":
            shape = pick(shape, value)
        if shape.kind == "model" and shape.model is not None:
            if isinstance(value, dict):
                _visit_model(value, plan_of(shape.model), trail, out, stack, empties, blanks)
            continue
        item = shape.item
        if item is None:
            continue
        if shape.kind == "list" and isinstance(value, list):
            pairs: Any = enumerate(value)
        elif shape.kind == "dict" and isinstance(value, dict):
            pairs = value.items()
        else:
            continue
        if item.kind == "model" and item.model is not None and not plan_of(item.model).nested:
            plan = plan_of(item.model)
            keys = plan.keys
            for step, child in pairs:
                if not isinstance(child, dict):
                    continue
                if child.keys() == keys:
                    if not empties:
                        continue
                    values = child.values()
                    if not blanks and not (
                        None in values or "" in values or [] in values or {} in values
                    ):
                        continue
                _visit_model(child, plan, (trail, step), out, stack, empties, blanks)
        else:
            stack.extend(reversed([(child, item, (trail, step)) for step, child in pairs]))
    return out


def _visit_model(
    data: dict[str, Any],
    plan: ModelPlan,
    trail: Trail,
    out: Walk,
    stack: list[tuple[Any, Shape, Trail]],
    empties: bool,
    blanks: bool,
) -> None:
    if not data and empties and trail is not None:
        out.empty.append((path_of(steps_of(trail)), data))
    if data.keys() != plan.keys:
        unnamed = [k for k in data if k not in plan.keys]
        if plan.open:  # kept, their values walked if they can hold models
            out.passed.extend((trail, k) for k in unnamed)
            if plan.extra.kind not in ("leaf", "any"):
                stack.extend((data[k], plan.extra, (trail, k)) for k in reversed(unnamed))
        else:
            out.drops.extend((trail, k) for k in unnamed)
            if plan.closed:
                out.refused.update((trail, k) for k in unnamed)
        for f in plan.fields:
            if not (f.required or f.optional) and not any(k in data for k in f.keys):
                path = path_of([*steps_of(trail), f.keys[0]])
                out.defaulted.append((path, default_of(f.info)))
    if empties:
        values = data.values()
        if blanks or None in values or "" in values or [] in values or {} in values:
            for key, value in data.items():
                if key in plan.keys and is_empty(value):
                    out.empty.append((path_of([*steps_of(trail), key]), value))
    for f in reversed(plan.nested):
        for key in f.keys:
            if key in data:
                stack.append((data[key], f.shape, (trail, key)))


def without(payload: dict[str, Any], drops: list[tuple[Trail, str]]) -> dict[str, Any]:
    """Untouched branches are shared with ``payload``."""
    root: dict[str, Any] = dict(payload)
    copied = {id(root)}
    for trail, key in drops:
        node: Any = root
        for step in steps_of(trail):
            child = node[step]
            if id(child) not in copied:
                child = dict(child) if isinstance(child, dict) else list(child)
                copied.add(id(child))
                node[step] = child
            node = child
        del node[key]
    return root


@dataclass
class Outcome:
    findings: list[Finding]
    model: BaseModel | None = None
    delivered: dict[str, Any] | None = None
    layout: Mapping[str, tuple[NamedField, ...]] | None = None


def check_contract(
    payload: dict[str, Any],
    raw: bytes,
    contract: type[BaseModel],
    *,
    previous: Any = ABSENT,
    empties: bool = True,
    blanks: bool = True,
) -> Outcome:
    """``raw``, the exact JSON text of ``payload``, is validated as is when no key was
    dropped: what pydantic does fastest. A closed contract with no empty value to look
    for needs no walk, unless pydantic reports an unknown key."""
    model: BaseModel | None = None
    error: ValidationError | None = None
    if not empties and is_closed(contract):
        try:
            model = contract.model_validate_json(raw)
        except ValidationError as exc:
            if not any(e["type"] == "extra_forbidden" for e in exc.errors(include_url=False)):
                error = exc
        if model is not None or error is not None:
            walk = Walk(supplied=len(plan_of(contract).keys.intersection(payload)))
            return _outcome(contract, payload, walk, model, error, previous)
    walk = walk_contract(payload, contract, empties=empties, blanks=blanks)
    cleaned = without(payload, walk.drops) if walk.drops else payload
    try:
        model = contract.model_validate_json(pydantic_core.to_json(cleaned) if walk.drops else raw)
    except ValidationError as exc:
        error = exc
    return _outcome(contract, cleaned, walk, model, error, previous)


def _outcome(
    contract: type[BaseModel],
    cleaned: dict[str, Any],
    walk: Walk,
    model: BaseModel | None,
    error: ValidationError | None,
    previous: Any,
) -> Outcome:
    findings = [
        Finding(Code.UNKNOWN_KEY, path_of([*steps_of(t), k]), Severity.BLOCK, CLOSED)
        if (t, k) in walk.refused
        else Finding(Code.UNKNOWN_KEY, path_of([*steps_of(t), k]), Severity.WARN, DROPPED)
        for t, k in walk.drops
    ]
    findings.extend(
        Finding(Code.OPEN_KEY, path_of([*steps_of(t), k]), Severity.WARN, _OPEN)
        for t, k in walk.passed
    )
    if walk.supplied == 0 and plan_of(contract).fields:
        findings.append(NO_FIELDS)
    errors = _error_findings(error, cleaned) if error is not None else []
    findings.extend(errors)
    if walk.empty:
        findings.extend(empty_findings((path for path, _ in walk.empty), errors))
    findings.extend(
        Finding(Code.DEFAULTED_FIELD, path, Severity.WARN, _defaulted_message(value))
        for path, value in walk.defaulted
    )
    findings.extend(contract_checks(contract, cleaned, previous))
    # By alias: what is delivered reads back through the same contract (``from``, not
    # ``from_``); for contracts without aliases this is the plain dump.
    delivered = None
    if model is not None and not walk.refused:
        delivered = model.model_dump(mode="json", by_alias=True)
    return Outcome(findings, model, delivered)


_OPEN = "not named by the contract, which is open (additionalProperties): passed through"
DROPPED = "not in the contract; dropped"
CLOSED = "not allowed: the contract closes this object, and the producer sent it anyway"
NO_FIELDS = Finding(
    Code.NO_FIELDS, "", Severity.BLOCK, "not one field of the contract was supplied"
)
EMPTY_ACCEPTED = "present but empty; the contract accepts it"
EMPTY_REJECTED = "empty, and the contract rejects that: required fields inside are missing"


def empty_findings(paths: Iterable[str], errors: list[Finding]) -> list[Finding]:
    """A finding for each empty value at ``paths``. An error at the path itself was
    reported already; one below it (``{}`` where fields are required) means the contract
    rejected the empty value."""
    at = {f.path for f in errors}
    above = enclosing(errors)
    findings = []
    for path in dict.fromkeys(paths):
        if path in at:
            continue
        if path in above:
            findings.append(Finding(Code.EMPTY_FIELD, path, Severity.BLOCK, EMPTY_REJECTED))
        else:
            findings.append(Finding(Code.EMPTY_FIELD, path, Severity.WARN, EMPTY_ACCEPTED))
    return findings


def enclosing(findings: list[Finding]) -> set[str]:
    """The paths of the objects and arrays that hold a finding's path."""
    out: set[str] = set()
    for f in findings:
        steps = split(f.path) or []
        out.update(path_of(steps[:n]) for n in range(1, len(steps)))
    return out


def _defaulted_message(value: Any) -> str:
    if value is ABSENT:
        return "absent; the contract computed a default"
    return f"absent; the default was used: {preview(value, 80)}"


def _error_findings(exc: ValidationError, data: Any) -> list[Finding]:
    merged: dict[tuple[Code, str], list[str]] = {}
    for error in exc.errors(include_url=False, include_input=False):
        loc = error.get("loc", ())
        kind = error.get("type", "")
        if kind == "missing":
            steps, _ = _resolve(data, loc[:-1])
            merged.setdefault((Code.MISSING_FIELD, path_of([*steps, *loc[-1:]])), []).append(
                "required but missing"
            )
            continue
        steps, value = _resolve(data, loc)
        empty = len(steps) == len(loc) and is_empty(value)
        code = Code.EMPTY_FIELD if empty else Code.INVALID_FIELD
        merged.setdefault((code, path_of(steps)), []).append(str(error.get("msg", kind)))
    return merged_findings(merged)


def merged_findings(merged: dict[tuple[Code, str], list[str]]) -> list[Finding]:
    """One blocking finding per path and code, its messages joined once each."""
    findings = []
    for (code, path), messages in merged.items():
        text = "; ".join(dict.fromkeys(messages))
        if code is Code.EMPTY_FIELD:
            text = f"empty, and the contract rejects that: {text}"
        findings.append(Finding(code, path, Severity.BLOCK, text))
    return findings


def _resolve(data: Any, loc: Sequence[Any]) -> tuple[list[Step], Any]:
    """Follow an error location into the data, skipping pydantic's union/type tags."""
    steps: list[Step] = []
    node = data
    for step in loc:
        found, value = child(node, step)
        if found:
            node = value
            steps.append(step)
    return steps, node


def contract_checks(
    contract: type[BaseModel], data: dict[str, Any], previous: Any
) -> list[Finding]:
    findings: list[Finding] = []
    hook = getattr(contract, "cross_field_checks", None)
    if callable(hook):
        try:
            issues = list(hook(data))
        except Exception as exc:
            issues = []
            findings.append(
                Finding(
                    Code.INTERNAL_ERROR,
                    "",
                    Severity.BLOCK,
                    f"the contract's cross-field check failed: {type(exc).__name__}: {exc}",
                )
            )
        for issue in issues:
            path = getattr(issue, "path", "")
            message = str(getattr(issue, "message", issue))
            path = path if isinstance(path, str) else str(path)
            findings.append(Finding(Code.CROSS_FIELD, path, Severity.BLOCK, message))
    if previous is not ABSENT:
        findings.extend(append_only_findings(contract, data, previous))
    return findings


def append_only_findings(contract: type[BaseModel], data: Any, previous: Any) -> list[Finding]:
    """Each append-only list must start with every entry of the previous one, in order."""
    names = getattr(contract, "append_only", ())
    if not isinstance(names, tuple | list) or not isinstance(previous, dict):
        return []
    findings = []
    for name in names:
        before = previous.get(name)
        if not isinstance(before, list):
            continue
        now = data.get(name) if isinstance(data, dict) else None
        if not isinstance(now, list):
            message = f"append-only, and the previous handoff had {len(before)} entries here"
        elif now[: len(before)] != before:
            changed = next(
                (i for i, (a, b) in enumerate(zip(before, now, strict=False)) if a != b),
                len(now),
            )
            message = (
                f"append-only: earlier entries must stay unchanged; entry {changed} of "
                f"{len(before)} was changed or removed"
            )
        else:
            continue
        findings.append(Finding(Code.APPEND_ONLY, str(name), Severity.BLOCK, message))
    return findings
