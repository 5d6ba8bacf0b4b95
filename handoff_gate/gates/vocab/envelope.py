"""The handoff envelope: one JSON file per handoff in a run's ``handoffs/`` folder.

The envelope carries bookkeeping (run, order, phase, roles, schema, producer signals)
around what the producer sent. ``raw`` is the producer's exact text; ``payload`` is a
parsed object when the upstream code handed one over. When both are present they must
agree, otherwise inspection reports ``modified_upstream``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from handoff_gate.gates.vocab.deadline import AT_REGEX
from handoff_gate.gates.vocab.ids import ID_REGEX, PHASE_REGEX, PRINCIPAL_PATTERN
from handoff_gate.gates.vocab.limits import MAX_TOOL_DESCRIPTION as _MAX_TOOL_DESCRIPTION
from handoff_gate.gates.vocab.limits import MAX_TOOL_TEXT as _MAX_TOOL_TEXT

#: ``PRINCIPAL_PATTERN`` as a pydantic (Rust) pattern.
PRINCIPAL_REGEX = PRINCIPAL_PATTERN.pattern.removesuffix(r"\Z") + "$"

FORMAT: Final = "handoff-gate/1"

#: Provider stop reasons that mean the reply was cut off by a length limit.
LENGTH_STOPS = frozenset({"length", "max_tokens", "max_output_tokens", "model_length"})


class Producer(BaseModel):
    """Signals from the model call that produced the payload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    finish_reason: str | None = None
    refusal: str | None = None
    model: str | None = None
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)


#: How long each free-text part of a tool call may be (``vocab.limits``, one place).
MAX_TOOL_TEXT = _MAX_TOOL_TEXT
MAX_TOOL_DESCRIPTION = _MAX_TOOL_DESCRIPTION


class ToolCall(BaseModel):
    """The tool call a ``kind: "tool_call"`` handoff asks a person to allow (its argument
    schema is the handoff's contract). All of it is the producer's text: bounded here,
    sanitised wherever shown.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=MAX_TOOL_TEXT)
    call_id: str = Field(min_length=1, max_length=MAX_TOOL_TEXT)
    description: str | None = Field(default=None, max_length=MAX_TOOL_DESCRIPTION)
    agent: str | None = Field(default=None, max_length=MAX_TOOL_TEXT)
    thread: str | None = Field(default=None, max_length=MAX_TOOL_TEXT)
    #: Approvable only while a wait on it is live (``gates.vocab.caller``).
    sole_waiter: Literal[True] | None = None


class Envelope(BaseModel):
    """A handoff file; its fields are docs/protocol.md's "Handoff envelope"."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    format: Literal["handoff-gate/1"] = FORMAT
    id: str = Field(pattern=ID_REGEX)
    run: str = Field(min_length=1, max_length=200)
    seq: int = Field(ge=1)
    phase: str = Field(pattern=PHASE_REGEX)
    from_role: str | None = Field(default=None, alias="from", max_length=100)
    to_role: str | None = Field(default=None, alias="to", max_length=100)
    schema_id: str = Field(alias="schema", min_length=1, max_length=200)
    #: Readers resolve a stored contract by it, never by the id alone.
    schema_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    created: str
    producer: Producer = Producer()
    raw: str | None = None
    raw_base64: str | None = None
    payload: Any = None
    signer: str | None = Field(default=None, pattern=PRINCIPAL_REGEX)
    signature: str | None = Field(default=None, max_length=4096)
    expires_at: str | None = Field(default=None, pattern=AT_REGEX)
    kind: Literal["output", "tool_call"] = "output"
    tool: ToolCall | None = None

    @model_validator(mode="after")
    def _tool_with_kind(self) -> Envelope:
        if (self.kind == "tool_call") != (self.tool is not None):
            raise ValueError('a "tool_call" handoff carries "tool", and only it does')
        return self

    @property
    def has_payload(self) -> bool:
        """Whether upstream supplied a parsed payload (JSON ``null`` included)."""
        return "payload" in self.model_fields_set

    def producer_bytes(self) -> bytes | None:
        """The producer's exact output (``raw`` as UTF-8, or ``raw_base64`` decoded);
        ``None`` when upstream handed over only a parsed ``payload``; ``ValueError`` for
        both forms present, or bad base64."""
        if self.raw is not None and self.raw_base64 is not None:
            raise ValueError(
                "carries both raw and raw_base64; a producer's output is one or the other"
            )
        if self.raw is not None:
            return self.raw.encode("utf-8", "surrogatepass")
        if self.raw_base64 is None:
            return None
        try:
            return base64.b64decode(self.raw_base64, validate=True)
        except binascii.Error as exc:
            raise ValueError("raw_base64 is not valid base64") from exc
