"""Every case of the official JSON-Schema-Test-Suite, both drafts, through the real gate.

The suite (``tests/json_schema_test_suite/``, vendored at the upstream commit its
SOURCE.md names) is ground truth nobody here wrote. A handoff is an object, so each
case's schema becomes the one required property ``v`` of a closed object, and each
case's instance is sent as ``{"v": instance}``:

- the case's ``$schema`` (if any) moves to the wrapper, which otherwise names the draft;
- its ``"#..."`` JSON-Pointer references are rewritten to ``"#/properties/v..."``, except
  inside a subschema with its own ``$id`` (a resource of its own, where ``#`` means it).

Each case ends one of five ways: the gate agrees with the suite (approvable exactly when
valid), the contract is refused in one line (``refused``: it names a resource outside
itself, which the gate never fetches), a valid instance is blocked by one of the gate's
own content findings (listed in ``CONTENT_CODES``), a string the suite only annotates
with a ``format`` is blocked because the gate asserts formats, or the gate is wrong. Wrong never
happens: no invalid instance is approvable (fail-open), no valid one is blocked by a
contract finding, nothing crashes, and at most a tenth of each draft is refused.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from handoff_gate.gates.contracts.json_schema import JsonSchemaError, contract_from_json_schema
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.vocab.findings import Code, Severity

SUITE = Path(__file__).resolve().parent / "json_schema_test_suite" / "tests"
DRAFTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}
#: The gate's own findings about content, which may block an instance the suite calls
#: valid: what the gate adds on purpose, never a disagreement about the schema.
CONTENT_CODES = frozenset({Code.UNSAFE_TEXT, Code.SECRET, Code.TOO_DEEP})
#: How jsonschema-rs words a string its format rejects (``"x" is not a "date"``).
_FORMAT_MESSAGE = '" is not a "'
#: At most this share of a draft's cases may be refused.
REFUSED_SHARE = 0.10


def _schemas_under(node: Any) -> None:
    """Rewrite ``#`` pointers in place, stopping at embedded resources (``$id``)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
            continue
        if not isinstance(current, dict):
            continue
        ref = current.get("$ref")
        if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
            current["$ref"] = "#/properties/v" + ref[1:]
        for key, value in current.items():
            if key in ("const", "enum", "default", "examples"):
                continue
            if isinstance(value, dict) and "$id" in value:
                continue
            stack.append(value)


def wrapped(draft: str, schema: Any) -> dict[str, Any]:
    case = json.loads(json.dumps(schema))
    declared = DRAFTS[draft]
    if isinstance(case, dict):
        declared = case.pop("$schema", declared)
        if "$id" not in case:
            _schemas_under(case)
    return {
        "$schema": declared,
        "type": "object",
        "properties": {"v": case},
        "required": ["v"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class Outcome:
    file: str
    group: str
    test: str
    valid: bool
    ending: str  # agree | refused | content | format | fail-open | false-block | crash
    detail: str = ""


def _ending(valid: bool, schema: dict[str, Any], data: Any) -> tuple[str, str]:
    try:
        contract = contract_from_json_schema(schema)
    except JsonSchemaError as exc:
        return "refused", str(exc)
    report = inspect(json.dumps({"v": data}).encode(), "suite/v1", {"suite/v1": contract})
    blocking = [f for f in report.findings if f.severity is Severity.BLOCK]
    if any(f.code is Code.INTERNAL_ERROR for f in blocking):
        return "crash", blocking[0].message
    if report.approvable == valid:
        return "agree", ""
    if not valid:
        return "fail-open", ""
    if all(f.code in CONTENT_CODES for f in blocking):
        return "content", ",".join(sorted({f.code.value for f in blocking}))
    if all(f.code is Code.INVALID_FIELD and _FORMAT_MESSAGE in f.message for f in blocking):
        return "format", blocking[0].message
    return "false-block", "; ".join(f"{f.code.value} {f.path}: {f.message}" for f in blocking)


@cache
def outcomes(draft: str) -> tuple[Outcome, ...]:
    found: list[Outcome] = []
    for path in sorted((SUITE / draft).glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            schema = wrapped(draft, group["schema"])
            for case in group["tests"]:
                ending, detail = _ending(case["valid"], schema, case["data"])
                found.append(
                    Outcome(
                        path.name,
                        group["description"],
                        case["description"],
                        case["valid"],
                        ending,
                        detail,
                    )
                )
    return tuple(found)


def counts(draft: str) -> Counter[str]:
    return Counter(o.ending for o in outcomes(draft))


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_no_case_of_the_suite_is_approvable_when_invalid(draft: str) -> None:
    wrong = [o for o in outcomes(draft) if o.ending == "fail-open"]
    assert wrong == [], f"{len(wrong)} fail-open cases, first: {wrong[:3]}"


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_no_case_of_the_suite_crashes_or_is_blocked_by_the_contract_when_valid(
    draft: str,
) -> None:
    wrong = [o for o in outcomes(draft) if o.ending in ("crash", "false-block")]
    assert wrong == [], f"{len(wrong)} cases, first: {wrong[:3]}"


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_a_valid_case_is_blocked_only_by_the_gates_own_content_findings(draft: str) -> None:
    """Listed by name, so a new one is a decision, not a drift."""
    blocked = {(o.file, o.group, o.test) for o in outcomes(draft) if o.ending == "content"}
    assert blocked == CONTENT_BLOCKED[draft]


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_formats_are_asserted_where_the_suite_only_annotates(draft: str) -> None:
    """Draft 2020-12 makes ``format`` an annotation unless asked; the gate asks (a
    malformed date in a handoff is a finding). These are the suite's cases that test
    the annotation-only default, each blocked by its format, listed by name."""
    asserted = {(o.file, o.test) for o in outcomes(draft) if o.ending == "format"}
    assert asserted == FORMAT_ASSERTED[draft]


@pytest.mark.parametrize("draft", list(DRAFTS))
def test_at_most_a_tenth_of_a_draft_is_refused_and_each_refusal_names_why(draft: str) -> None:
    every = outcomes(draft)
    refused = [o for o in every if o.ending == "refused"]
    assert len(refused) <= REFUSED_SHARE * len(every), counts(draft)
    for o in refused:
        assert "\n" not in o.detail and o.detail, o


def test_the_vendored_suite_is_whole() -> None:
    """Both drafts' core files, and enough cases that a lost file would show."""
    assert counts("draft2020-12").total() > 1200
    assert counts("draft7").total() > 850
    assert (SUITE.parent / "LICENSE").is_file() and (SUITE.parent / "SOURCE.md").is_file()


#: The valid cases the gate blocks for what the text holds (a NUL, a carriage return:
#: ``unsafe_text``), by (file, group, test).
_ESCAPES = {
    ("const.json", "nul characters in strings", "match string with nul"),
    ("enum.json", "enum with escaped characters", "member 2 is valid"),
    ("enum.json", "nul characters in strings", "match string with nul"),
    ("properties.json", "properties with escaped characters", "object with all numbers is valid"),
    (
        "required.json",
        "required with escaped characters",
        "object with all properties present is valid",
    ),
}
CONTENT_BLOCKED: dict[str, set[tuple[str, str, str]]] = {
    "draft2020-12": {
        *_ESCAPES,
        ("dependentRequired.json", "dependencies with escaped characters", "CRLF"),
    },
    "draft7": {
        *_ESCAPES,
        ("dependencies.json", "dependencies with escaped characters", "valid object 1"),
    },
}
_FORMATS = [
    "email",
    "idn-email",
    "regex",
    "ipv4",
    "ipv6",
    "idn-hostname",
    "hostname",
    "date",
    "date-time",
    "time",
    "json-pointer",
    "relative-json-pointer",
    "iri",
    "iri-reference",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
    "duration",
]
#: Draft 2020-12's "invalid X string is only an annotation by default", per format.
FORMAT_ASSERTED: dict[str, set[tuple[str, str]]] = {
    "draft2020-12": {
        ("format.json", f"invalid {name} string is only an annotation by default")
        for name in _FORMATS
    },
    "draft7": set(),
}
