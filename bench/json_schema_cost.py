"""JSON-Schema contracts: inspection against the validator it is built on, and first use.

A JSON-Schema contract is judged by ``jsonschema-rs``; inspection adds the gate's own
work (a strict parse that catches duplicate keys and cut-off text, the content scans,
the findings and which keys may cross), so it is measured against what the validator
alone costs on the same bytes. All timed in the same interleaved rounds on the same
2 KB bytes:

* ``jsonschema-rs``, built once, ``json.loads`` and every error collected (the target:
  inspection at most 3× it);
* ``jsonschema``'s Draft 2020-12 validator the same way (the target: at most 0.1× it);
* ``fastjsonschema``'s compiled validator and ``inspect`` against the pydantic class,
  reported beside them.

First use: compiling the contract of a 50-property schema not seen before, plus its
first inspection (the target: p95 at most 20 ms of CPU). Hostile schemas: each shape
that once exploded, compiled and judged (the target: each within a second).
"""

from __future__ import annotations

import gc
import importlib
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from bench import hostile, payloads
from bench.config import Context
from bench.figures import Figure, Target
from bench.inspect_cost import _interleave, _ms, _once
from bench.stats import summarize
from handoff_gate.gates.contracts.json_schema import contract_from_json_schema
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.inspect.stages import inspect

SCHEMA_ID = "design/v1"


def _library(name: str) -> Any:
    """Imported by name: neither library ships type information, and only this
    benchmark needs them (the ``test`` extra installs them)."""
    return importlib.import_module(name)


def _jsonschema_validate(schema: dict[str, Any], data: bytes) -> Callable[[], Any]:
    validator = _library("jsonschema").Draft202012Validator(schema)

    def run() -> Any:
        return list(validator.iter_errors(json.loads(data)))

    return run


def _rust_validate(schema: dict[str, Any], data: bytes) -> Callable[[], Any]:
    validator = _library("jsonschema_rs").validator_for(schema, validate_formats=True)

    def run() -> Any:
        return list(validator.iter_errors(json.loads(data)))

    return run


def _fastjsonschema_validate(schema: dict[str, Any], data: bytes) -> Callable[[], Any]:
    fast = _library("fastjsonschema")
    validate = fast.compile(schema)

    def run() -> Any:
        try:
            return validate(json.loads(data))
        except fast.JsonSchemaException as exc:
            return exc

    return run


def _inspection(ctx: Context) -> list[Figure]:
    model = load_registry("")[SCHEMA_ID]
    schema = model.model_json_schema()
    data = payloads.small_design()
    as_schema = {SCHEMA_ID: contract_from_json_schema(schema)}
    as_class = {SCHEMA_ID: model}
    report = inspect(data, SCHEMA_ID, as_schema)
    ours, by_class, slow, fast, rust = _interleave(
        ctx.profile.cost_small_reps,
        partial(inspect, data, SCHEMA_ID, as_schema),
        partial(inspect, data, SCHEMA_ID, as_class),
        _jsonschema_validate(schema, data),
        _fastjsonschema_validate(schema, data),
        _rust_validate(schema, data),
    )
    note = f"{len(data) / 1024:.1f} KB {SCHEMA_ID} export, {report.verdict.value}"
    mine = summarize(_ms(ours))
    return [
        Figure(
            name="json_schema.inspect_2KB_vs_jsonschema_rs",
            unit="ms",
            value=mine,
            baseline_name="jsonschema-rs (pre-built, json.loads, every error)",
            baseline=summarize(_ms(rust)),
            target=Target(stat="median", max_ratio=3.0),
            note=note,
        ),
        Figure(
            name="json_schema.inspect_2KB_vs_jsonschema",
            unit="ms",
            value=mine,
            baseline_name="jsonschema Draft202012 (pre-built, json.loads)",
            baseline=summarize(_ms(slow)),
            target=Target(stat="median", max_ratio=0.1),
            note=note,
        ),
        Figure(
            name="json_schema.inspect_2KB_vs_fastjsonschema",
            unit="ms",
            value=mine,
            baseline_name="fastjsonschema (compiled, json.loads)",
            baseline=summarize(_ms(fast)),
            note=note + "; reported beside, no target",
        ),
        Figure(
            name="json_schema.inspect_2KB_vs_class",
            unit="ms",
            value=mine,
            baseline_name="inspect with the pydantic class",
            baseline=summarize(_ms(by_class)),
            note=note + "; reported beside, no target",
        ),
    ]


def wide_schema(n: int, salt: int) -> dict[str, Any]:
    """A ``n``-property contract of every common kind, new for each ``salt`` (so no
    cache has seen it)."""
    kinds: list[dict[str, Any]] = [
        {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "\\S"},
        {"type": "integer", "minimum": 0, "maximum": 10_000},
        {"enum": ["low", "medium", "high"]},
        {"type": "array", "items": {"type": "string", "maxLength": 50}, "maxItems": 20},
        {"type": "string", "format": "date-time"},
        {"type": ["number", "null"], "minimum": 0},
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
            "required": ["name"],
            "additionalProperties": False,
        },
    ]
    properties = {
        f"field_{i}": {**kinds[i % len(kinds)], "description": f"Field {i}."} for i in range(n)
    }
    return {
        "title": f"Wide{salt}",
        "type": "object",
        "properties": properties,
        "required": list(properties)[: n // 2],
        "additionalProperties": False,
    }


def wide_payload(n: int) -> bytes:
    values: list[Any] = ["text", 7, "high", ["a", "b"], "2026-01-31T09:00:00Z", 1.5, {"name": "x"}]
    return json.dumps({f"field_{i}": values[i % len(values)] for i in range(n)}).encode()


def _first_use(ctx: Context, n: int = 50) -> Figure:
    data = wide_payload(n)
    jsonschema = _library("jsonschema")
    reps = max(3, ctx.profile.startup_reps * 2)
    salts = iter(range(10**6))

    def ours() -> None:
        model = contract_from_json_schema(wide_schema(n, next(salts)))
        inspect(data, "wide/v1", {"wide/v1": model})

    def theirs() -> None:
        validator = jsonschema.Draft202012Validator(wide_schema(n, next(salts)))
        list(validator.iter_errors(json.loads(data)))

    ours()  # the modules' own first-time costs are start-up, measured in bench.startup
    theirs()
    mine, base = [_cpu(ours) for _ in range(reps)], [_cpu(theirs) for _ in range(reps)]
    wall = summarize(_ms([_once(ours) for _ in range(reps)]))
    check = inspect(data, "w/v1", {"w/v1": contract_from_json_schema(wide_schema(n, -1))})
    return Figure(
        name="json_schema.first_use_50_properties",
        unit="ms",
        value=summarize(_ms(mine)),
        baseline_name="jsonschema: build a validator, first validation",
        baseline=summarize(_ms(base)),
        target=Target(stat="p95", limit=20.0),
        note=f"CPU time of building the contract + first inspection ({len(data)} B, "
        f"{check.verdict.value}); wall median {wall.median:.1f} ms on this machine's load",
        extra={"wall_ms": wall.to_json()},
    )


def _cpu(fn: Callable[[], Any]) -> float:
    """The process's CPU seconds for one call: a first use is a burst of work that
    must not be judged by how long other processes kept the cores busy."""
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _hostile(ctx: Context) -> list[Figure]:
    """Each shape that once exploded: compiled (never cached before) and a payload of
    it inspected, in CPU time; the baseline is the same for a plain 5-property schema."""
    figures = []
    salts = iter(range(10**6))
    reps = max(3, ctx.profile.startup_reps)

    def salted(schema: dict[str, Any]) -> dict[str, Any]:
        return {**schema, "title": f"h{next(salts)}"}

    def plain() -> None:
        contract = contract_from_json_schema(salted(wide_schema(5, 0)))
        inspect(wide_payload(5), "w/v1", {"w/v1": contract})

    base = summarize(_ms([_cpu(plain) for _ in range(reps)]))
    for name, schema, payload in hostile.SHAPES:
        data = json.dumps(payload).encode()

        def once(schema: dict[str, Any] = schema, data: bytes = data) -> None:
            inspect(data, "h/v1", {"h/v1": contract_from_json_schema(salted(schema))})

        figures.append(
            Figure(
                name=f"json_schema.hostile_{name}",
                unit="ms",
                value=summarize(_ms([_cpu(once) for _ in range(reps)])),
                baseline_name="the same for a plain 5-property schema",
                baseline=base,
                target=Target(stat="p95", limit=1000.0),
                note=f"compile + inspect, CPU; payload {len(data)} B",
            )
        )
    return figures


def run(ctx: Context) -> list[Figure]:
    return [*_inspection(ctx), _first_use(ctx), *_hostile(ctx)]
