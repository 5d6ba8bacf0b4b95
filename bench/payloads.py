"""Deterministic payloads for the inspection benchmark, sized in bytes.

Valid ones follow a contract; the worst-case classes are the inputs a hostile or
broken producer sends: deep nesting, one enormous string, thousands of card-like
numbers, and a large reply cut off mid-value.
"""

from __future__ import annotations

import json
from typing import Any

from handoff_gate.schemas import example_path

MB = 1024 * 1024


def _dump(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def small_design(target: int = 2048) -> bytes:
    """The built-in design example, its file list grown until the payload is ~``target`` bytes."""
    design = json.loads(example_path("design/v1").read_bytes())
    files = list(design["files"])
    n = 0
    while len(_dump(design)) < target:
        n += 1
        files.append({"path": f"src/module_{n}.py", "purpose": f"Helper module number {n}."})
        design["files"] = files
    return _dump(design)


def _item(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "path": f"src/pkg_{i % 97}/module_{i}.py",
        "summary": f"Parses record batch {i} and returns the normalised rows for the loader.",
        "tags": ["python", f"pkg-{i % 97}", "parser"],
        "size": (i * 7919) % 50_000,
    }


def inventory(size: int) -> bytes:
    """A valid ``bench_inventory/v1`` payload of about ``size`` bytes (~150 B per item)."""
    per_item = len(_dump(_item(10_000))) + 1
    count = max(1, size // per_item)
    return _dump(
        {
            "repository": "github.com/example/monorepo",
            "items": [_item(i) for i in range(1, count + 1)],
        }
    )


def nested(size: int) -> bytes:
    """Arrays nested ``size / 2`` deep under one key: must end as ``too_deep``, not a crash."""
    depth = max(1, (size - 12) // 2)
    return b'{"items":' + b"[" * depth + b"]" * depth + b"}"


def huge_string(size: int) -> bytes:
    """One string field of ``size`` bytes of ordinary prose (over the contract's cap)."""
    sentence = "The loader retries each batch twice before it reports the failure upstream. "
    text = (sentence * (size // len(sentence) + 1))[:size]
    return _dump({"repository": text, "items": [_item(1)]})


def card_like_numbers(size: int) -> bytes:
    """Summaries full of 16-digit numbers with a card prefix; about one in ten passes Luhn."""
    items = []
    i = 0
    total = 40
    while total < size:
        i += 1
        item = _item(i)
        item["summary"] = f"Order 4111 1111 {i % 10000:04d} {(i * 37) % 10000:04d} settled"
        items.append(item)
        total += len(_dump(item)) + 1
    return _dump({"repository": "billing", "items": items})


def truncated(size: int) -> bytes:
    """A valid inventory cut off mid-value, as a reply stopped at its token limit is."""
    data = inventory(size)
    return data[: len(data) * 2 // 3]


#: Worst-case classes by name; each is checked against ``bench_inventory/v1``.
WORST_CASES = {
    "nested": nested,
    "huge_string": huge_string,
    "card_numbers": card_like_numbers,
    "truncated": truncated,
}


def manifest(size: int) -> bytes:
    """A valid ``feature_manifest/v1`` of about ``size`` bytes: long prose descriptions.

    The contract caps it at 500 features of 20,000 characters, so about 9.5 MB at most.
    """
    count = 500
    desc_len = max(100, min(19_000, size // count - 120))
    story = "As an operator I can review each handoff field by field before it moves on. "
    description = (story * (desc_len // len(story) + 1))[:desc_len].strip()
    features = [
        {"id": i, "title": f"Feature {i}: review queue", "description": description}
        for i in range(1, count + 1)
    ]
    return _dump({"features": features})


def inventory_leaves(leaves: int) -> bytes:
    """A valid inventory with about ``leaves`` leaf values (7 per item: 4 scalars, 3 tags)."""
    count = max(1, leaves // 7)
    return _dump(
        {
            "repository": "github.com/example/monorepo",
            "items": [_item(i) for i in range(1, count + 1)],
        }
    )
