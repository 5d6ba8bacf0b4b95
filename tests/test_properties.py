"""Properties of inspection over arbitrary input: it never fails open and never crashes.

``inspect`` turns exceptions into an ``internal_error`` finding, so "never raises" is
checked as "never reports internal_error": that finding would be a bug here.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_contracts import REGISTRY as TEST_CONTRACTS
from inspect_contracts import VALID_STRICT
from pydantic import BaseModel

from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.inspect.handoff_file import inspect_handoff
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.inspect.validate import check_contract
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.findings import Code, Severity
from handoff_gate.gates.vocab.report import Report
from handoff_gate.schemas import example_path

SCHEMAS = dict(load_registry(""))
REGISTRY: dict[str, type[BaseModel]] = {**SCHEMAS, **TEST_CONTRACTS}
REGISTRY.pop("broken/v1")
IDS = sorted(REGISTRY)
EXAMPLES = {sid: json.loads(example_path(sid).read_bytes()) for sid in SCHEMAS}

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["", " ", "4111 1111 1111 1111", "\x1b[31m", "a\u202eb", "fix", "x" * 600])
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)


def assert_sound(report: Report, schema_id: str) -> None:
    """The invariants a reviewer relies on, whatever came in."""
    assert Code.INTERNAL_ERROR not in {f.code for f in report.findings}, report.findings
    if not report.approvable:
        return
    assert not any(f.severity is Severity.BLOCK for f in report.findings)
    assert report.delivered is not None
    contract = REGISTRY[schema_id]
    model = contract.model_validate_json(json.dumps(report.delivered))
    assert model.model_dump(mode="json", by_alias=True) == report.delivered


@SETTINGS
@given(data=st.binary(max_size=300), schema_id=st.sampled_from(IDS))
def test_arbitrary_bytes(data: bytes, schema_id: str) -> None:
    assert_sound(inspect(data, schema_id, REGISTRY), schema_id)


@SETTINGS
@given(value=json_values, schema_id=st.sampled_from(IDS))
def test_arbitrary_json_values(value: Any, schema_id: str) -> None:
    data = json.dumps(value, ensure_ascii=False).encode()
    assert_sound(inspect(data, schema_id, REGISTRY), schema_id)


@st.composite
def mutated_examples(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A valid built-in example with a few keys removed, replaced or added."""
    schema_id = draw(st.sampled_from(sorted(EXAMPLES)))
    payload = dict(EXAMPLES[schema_id])
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        keys = sorted(payload)
        action = draw(st.sampled_from(["drop", "replace", "add"]))
        if action == "drop" and keys:
            payload.pop(draw(st.sampled_from(keys)))
        elif action == "replace" and keys:
            payload[draw(st.sampled_from(keys))] = draw(json_values)
        else:
            payload[draw(st.text(min_size=1, max_size=10))] = draw(json_values)
    return schema_id, payload


@SETTINGS
@given(case=mutated_examples())
def test_mutated_contract_payloads(case: tuple[str, dict[str, Any]]) -> None:
    schema_id, payload = case
    report = inspect(json.dumps(payload).encode(), schema_id, REGISTRY)
    assert_sound(report, schema_id)
    if report.approvable:
        assert report.delivered is not None
        assert set(report.delivered) <= set(REGISTRY[schema_id].model_fields)


@SETTINGS
@given(case=mutated_examples(), cut=st.floats(min_value=0.0, max_value=1.0))
def test_cut_off_text_is_never_approvable(case: tuple[str, dict[str, Any]], cut: float) -> None:
    schema_id, payload = case
    data = json.dumps(payload).encode()
    end = int(len(data) * cut)
    if end == len(data):
        return
    report = inspect(data[:end], schema_id, REGISTRY)
    assert_sound(report, schema_id)
    assert not report.approvable


def unset_paths(model: BaseModel, path: str = "") -> set[str]:
    """What pydantic itself says was defaulted: fields missing from ``model_fields_set``."""
    found = {
        f"{path}.{name}" if path else name
        for name in type(model).model_fields
        if name not in model.model_fields_set
    }
    for name in model.model_fields_set:
        here = f"{path}.{name}" if path else name
        value = getattr(model, name)
        items = (
            [(here, value)]
            if isinstance(value, BaseModel)
            else [(f"{here}[{i}]", v) for i, v in enumerate(value)]
            if isinstance(value, list)
            else [(f"{here}.{k}", v) for k, v in value.items()]
            if isinstance(value, dict)
            else []
        )
        for where, item in items:
            if isinstance(item, BaseModel):
                found |= unset_paths(item, where)
    return found


member = st.fixed_dictionaries({}, optional={"name": st.text(max_size=5), "email": st.none()})
team = st.fixed_dictionaries(
    {},
    optional={
        "lead": member,
        "members": st.lists(member, max_size=3),
        "by_role": st.dictionaries(st.sampled_from(["dev", "ops"]), member, max_size=2),
    },
)


@SETTINGS
@given(payload=team)
def test_defaulted_fields_are_exactly_what_pydantic_left_unset(payload: dict[str, Any]) -> None:
    report = inspect(json.dumps(payload).encode(), "team/v1", REGISTRY)
    defaulted = {f.path for f in report.findings if f.code is Code.DEFAULTED_FIELD}
    if report.model is not None:
        assert defaulted == unset_paths(report.model)


@st.composite
def envelopes(draw: st.DrawFn) -> bytes:
    """Handoff files: mostly well-formed envelopes around arbitrary or valid payloads."""
    schema_id, payload = draw(mutated_examples())
    body: dict[str, Any] = {
        "format": "handoff-gate/1",
        "id": "0001-plan",
        "run": "run",
        "seq": 1,
        "phase": "plan",
        "schema": schema_id,
        "created": "2026-01-01T00:00:00Z",
    }
    text = json.dumps(payload)
    choice = draw(st.sampled_from(["raw", "payload", "both", "neither", "junk"]))
    if choice in ("raw", "both"):
        body["raw"] = text[: draw(st.integers(min_value=0, max_value=len(text)))]
    if choice in ("payload", "both"):
        body["payload"] = draw(st.one_of(st.just(payload), json_values))
    if choice == "junk":
        body[draw(st.text(max_size=5))] = draw(json_values)
    if draw(st.booleans()):
        body["producer"] = {"finish_reason": draw(st.sampled_from(["stop", "length", None]))}
    data = json.dumps(body).encode()
    return data[: draw(st.integers(min_value=0, max_value=len(data)))]


@SETTINGS
@given(data=envelopes())
def test_arbitrary_handoff_files(data: bytes) -> None:
    report = inspect_handoff(data, REGISTRY)
    assert Code.INTERNAL_ERROR not in {f.code for f in report.findings}, report.findings
    assert report.size == len(data)
    if report.approvable:
        assert report.envelope is not None
        assert_sound(report, report.envelope.schema_id)


@SETTINGS
@given(case=mutated_examples(), extra=json_values)
def test_every_row_expands_to_as_many_rows_as_it_announces(
    case: tuple[str, dict[str, Any]], extra: Any
) -> None:
    schema_id, payload = case
    payload["odd key\u202e"] = extra
    report = inspect(json.dumps(payload).encode(), schema_id, REGISTRY)
    todo = [""]
    seen = 0
    while todo and seen < 500:
        parent = todo.pop()
        for row in field_rows(report, parent):
            seen += 1
            assert row.states
            children = field_rows(report, row.path) if row.child_count else []
            assert len(children) == row.child_count, row.path
            if row.child_count:
                todo.append(row.path)


def test_every_built_in_example_is_approvable() -> None:
    for schema_id, payload in EXAMPLES.items():
        report = inspect(json.dumps(payload).encode(), schema_id, REGISTRY)
        assert report.approvable, (schema_id, report.findings)
        assert_sound(report, schema_id)


EMPTY_VALUES: list[object] = [None, "", " ", "\t\n", "\u00a0", "\u3000", [], {}]
#: Payloads to empty values in: the built-in examples, and test contracts that accept
#: the empty values the built-in ones reject.
ACCEPTING = {
    "strict/v1": VALID_STRICT,
    "lenient/v1": {"title": "t", "tags": ["a", "b"], "owner": "ana"},
    "team/v1": {
        "lead": {"name": "ana", "email": "a@x"},
        "members": [{"name": "bo", "email": "b@x"}],
        "by_role": {"qa": {"name": "cy", "email": "c@x"}},
    },
}


def _nodes(value: Any, trail: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [trail] if trail else []
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for step, child in items:
            found += _nodes(child, (*trail, step))
    return found


@st.composite
def emptied_examples(draw: st.DrawFn) -> tuple[str, bytes]:
    """A built-in example with a few values anywhere in it emptied, in any JSON layout."""
    schema_id = draw(st.sampled_from(sorted(ACCEPTING)) | st.sampled_from(sorted(EXAMPLES)))
    payload = json.loads(json.dumps({**EXAMPLES, **ACCEPTING}[schema_id]))
    for _ in range(draw(st.integers(min_value=1, max_value=2))):
        *parent, last = draw(st.sampled_from(_nodes(payload)))
        node = payload
        for step in parent:
            node = node[step]
        node[last] = draw(st.sampled_from(EMPTY_VALUES))
    indent = draw(st.sampled_from([None, 0, 2, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (" ,", " : ")]))
    ascii_only = draw(st.booleans())
    text = json.dumps(payload, indent=indent, separators=separators, ensure_ascii=ascii_only)
    return schema_id, text.encode()


@settings(SETTINGS, max_examples=300)
@given(case=emptied_examples())
def test_text_prescreens_hide_no_empty_field(case: tuple[str, bytes]) -> None:
    """What the raw text rules out before the walk never drops an ``empty_field`` finding."""
    schema_id, data = case
    contract = REGISTRY[schema_id]
    reference = check_contract(json.loads(data), data, contract).findings
    report = inspect(data, schema_id, REGISTRY)

    def empties(findings: Any) -> list[tuple[str, Severity]]:
        return sorted((f.path, f.severity) for f in findings if f.code is Code.EMPTY_FIELD)

    assert empties(report.findings) == empties(reference)
