"""A JSON Schema document's one spelling and the digest that names it: plain ``json``,
apart from ``json_schema`` (which loads pydantic), so a hook that only stores a tool
call pays for hashing alone.
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
    return hashlib.sha256(canonical_bytes(schema)).hexdigest()


def document_bytes(schema: Mapping[str, Any]) -> bytes:
    """As stored in a run: in the document's own key order (the order of the rows a
    reviewer reads); its digest is of the canonical form."""
    return json.dumps(schema, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
