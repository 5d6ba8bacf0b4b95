"""What crosses is what was approved: a phase's delivery is the payload less the keys its
contract admits nowhere, valid against the contract, keeping every key the schema names
on its path; a tool call crosses as sent.

Held on every valid case of the vendored JSON-Schema-Test-Suite (both drafts, each
schema wrapped as a property and, where its data is an object, at the root), on schemas
with absolute, relative and ``urn:`` ids, anchors and embedded resources, and on
schemas hypothesis builds from those parts. Which keys a schema names is worked out by
an oracle that resolves references with ``referencing`` (``json_schema_oracle``), not
by the gate's code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from json_schema_oracle import is_within, named_keys_missing
from store_place import Place
from test_json_schema_suite import DRAFTS, SUITE, wrapped

from handoff_gate.gates.contracts.json_schema import (
    JsonSchemaContract,
    JsonSchemaError,
    contract_from_json_schema,
)
from handoff_gate.gates.inspect.schema_check import check_json_schema
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.vocab.fieldpaths import split
from handoff_gate.gates.vocab.findings import Code, Severity

#: The issue's minimal case: an absolute root ``$id``, an object reached through
#: ``$ref``, closed by ``additionalProperties: false``.
TOOL = {
    "$id": "https://example.com/tool.json",
    "$defs": {
        "Opts": {
            "type": "object",
            "properties": {"dryRun": {"type": "boolean", "default": False}},
            "additionalProperties": False,
        }
    },
    "type": "object",
    "properties": {"path": {"type": "string"}, "opts": {"$ref": "#/$defs/Opts"}},
    "required": ["path"],
}
SENT = {"path": "/etc/x", "opts": {"dryRun": True}}


def _without_defaults(delivered: Any, findings: Any) -> Any:
    """The delivery less the defaults the gate filled in (each a ``defaulted_field``)."""
    out = json.loads(json.dumps(delivered))
    for f in findings:
        if f.code is Code.DEFAULTED_FIELD:
            steps = split(f.path) or []
            node = out
            for step in steps[:-1]:
                node = node[step]
            node.pop(steps[-1], None)
    return out


def _problems(document: dict[str, Any], contract: JsonSchemaContract, sent: Any) -> list[str]:
    """What is wrong with the delivery of a valid ``sent``: nothing, for a right one."""
    outcome = check_json_schema(sent, contract)
    undecided = [f for f in outcome.findings if f.code in (Code.UNDELIVERABLE, Code.OVER_BUDGET)]
    if undecided:
        return [f"blocked: {undecided[0].message}"]
    delivered = outcome.delivered
    if delivered is None:
        return ["nothing delivered"]
    problems = []
    if not contract.validator.is_valid(delivered):
        problems.append("the delivery is not valid")
    if not is_within(_without_defaults(delivered, outcome.findings), sent):
        problems.append("the delivery is not the payload less some keys")
    problems.extend(f"dropped {p}" for p in named_keys_missing(document, sent, delivered))
    return problems


def _valid_cases(draft: str) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """Each valid case: wrapped as the suite test wraps it, and at the root."""
    for path in sorted((SUITE / draft).glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for case in group["tests"]:
                if not case["valid"]:
                    continue
                name = f"{path.name}: {group['description']}: {case['description']}"
                yield name, wrapped(draft, group["schema"]), {"v": case["data"]}
                schema = group["schema"]
                if isinstance(schema, dict) and isinstance(case["data"], dict):
                    root = {"$schema": DRAFTS[draft], **schema}
                    yield f"{name} (root)", root, case["data"]


def _suite_outcome(draft: str) -> tuple[int, list[str]]:
    checked, wrong = 0, list[str]()
    for name, document, sent in _valid_cases(draft):
        try:
            contract = contract_from_json_schema(document)
        except JsonSchemaError:
            continue
        if not contract.validator.is_valid(sent):
            continue
        checked += 1
        wrong.extend(f"{name}: {p}" for p in _problems(document, contract, sent))
    return checked, wrong


#: How many valid cases of each draft are delivered and checked (wrapped and at the
#: root; a case the gate refuses to compile, a remote reference, is not counted).
SUITE_DELIVERIES = {"draft2020-12": 944, "draft7": 688}


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_every_valid_case_of_the_suite_is_delivered_valid_and_whole(draft: str) -> None:
    checked, wrong = _suite_outcome(draft)
    assert wrong == []
    assert checked == SUITE_DELIVERIES[draft]


def test_the_minimal_case_delivers_the_key_reached_through_ref_under_an_absolute_id() -> None:
    contract = contract_from_json_schema(TOOL)
    report = inspect(json.dumps(SENT).encode(), "tool/v1", {"tool/v1": contract})
    assert report.approvable
    assert [f.code for f in report.findings] == []
    assert report.delivered == SENT


def test_the_oracle_sees_the_issues_drop() -> None:
    """What the gate delivered before: ``opts`` emptied. The oracle names the loss."""
    assert named_keys_missing(TOOL, SENT, {"path": "/etc/x", "opts": {}}) == ["/opts/dryRun"]
    assert not is_within({"path": "/etc/x", "opts": {"dryRun": False}}, SENT)
    assert is_within({"path": "/etc/x"}, SENT)


#: Documents whose references need a base URI to land: each names ``keep`` under an
#: object reached by reference, closed, beside an unnamed ``drop``.
_OPTS = {
    "type": "object",
    "properties": {"keep": {"type": "boolean"}},
}
ID_SHAPES: dict[str, dict[str, Any]] = {
    "absolute-id": {
        "$id": "https://example.com/a.json",
        "$defs": {"O": _OPTS},
        "properties": {"o": {"$ref": "#/$defs/O"}},
    },
    "absolute-ref": {
        "$id": "https://example.com/a.json",
        "$defs": {"O": _OPTS},
        "properties": {"o": {"$ref": "https://example.com/a.json#/$defs/O"}},
    },
    "relative-id": {
        "$id": "tool/a.json",
        "$defs": {"O": _OPTS},
        "properties": {"o": {"$ref": "a.json#/$defs/O"}},
    },
    "urn-id": {
        "$id": "urn:example:tool",
        "$defs": {"O": _OPTS},
        "properties": {"o": {"$ref": "#/$defs/O"}},
    },
    "anchor": {
        "$id": "https://example.com/a.json",
        "$defs": {"O": {"$anchor": "opts", **_OPTS}},
        "properties": {"o": {"$ref": "#opts"}},
    },
    "embedded-resource": {
        "$id": "https://example.com/a.json",
        "$defs": {"O": {"$id": "opts.json", **_OPTS}},
        "properties": {"o": {"$ref": "opts.json"}},
    },
    "pointer-into-embedded": {
        "$id": "https://example.com/a.json",
        "$defs": {"E": {"$id": "https://other.example/e.json", "$defs": {"O": _OPTS}}},
        "properties": {"o": {"$ref": "https://other.example/e.json#/$defs/O"}},
    },
    "dynamic-ref": {
        "$id": "https://example.com/a.json",
        "$defs": {"O": {"$dynamicAnchor": "opts", **_OPTS}},
        "properties": {"o": {"$dynamicRef": "#opts"}},
    },
    "recursive-ref": {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "https://example.com/a.json",
        "$recursiveAnchor": True,
        "properties": {"o": {"$recursiveRef": "#"}, "keep": {"type": "boolean"}},
    },
    "draft4-id": {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "https://example.com/a.json",
        "definitions": {"O": _OPTS},
        "properties": {"o": {"$ref": "#/definitions/O"}},
    },
    "draft7-plain-name-id": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://example.com/a.json",
        "definitions": {"O": {"$id": "#opts", **_OPTS}},
        "properties": {"o": {"$ref": "#opts"}},
    },
    "draft7-definitions": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "http://example.com/root.json",
        "definitions": {"O": _OPTS},
        "properties": {"o": {"$ref": "#/definitions/O"}},
    },
}


@pytest.mark.parametrize("name", list(ID_SHAPES))
def test_a_key_reached_through_any_kind_of_reference_is_kept(name: str) -> None:
    document = {"type": "object", **ID_SHAPES[name]}
    contract = contract_from_json_schema(document)
    sent = {"o": {"keep": True, "drop": 1}}
    outcome = check_json_schema(sent, contract)
    assert outcome.delivered == {"o": {"keep": True}}
    assert [(f.code, f.path, f.severity) for f in outcome.findings] == [
        (Code.UNKNOWN_KEY, "o.drop", Severity.WARN)
    ]


def test_a_key_named_only_by_a_branch_that_failed_is_kept() -> None:
    """Which branch passed does not decide what is dropped: a key the schema names on
    the path is kept (here ``a`` fails the first branch's type, the second passes)."""
    document = {
        "type": "object",
        "anyOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ],
    }
    contract = contract_from_json_schema(document)
    outcome = check_json_schema({"a": 1, "b": 2, "c": 3}, contract)
    assert outcome.delivered == {"a": 1, "b": 2}


def test_a_pattern_is_matched_as_the_validator_reads_it() -> None:
    document = {"type": "object", "patternProperties": {"^x-\\p{L}+$": {"type": "string"}}}
    contract = contract_from_json_schema(document)
    outcome = check_json_schema({"x-é": "1", "x-1": "2"}, contract)
    assert outcome.delivered == {"x-é": "1"}


def test_a_reference_the_gate_cannot_place_blocks_rather_than_drops() -> None:
    """A metaschema reference the validator knows is free-form; a reference the gate
    cannot follow (forged here past the validator) blocks with ``undeliverable``."""
    contract = contract_from_json_schema(
        {"type": "object", "properties": {"o": {"$ref": "#/$defs/O"}}, "$defs": {"O": {}}}
    )
    forged = JsonSchemaContract(
        {"type": "object", "properties": {"o": {"$ref": "#/$defs/Gone"}}},
        contract.sha256,
        contract.validator,
    )
    outcome = check_json_schema({"o": {"k": 1}}, forged)
    assert [(f.code, f.severity) for f in outcome.findings] == [
        (Code.UNDELIVERABLE, Severity.BLOCK)
    ]
    assert outcome.delivered is None


def test_a_tool_call_crosses_as_sent_with_its_unnamed_key_flagged_on_the_field() -> None:
    contract = contract_from_json_schema(TOOL)
    sent = {"path": "/etc/x", "opts": {"dryRun": True}, "delay_ms": 5}
    outcome = check_json_schema(sent, contract, tool_call=True)
    assert outcome.delivered == sent
    assert [(f.code, f.path, f.severity) for f in outcome.findings] == [
        (Code.UNNAMED_KEY, "delay_ms", Severity.WARN)
    ]
    assert "as sent" in outcome.findings[0].message
    # Nor is a default filled in: the tool applies its own.
    assert check_json_schema({"path": "/x", "opts": {}}, contract, tool_call=True).delivered == {
        "path": "/x",
        "opts": {},
    }


# -- generated schemas ------------------------------------------------------------------

_BASES = st.sampled_from(
    [None, "https://example.com/root.json", "urn:example:root", "relative/root.json"]
)


@st.composite
def _schemas(draw: Any) -> dict[str, Any]:
    """A root with a few closed or open objects under ``$defs``, each reached by a
    pointer, an anchor, an absolute URI or an embedded resource's own id."""
    base = draw(_BASES)
    defs: dict[str, Any] = {}
    refs: list[str] = []
    for n in range(draw(st.integers(1, 3))):
        name = f"D{n}"
        keys = draw(st.lists(st.sampled_from(["a", "b", "c", "dryRun"]), max_size=3, unique=True))
        body: dict[str, Any] = {
            "type": "object",
            "properties": {k: {"type": "boolean"} for k in keys},
        }
        how = draw(st.sampled_from(["pointer", "anchor", "absolute", "embedded"]))
        # Inside an embedded resource "#..." names that resource: only full URIs reach out.
        reachable = [r for r in refs if how != "embedded" or not r.startswith("#")]
        if reachable and draw(st.booleans()):
            body["properties"]["inner"] = {"$ref": draw(st.sampled_from(reachable))}
        closing = draw(st.sampled_from(["closed", "open", "silent", "typed"]))
        if closing == "closed":
            body["additionalProperties"] = False
        elif closing == "open":
            body["additionalProperties"] = True
        elif closing == "typed":
            body["additionalProperties"] = {"type": "integer"}
        if how == "anchor":
            body["$anchor"] = f"a{n}"
            refs.append(f"#a{n}")
        elif how == "absolute" and base is not None and base.startswith("https:"):
            refs.append(f"{base}#/$defs/{name}")
        elif how == "embedded":
            body["$id"] = f"https://example.com/embedded/d{n}.json"
            refs.append(body["$id"])
        else:
            refs.append(f"#/$defs/{name}")
        defs[name] = body
    properties: dict[str, Any] = {"path": {"type": "string"}}
    for i in range(draw(st.integers(1, 3))):
        ref: dict[str, Any] = {"$ref": draw(st.sampled_from(refs))}
        wrap = draw(st.sampled_from(["plain", "allOf", "anyOf", "array"]))
        if wrap == "allOf":
            ref = {"allOf": [ref]}
        elif wrap == "anyOf":
            ref = {"anyOf": [ref, {"type": "null"}]}
        elif wrap == "array":
            ref = {"type": "array", "items": ref}
        properties[f"p{i}"] = ref
    document: dict[str, Any] = {"type": "object", "$defs": defs, "properties": properties}
    if base is not None:
        document["$id"] = base
    if draw(st.booleans()):
        document["additionalProperties"] = False
    return document


_VALUES = st.one_of(st.booleans(), st.integers(-3, 3), st.just("s"))


def _payload(
    draw: Any, depth: int = 0, root: dict[str, Any] | None = None, closed: bool = False
) -> dict[str, Any]:
    """A payload of up to six of the keys, nested up to three deep. ``root``: the
    document's own properties, which the top level's values are drawn to fit where no
    other value could be valid: ``path`` is a string, each ``p<i>`` an object or a list
    of them, and a ``closed`` top level takes its properties' keys only. The test
    discarded every payload that broke those (about half of all examples), so the valid
    payloads drawn are the same ones, with fewer examples thrown away."""
    keys = ["path", "p0", "p1", "p2", "a", "b", "c", "dryRun", "inner", "zz"]
    if closed and root is not None:
        keys = [k for k in keys if k in root]
    chosen = draw(st.lists(st.sampled_from(keys), max_size=6, unique=True))
    out: dict[str, Any] = {}
    for key in chosen:
        if depth == 0 and root is not None and key in root:
            nested = key != "path"
        else:
            nested = depth < 3 and draw(st.booleans())
        if nested:
            value: Any = _payload(draw, depth + 1)
            out[key] = [value] if draw(st.booleans()) else value
        else:
            out[key] = "x" if key == "path" else draw(_VALUES)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(document=_schemas(), data=st.data())
def test_a_generated_schema_delivers_a_valid_payload_less_only_keys_it_names_nowhere(
    document: dict[str, Any], data: st.DataObject
) -> None:
    contract = contract_from_json_schema(document)
    closed = document.get("additionalProperties") is False
    sent = _payload(data.draw, root=document["properties"], closed=closed)
    assume(contract.validator.is_valid(sent))
    assert _problems(document, contract, sent) == []


def test_submit_decide_wait_delivers_the_key_reached_through_ref_on_both_stores(
    place: Place, tmp_path: Path
) -> None:
    """The issue's case end to end: the producer stores the schema with its handoff,
    a reviewer approves, and ``wait`` delivers ``dryRun: true`` as sent."""
    schema = tmp_path / "tool.schema.json"
    schema.write_text(json.dumps(TOOL))
    store = place.store_args
    done = cli(
        *store, "submit", place.run, "--phase", "run", "--schema", "tool/v1",
        "--json-schema", str(schema), "--json", "-", stdin=json.dumps(SENT).encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    submitted = json.loads(done.stdout)
    sent = tmp_path / "sent.json"
    sent.write_text(json.dumps(SENT))
    shown = cli("check", str(sent), "--json-schema", str(schema), "--json")
    assert json.loads(shown.stdout)["findings"] == [], shown.stderr
    decided = cli(*store, "decide", place.run, submitted["id"], "approve")
    assert decided.returncode == 0, decided.stderr
    out = tmp_path / "delivered.json"
    waited = cli(
        *store, "wait", place.run, submitted["id"], "--sha256", submitted["sha256"],
        "--timeout", "5", "--out", str(out),
    )  # fmt: skip
    assert waited.returncode == 0, waited.stderr
    assert json.loads(out.read_text()) == SENT


def test_an_array_item_its_schema_leaves_free_form_is_delivered_whole() -> None:
    """``items: {}`` says any item, as ``"a": {}`` says any value: taken whole. An array
    with no ``items`` says nothing about its items' keys: those are dropped."""
    free = {"type": "object", "properties": {"a": {"type": "array", "items": {}}}}
    silent = {"type": "object", "properties": {"a": {"type": "array"}}}
    sent = {"a": [{"x": 1}]}
    kept = check_json_schema(sent, contract_from_json_schema(free))
    assert kept.delivered == sent and kept.findings == []
    dropped = check_json_schema(sent, contract_from_json_schema(silent))
    assert dropped.delivered == {"a": [{}]}
    assert [(f.code, f.path) for f in dropped.findings] == [(Code.UNKNOWN_KEY, "a[0].x")]
