"""The fixed vocabulary of inspection findings.

Codes are a public contract (scripts match on them), so they live in one enum and
never change spelling. Severity decides approvability: any ``block`` finding makes a
handoff impossible to approve.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Code(StrEnum):
    """Every finding code the gate can emit (documented in docs/protocol.md)."""

    EMPTY_INPUT = "empty_input"
    OVERSIZE = "oversize"
    NOT_UTF8 = "not_utf8"
    NOT_JSON = "not_json"
    REFUSAL = "refusal"
    TRUNCATED = "truncated"
    DUPLICATE_KEY = "duplicate_key"
    NOT_OBJECT = "not_object"
    TOO_DEEP = "too_deep"
    UNKNOWN_SCHEMA = "unknown_schema"
    MISSING_FIELD = "missing_field"
    INVALID_FIELD = "invalid_field"
    NO_FIELDS = "no_fields"
    SECRET = "secret"  # noqa: S105 - a finding code, not a credential
    EMPTY_FIELD = "empty_field"
    DEFAULTED_FIELD = "defaulted_field"
    UNKNOWN_KEY = "unknown_key"
    OPEN_KEY = "open_key"
    UNNAMED_KEY = "unnamed_key"
    UNCHECKED_FORMAT = "unchecked_format"
    UNSAFE_TEXT = "unsafe_text"
    MODIFIED_UPSTREAM = "modified_upstream"
    CROSS_FIELD = "cross_field"
    APPEND_ONLY = "append_only"
    BAD_ENVELOPE = "bad_envelope"
    MISPLACED = "misplaced"
    UNSIGNED_HANDOFF = "unsigned_handoff"
    UNKNOWN_PRODUCER = "unknown_producer"
    INTERACTIVE_SESSION = "interactive_session"
    UNDELIVERABLE = "undeliverable"
    OVER_BUDGET = "over_budget"
    INTERNAL_ERROR = "internal_error"


class Severity(StrEnum):
    BLOCK = "block"
    WARN = "warn"


class Verdict(StrEnum):
    APPROVABLE = "approvable"
    BLOCKED = "blocked"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem, located by a field path such as ``files[1].path`` ("" = whole payload).

    ``message`` is human text; it may quote payload content, so it is untrusted for
    display and must already be masked where it concerns a secret.
    """

    code: Code
    path: str
    severity: Severity
    message: str

    def to_json(self) -> dict[str, str]:
        return {
            "code": self.code.value,
            "path": self.path,
            "severity": self.severity.value,
            "message": self.message,
        }


def verdict_of(findings: tuple[Finding, ...] | list[Finding]) -> Verdict:
    """Blocked as soon as one finding blocks; nothing else is needed to be approvable."""
    if any(f.severity is Severity.BLOCK for f in findings):
        return Verdict.BLOCKED
    return Verdict.APPROVABLE
