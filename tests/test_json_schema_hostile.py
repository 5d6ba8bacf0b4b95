"""Hostile JSON Schema documents: each is judged correctly or refused in one line, on both
stores, and a run that stores one does not disturb reading the others.

The shapes are the ones that broke the old translation: ``anyOf`` + ``$ref`` nested 18
deep (its build doubled per level), 150 chained ``$defs`` and 600 ``$ref`` hops (a
``RecursionError``), a 40-option ``oneOf`` over 20,000 items (cost options × items),
30 levels of ``anyOf`` over ``$ref`` and ``items`` (an evaluation expanding every branch
took 27 s), and a document nested past the gate's bound (refused). The shapes are
``bench/hostile.py``'s, and what each costs is measured in ``bench/json_schema_cost.py``;
here each must end with the right answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

import handoff_gate as hg
from bench.hostile import SHAPES, closed, nested_any_of
from handoff_gate.gates.contracts.json_schema import (
    MAX_SCHEMA_DEPTH,
    JsonSchemaError,
    contract_from_json_schema,
)
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.store.postgres_schema import init_schema


def too_deep() -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_SCHEMA_DEPTH + 10):
        node = {"type": "array", "items": node}
    return closed(node)


#: A payload each shape rejects, beside the one it accepts.
REJECTED = {
    "anyOf_ref_18": {"v": {"a": 1}},
    "defs_150": {"v": "7"},
    "refs_600": {"v": 7.5},
    "oneOf_40x20000": {"v": [{"k": n % 41} for n in range(20_000)]},
    "anyOf_items_30": {"v": 1},
}
#: (name, schema, a payload it accepts, one it rejects)
HOSTILE = [(name, schema, good, REJECTED[name]) for name, schema, good in SHAPES]


@pytest.fixture(params=["folder", "postgres"])
def gate(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[hg.Gate]:
    if request.param == "folder":
        store: str = str(tmp_path / "runs")
    else:
        store = request.getfixturevalue("pg_url")
        with psycopg.connect(store, autocommit=True) as conn:
            init_schema(conn, roles=True)
    with hg.Gate(store) as made:
        yield made


@pytest.mark.parametrize(("name", "schema", "good", "bad"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_schema_is_judged_like_any_other(
    gate: hg.Gate, name: str, schema: dict[str, Any], good: Any, bad: Any
) -> None:
    accepted = gate.submit(
        f"{name}-ok", json.dumps(good).encode(), phase="p", schema_id="h/v1", json_schema=schema
    )
    rejected = gate.submit(
        f"{name}-bad", json.dumps(bad).encode(), phase="p", schema_id="h/v1", json_schema=schema
    )
    assert gate.inspect(f"{name}-ok", accepted).approvable
    report = gate.inspect(f"{name}-bad", rejected)
    assert not report.approvable
    assert {f.code.value for f in report.blocking} <= {"invalid_field", "empty_field"}


def test_a_schema_nested_past_the_bound_is_refused_in_one_line(gate: hg.Gate) -> None:
    with pytest.raises(JsonSchemaError) as caught:
        gate.submit("deep", b'{"v": "x"}', phase="p", schema_id="h/v1", json_schema=too_deep())
    assert "nests deeper than" in str(caught.value) and "\n" not in str(caught.value)
    assert "deep" not in gate.runs()


def test_a_ref_loop_is_answered_not_a_recursion_error() -> None:
    """Two ``$ref`` pointing at each other constrain nothing (the validator's answer);
    what matters is an answer, with the closed object around them still closed."""
    looped = closed({"$ref": "#/$defs/a"}, {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}})
    contracts = {"h/v1": contract_from_json_schema(looped)}
    assert inspect(b'{"v": 1}', "h/v1", contracts).findings == ()
    extra = inspect(b'{"v": 1, "w": 2}', "h/v1", contracts)
    assert [(f.code.value, f.path) for f in extra.findings] == [("unknown_key", "w")]


def test_a_run_storing_a_hostile_schema_leaves_the_other_runs_readable(gate: hg.Gate) -> None:
    """Reading every run (what ``list`` does) judges the hostile one and the plain one."""
    gate.submit(
        "hostile",
        json.dumps(HOSTILE[0][2]).encode(),
        phase="p",
        schema_id="h/v1",
        json_schema=nested_any_of(18),
    )
    plain = gate.submit(
        "plain", b'{"title": "x"}', phase="p", schema_id="t/v1",
        json_schema={"type": "object", "properties": {"title": {"type": "string"}}},
    )  # fmt: skip
    assert sorted(gate.runs()) == ["hostile", "plain"]
    assert gate.standing("plain", plain).state is hg.HandoffState.PENDING
    assert gate.standing("hostile", "0001-p").state is hg.HandoffState.PENDING
