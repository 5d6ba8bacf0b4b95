"""The exact bytes a signature covers: a decision, or a producer's handoff.

Why a statement and not the decision file: files get re-encoded, reformatted and extended,
and a signature must survive that while still binding every field that matters. A statement
is a fixed first line naming its kind and version, then the fields as compact JSON with
sorted keys and ASCII escapes, so the same fields always give the same bytes::

    handoff-gate-decision/1\\n{"action":"approve",...}

An approval of an edit adds ``edited_sha256``; without an edit there is no such key, so
statements signed before edits existed keep their bytes, and an edit can never pass as
the original's approval. The prefix keeps a decision signature from ever being replayed
as a handoff signature (or a future version's). Values are type-checked, not coerced: a
wrong type is a ``StatementError``, never a differently-signed string.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TypedDict, Unpack

from handoff_gate.gates.vocab.ids import PHASE_PATTERN
from handoff_gate.gates.vocab.keywords import checked

DECISION_PREFIX = b"handoff-gate-decision/1\n"
HANDOFF_PREFIX = b"handoff-gate-handoff/1\n"
NO_LOG_HEAD = "0" * 64
ACTIONS = ("approve", "reject")

_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z\Z")


class StatementError(ValueError):
    """A field that cannot go into a statement; the message is one line naming it."""


def _text(name: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise StatementError(f"{name}: must be a non-empty string, not {type(value).__name__}")
    return value


def _optional(name: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise StatementError(f"{name}: must be a string or None, not {type(value).__name__}")
    return value


def _matching(name: str, value: object, pattern: re.Pattern[str], shape: str) -> str:
    text = _text(name, value)
    if not pattern.match(text):
        raise StatementError(f"{name}: must be {shape}")
    return text


def _at(value: object) -> str:
    text = _matching("at", value, _AT, "UTC ISO-8601 with milliseconds and Z")
    try:
        datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        raise StatementError("at: not a real date and time") from None
    return text


def _common(given: _Statement) -> dict[str, str | None]:
    """The checked fields every statement has."""
    return {
        "run": _text("run", given["run"]),
        "handoff": _text("handoff", given["handoff"]),
        "sha256": _matching("sha256", given["sha256"], _SHA256, "64 lowercase hex digits"),
        "principal": _text("principal", given["principal"]),
        "at": _at(given["at"]),
    }


def _encode(prefix: bytes, fields: dict[str, str | None]) -> bytes:
    body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return prefix + body.encode("ascii")


class _Statement(TypedDict):
    """The fields every statement has: where, which bytes, who, and when."""

    run: str
    handoff: str
    sha256: str
    principal: str
    at: str


class _Decision(_Statement):
    action: str
    reason: str | None
    category: str | None
    log_head: str


class DecisionFields(_Decision, total=False):
    """What ``decision_statement`` binds (see there)."""

    edited_sha256: str | None


class _Handoff(_Statement):
    phase: str
    schema: str


class HandoffFields(_Handoff, total=False):
    """What ``handoff_statement`` binds (see there)."""

    expires_at: str | None


def decision_statement(**given: Unpack[DecisionFields]) -> bytes:
    """What a decider signs: this verdict, on these bytes, after this much of the audit
    log (``log_head``), so a signed decision cannot be replayed into another history."""
    checked("decision_statement", given, DecisionFields)
    action, edited_sha256 = given["action"], given.get("edited_sha256")
    if action not in ACTIONS:
        raise StatementError(f"action: must be one of {', '.join(ACTIONS)}")
    fields = {
        **_common(given),
        "action": str(action),
        "reason": _optional("reason", given["reason"]),
        "category": _optional("category", given["category"]),
        "log_head": _matching("log_head", given["log_head"], _SHA256, "64 lowercase hex digits"),
    }
    if edited_sha256 is not None:
        if action != "approve":
            raise StatementError("edited_sha256: only an approval approves an edit")
        fields["edited_sha256"] = _matching(
            "edited_sha256", edited_sha256, _SHA256, "64 lowercase hex digits"
        )
    return _encode(DECISION_PREFIX, fields)


def handoff_statement(**given: Unpack[HandoffFields]) -> bytes:
    """What a producer signs: these payload bytes, as this handoff of this phase and schema,
    and its deadline when it has one (a handoff without one signs what it always did)."""
    checked("handoff_statement", given, HandoffFields)
    fields = {
        **_common(given),
        "phase": _matching("phase", given["phase"], PHASE_PATTERN, "a phase name like 'plan'"),
        "schema": _text("schema", given["schema"]),
    }
    expires_at = given.get("expires_at")
    if expires_at is not None:
        fields["expires_at"] = _matching("expires_at", expires_at, _AT, "a UTC time with Z")
    return _encode(HANDOFF_PREFIX, fields)
