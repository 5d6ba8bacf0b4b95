"""The audit log's chain: each line names the sha256 of the line before it. Both stores
write lines with ``chained_line``, so one reader verifies either."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

#: ``prev`` of the first line of a log.
GENESIS = "0" * 64


def line_hash(line: bytes) -> str:
    """The ``prev`` a following line names (``line`` without its newline)."""
    return hashlib.sha256(line).hexdigest()


def chained_line(last_line: bytes | None, event: Mapping[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The bytes of the next line (without newline) and the record it holds."""
    record = dict(event)
    record["prev"] = GENESIS if last_line is None else line_hash(last_line)
    line = json.dumps(record, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return line.encode(), record
