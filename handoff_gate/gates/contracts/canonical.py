"""A JSON Schema document's one spelling and the digest that names it.

Plain ``json`` and ``hashlib``, apart from ``contracts.json_schema`` (which compiles
documents and loads pydantic), so that naming a stored contract costs a hook that
only stores a tool call nothing more than hashing it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def canonical_bytes(schema: Mapping[str, Any]) -> bytes:
    """The document's one spelling: sorted keys, no spaces, ASCII escapes
    (``TypeError``/``ValueError``/``RecursionError`` for what is not JSON data)."""
    return json.dumps(
        schema, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode()


def document_sha256(schema: Mapping[str, Any]) -> str:
    """The sha256 (hex) of the document's canonical bytes: the digest that names it."""
    return hashlib.sha256(canonical_bytes(schema)).hexdigest()


def document_bytes(schema: Mapping[str, Any]) -> bytes:
    """The bytes a contract is stored as in a run: compact JSON in the document's own key
    order (the order of the field rows a reviewer reads); its digest is of the canonical
    form."""
    return json.dumps(schema, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
