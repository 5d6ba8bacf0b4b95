"""JSON Schema documents as contracts: read one, name it by digest, compile it once.

A pipeline in any language describes its handoff as JSON Schema; the reviewer's side
never imports pipeline code for it. Validity is decided by ``jsonschema-rs``, which
passes the official JSON-Schema-Test-Suite. Nothing is ever fetched: a ``$ref`` (or
``$schema``) naming a resource outside the document is refused, in one line.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs
from pydantic import BaseModel

from handoff_gate.gates.contracts.canonical import canonical_bytes as _canonical_bytes
from handoff_gate.gates.contracts.registry import RegistryError
from handoff_gate.gates.vocab.fieldpaths import pointer_step

#: A contract is a page of text, not a data set: a larger document is refused unread.
MAX_SCHEMA_BYTES = 1024 * 1024
#: Real schemas stay under 20; nothing recurses over the document, so this only bounds
#: what is stored and shown.
MAX_SCHEMA_DEPTH = 256
#: Compiled contracts a process keeps (a reviewer's TUI meets a handful).
CACHE_SIZE = 256

#: The formats ``jsonschema-rs`` asserts. Any other is accepted with a warning on the
#: field it describes ("format X not checked"), never silently passed.
KNOWN_FORMATS = frozenset(
    {
        "date",
        "date-time",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uri-template",
        "uuid",
        "json-pointer",
        "relative-json-pointer",
        "regex",
    }
)

#: Keywords holding a map of subschemas, or one or a list: the walk follows only these,
#: so a property *named* ``format`` is never taken for the keyword.
SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
SCHEMA_VALUES = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "prefixItems",
        "allOf",
        "anyOf",
        "oneOf",
    }
)


class JsonSchemaError(RegistryError):
    """A schema document the gate will not use, with one line saying why."""


@dataclass(frozen=True, eq=False)
class JsonSchemaContract:
    """``unknown_formats``: the ``format`` the validator does not assert, by pointer."""

    document: Mapping[str, Any]
    sha256: str
    validator: Any = field(repr=False)
    unknown_formats: Mapping[str, str] = field(default_factory=dict)
    _pointers: dict[str, Any] = field(default_factory=dict, repr=False)
    #: What inspection worked out once about a schema location (``inspect.schema_check``).
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def subschema(self, pointer: str) -> Any:
        """``None`` when there is none; remembered, as inspection asks for the same few
        pointers for every payload."""
        try:
            return self._pointers[pointer]
        except KeyError:
            pass
        node: Any = self.document
        for raw in pointer.split("/")[1:] if pointer else ():
            step = raw.replace("~1", "/").replace("~0", "~")
            if type(node) is dict:
                node = node.get(step)
            elif type(node) is list and step.isdigit() and int(step) < len(node):
                node = node[int(step)]
            else:
                node = None
                break
        if len(self._pointers) < MAX_POINTERS:
            self._pointers[pointer] = node
        return node


MAX_POINTERS = 65_536

Contract = type[BaseModel] | JsonSchemaContract
ContractsById = Mapping[str, Contract]

_cache: OrderedDict[str, JsonSchemaContract] = OrderedDict()
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
    """Strict JSON, one object, no repeated keys (which of two ``"type"`` keys would
    count is a guess the gate does not make)."""
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
        raise JsonSchemaError(f"the schema is not JSON: {_first_line(exc)}") from exc
    if not isinstance(found, dict):
        raise JsonSchemaError("the schema must be a JSON object")
    return found


def canonical_bytes(schema: Mapping[str, Any]) -> bytes:
    try:
        return _canonical_bytes(schema)
    except (TypeError, ValueError, RecursionError) as exc:
        raise not_json_data(exc) from exc


def not_json_data(exc: Exception) -> JsonSchemaError:
    return JsonSchemaError(f"the schema is not JSON data: {_first_line(exc)}")


def schema_sha256(schema: Mapping[str, Any] | bytes) -> str:
    document = read_json_schema(bytes(schema)) if isinstance(schema, bytes) else schema
    return hashlib.sha256(canonical_bytes(document)).hexdigest()


def contract_from_json_schema(schema: Mapping[str, Any] | bytes) -> JsonSchemaContract:
    """Compiled once per digest of its canonical bytes, however its keys are ordered."""
    document = read_json_schema(bytes(schema)) if isinstance(schema, bytes) else schema
    canonical = canonical_bytes(document)
    digest = hashlib.sha256(canonical).hexdigest()
    with _lock:
        found = _cache.get(digest)
        if found is not None:
            _cache.move_to_end(digest)
            return found
    # A copy (in the document's own order: it is the order of the field rows), so no
    # caller's later change to its dict reaches the contract.
    copy = json.loads(json.dumps(document))
    formats = _unknown_formats(copy)
    contract = JsonSchemaContract(copy, digest, _compile(copy), formats)
    with _lock:
        _cache[digest] = contract
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return contract


#: The metaschemas the validator knows without fetching: a reference to one names "a
#: JSON Schema", which any JSON object may be written to satisfy.
META_SCHEMAS = frozenset(
    f"{scheme}://json-schema.org/{draft}"
    for scheme in ("http", "https")
    for draft in (
        "draft/2020-12/schema",
        "draft/2019-09/schema",
        "draft-07/schema",
        "draft-06/schema",
        "draft-04/schema",
    )
)
#: What ``$schema`` may name (any other is refused: the library would try to fetch an
#: unknown metaschema). Without ``$schema``, Draft 2020-12.
DRAFTS = META_SCHEMAS | {f"{uri}#" for uri in META_SCHEMAS}
_REMOTE = re.compile(r"Resource '([^']*)' is not present")


def _compile(document: dict[str, Any]) -> Any:
    declared = document.get("$schema")
    if declared is not None and declared not in DRAFTS:
        shown = declared if isinstance(declared, str) else json.dumps(declared)
        raise JsonSchemaError(
            f"$schema {shown[:200]!r} is not a JSON Schema draft the gate knows "
            "(2020-12, 2019-09, 7, 6 or 4); nothing is fetched"
        )
    try:
        try:
            jsonschema_rs.meta.validate(document)
        except jsonschema_rs.ValidationError as error:
            where = "".join(f"/{pointer_step(str(s))}" for s in error.instance_path) or "/"
            raise JsonSchemaError(
                f"not a valid JSON Schema at {where}: {_first_line(error.message)}"
            ) from error
        return jsonschema_rs.validator_for(document, validate_formats=True, retriever=_refuse)
    except JsonSchemaError:
        raise
    except Exception as exc:  # the library's own refusals: one line, never a traceback
        remote = _REMOTE.search(str(exc))
        if remote is not None:
            raise JsonSchemaError(
                f"it refers to {remote.group(1)[:200]}, outside the document; nothing is "
                "fetched (put what it names under $defs)"
            ) from exc
        raise JsonSchemaError(f"the schema cannot be used: {_first_line(exc)}") from exc


def _refuse(uri: str) -> Any:
    raise JsonSchemaError(f"{uri} is outside the document")


def _unknown_formats(document: Any) -> dict[str, str]:
    """Iterative and bounded: a hostile nesting is a one-line refusal, not a
    ``RecursionError``."""
    found: dict[str, str] = {}
    for pointer, node in _subschemas(document):
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in KNOWN_FORMATS:
            found[pointer] = fmt
    return found


def _subschemas(document: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    stack: list[tuple[str, Any, int]] = [("", document, 0)]
    while stack:
        pointer, node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise JsonSchemaError(f"the schema nests deeper than {MAX_SCHEMA_DEPTH} levels")
        if not isinstance(node, Mapping):
            continue
        yield pointer, node
        for key, value in node.items():
            here = f"{pointer}/{pointer_step(key)}"
            if key in SCHEMA_MAPS and isinstance(value, Mapping):
                stack.extend((f"{here}/{pointer_step(k)}", v, depth + 1) for k, v in value.items())
            elif key in SCHEMA_VALUES and isinstance(value, list):
                stack.extend((f"{here}/{i}", v, depth + 1) for i, v in enumerate(value))
            elif key in SCHEMA_VALUES:
                stack.append((here, value, depth + 1))


def _first_line(exc: object) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
