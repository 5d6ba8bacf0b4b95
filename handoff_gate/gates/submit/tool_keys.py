"""What names a stored tool call: its phase, its contract's id and its idempotency key.

Plain ``hashlib``, apart from ``submit.tool_call``'s pydantic models, so that a coding
agent's hook (``integrations.hook_fast``) can name a call as ``submit_tool_call`` would
without loading them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from handoff_gate.gates.contracts.canonical import document_sha256

#: The phase a tool call is filed under unless the caller names one (policy rules and
#: handoff ids speak phases; the tool's own name stays free text in ``tool.name``).
TOOL_PHASE = "tool-call"
#: How much of the schema's digest names its contract (``tool_<16 hex>/v1``).
DIGEST_CHARS = 16


def tool_schema_id(parameters: Mapping[str, Any]) -> str:
    """The contract id a tool's argument schema is stored under in a run."""
    return f"tool_{document_sha256(parameters)[:DIGEST_CHARS]}/v1"


def call_key(thread: str | None, call_id: str, digest: str) -> str:
    """The idempotency key of a call: its thread and id, bound to ``digest``, what is
    approved (``approved_digest``; the run scopes every key)."""
    return f"tool_call:{thread or ''}:{call_id}:{digest}"


def approved_bytes_digest(name: str, parameters: Mapping[str, Any], args: bytes) -> str:
    """A digest of what approving a call approves: the tool's name, its argument
    schema's digest and the argument bytes as stored (each length-framed)."""
    digest = hashlib.sha256()
    for part in (name.encode(), document_sha256(parameters).encode(), args):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()
