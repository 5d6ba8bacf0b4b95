"""JSON Schema documents as contracts: read one, name it by digest, build its models once.

A pipeline in any language describes its handoff as JSON Schema; the reviewer's side
never imports pipeline code for it. ``contract_from_json_schema`` turns the document
into the project's strict pydantic models (``json_schema_build``), which every stage of
inspection already knows how to use, and caches them by the sha256 of the document's
canonical bytes: the same schema, however its keys are ordered or spaced, is built
once per process and is the same contract.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from handoff_gate.gates.contracts.json_schema_build import Builder
from handoff_gate.gates.contracts.json_schema_keywords import JsonSchemaError

__all__ = [
    "MAX_SCHEMA_BYTES",
    "JsonSchemaError",
    "canonical_bytes",
    "contract_from_json_schema",
    "read_json_schema",
    "schema_sha256",
]

#: A contract is a page of text, not a data set: a larger document is refused unread.
MAX_SCHEMA_BYTES = 1024 * 1024
#: How many built contracts a process keeps (a reviewer's TUI meets a handful).
CACHE_SIZE = 256

_cache: OrderedDict[str, type[BaseModel]] = OrderedDict()
_lock = threading.Lock()


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise JsonSchemaError(f"the schema has the key {key!r} twice in one object")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise JsonSchemaError(f"the schema holds {name}, which is not JSON")


def read_json_schema(data: bytes) -> dict[str, Any]:
    """A schema document from its bytes: strict JSON, one object, no repeated keys
    (which of two ``"type"`` keys would count is a guess the gate does not make)."""
    if len(data) > MAX_SCHEMA_BYTES:
        raise JsonSchemaError(f"the schema is over the {MAX_SCHEMA_BYTES}-byte limit")
    try:
        text = data.decode("utf-8")
        found = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise JsonSchemaError(f"the schema is not UTF-8 (byte {exc.start})") from exc
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, JsonSchemaError):
            raise
        raise JsonSchemaError(f"the schema is not JSON: {exc}") from exc
    if not isinstance(found, dict):
        raise JsonSchemaError("the schema must be a JSON object")
    return found


def canonical_bytes(schema: Mapping[str, Any]) -> bytes:
    """The document's one spelling: sorted keys, no spaces, ASCII escapes."""
    try:
        return json.dumps(
            schema, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
        ).encode()
    except (TypeError, ValueError) as exc:
        raise JsonSchemaError(f"the schema is not JSON data: {exc}") from exc


def schema_sha256(schema: Mapping[str, Any] | bytes) -> str:
    """The sha256 (hex) that names the contract: of its canonical bytes."""
    document = read_json_schema(bytes(schema)) if isinstance(schema, bytes) else schema
    return hashlib.sha256(canonical_bytes(document)).hexdigest()


def contract_from_json_schema(schema: Mapping[str, Any] | bytes) -> type[BaseModel]:
    """The contract model for a JSON Schema document, built once per digest.

    Raises ``JsonSchemaError`` (one line naming the keyword and its JSON Pointer) for a
    document that uses anything the inspector would not enforce.
    """
    document = read_json_schema(bytes(schema)) if isinstance(schema, bytes) else schema
    canonical = canonical_bytes(document)
    digest = hashlib.sha256(canonical).hexdigest()
    with _lock:
        found = _cache.get(digest)
        if found is not None:
            _cache.move_to_end(digest)
            return found
    # Built from a copy (in the document's own order: it is the order of the field rows),
    # so no caller's later change to its dict reaches the contract.
    title = document.get("title")
    name = title if isinstance(title, str) and title.strip() else "JsonSchemaContract"
    model = Builder(json.loads(json.dumps(document)), name).build().root
    with _lock:
        _cache[digest] = model
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return model
