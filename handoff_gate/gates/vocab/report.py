"""What inspection returns: a verdict, its findings, and enough context to show each field.

A ``Report`` is immutable and UI-free. The TUI and the CLI both render it; neither
re-derives anything the report already says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.vocab.absent import ABSENT
from handoff_gate.gates.vocab.findings import Finding, Severity, Verdict, verdict_of

if TYPE_CHECKING:
    from pydantic import BaseModel

    from handoff_gate.gates.vocab.envelope import Envelope


class FieldState(StrEnum):
    """How one field arrived; a row can carry several (e.g. dropped and secret)."""

    OK = "ok"
    EMPTY = "empty"
    DEFAULTED = "defaulted"
    MISSING = "missing"
    INVALID = "invalid"
    DROPPED = "dropped"
    #: A tool call's key its contract does not name: delivered as sent if approved.
    UNNAMED = "unnamed"
    SECRET = "secret"  # noqa: S105 - a finding code, not a credential
    UNSAFE = "unsafe"


@dataclass(frozen=True, slots=True)
class FieldRow:
    """One row of the field-by-field view.

    ``value`` is untrusted: render it with ``safe_text.visible``, never as markup.
    ``blocking_inside`` and ``warnings_inside`` count the findings further down, so a
    collapsed row can say what it hides.
    """

    path: str
    key: str
    value: Any
    states: tuple[FieldState, ...]
    _: KW_ONLY
    message: str = ""
    child_count: int = 0
    blocking_inside: int = 0
    warnings_inside: int = 0
    description: str = ""

    @property
    def worst_inside(self) -> Severity | None:
        """The worst finding below the row (block over warn; ``None``: nothing inside is
        wrong), so a collapsed row never looks fine while it holds a blocking one."""
        if self.blocking_inside:
            return Severity.BLOCK
        if self.warnings_inside:
            return Severity.WARN
        return None


@dataclass(frozen=True, slots=True)
class NamedField:
    """A field a JSON Schema contract names at one place of the payload: its key, what
    the contract says of it, whether it is required, and its default (``ABSENT``: none)."""

    key: str
    description: str = ""
    required: bool = False
    default: Any = ABSENT


@dataclass(frozen=True, kw_only=True)
class Report:
    """The outcome of inspecting one handoff (or one bare payload).

    ``sha256``/``size`` describe the exact bytes inspected (the whole handoff file for an
    envelope). ``delivered`` is the validated, allow-listed payload that may cross the
    boundary; ``None`` unless the contract validated.
    """

    sha256: str
    size: int
    findings: tuple[Finding, ...]
    schema_id: str | None = None
    raw_text: str = ""
    payload: Any = None
    payload_is_partial: bool = False
    delivered: dict[str, Any] | None = None
    envelope: Envelope | None = None
    contract: type[BaseModel] | None = field(default=None, repr=False)
    model: BaseModel | None = field(default=None, repr=False)
    #: Under a JSON Schema contract: the fields it names at each object of the payload
    #: (by field path), as the validator evaluated them; ``None`` under a class contract.
    layout: Mapping[str, tuple[NamedField, ...]] | None = field(default=None, repr=False)

    @property
    def verdict(self) -> Verdict:
        return verdict_of(self.findings)

    @property
    def approvable(self) -> bool:
        return self.verdict is Verdict.APPROVABLE

    @property
    def blocking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.BLOCK)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.WARN)

    @property
    def approx_tokens(self) -> int:
        """A rough token count (about four bytes a token), for budgeting at a glance."""
        return (self.size + 3) // 4

    def to_json(self) -> dict[str, Any]:
        """The stable ``check --json`` shape (documented in docs/protocol.md)."""
        return {
            "verdict": self.verdict.value,
            "schema": self.schema_id,
            "sha256": self.sha256,
            "size": self.size,
            "findings": [f.to_json() for f in self.findings],
        }
