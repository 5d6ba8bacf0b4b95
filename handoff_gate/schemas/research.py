"""What a researcher hands a coder: a claim, the ids that back it, and what is still open."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from handoff_gate.schemas.base import Contract, Issue
from handoff_gate.schemas.checks import duplicates, strings
from handoff_gate.schemas.types import Line, Ref, Text


class ResearchBrief(Contract):
    """A researcher's finding for a coder, backed by citation ids rather than inlined text."""

    brief: Text = Field(description="The finding the coder acts on, in a few sentences.")
    citations: list[Ref] = Field(
        min_length=1,
        max_length=100,
        description="Ids of the artifacts that back the brief (e.g. 'log-17', 'kb-44').",
    )
    open_questions: list[Line] = Field(
        max_length=50, description="Questions the research left open; may be empty."
    )

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        """A citation listed twice usually means one was meant to be another id."""
        return duplicates(((f"citations[{i}]", c) for i, c in strings(data, "citations")), "id")
