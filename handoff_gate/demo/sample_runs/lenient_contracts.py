"""A user's own planner → designer contracts, written the lenient way many pipelines start.

Every field has a default, so ``{}`` validates. That is the failure this module exists to
show: the gate must still tell a reviewer which fields were supplied and which were filled
in by defaults. Load it with ``--schemas sample_runs/lenient_contracts.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from handoff_gate.schemas.base import Issue


class LenientPlan(BaseModel):
    """Phase 1 output: what the designer builds from."""

    problem_statement: str = ""
    goals: list[str] = Field(default_factory=list)
    steps: list[str] = Field(default_factory=list)
    risks: list[str] = Field(default_factory=list)


class LenientFile(BaseModel):
    path: str = ""
    purpose: str = ""


class LenientDesign(BaseModel):
    """Phase 2 output: the files to write and where execution starts."""

    title: str = ""
    files: list[LenientFile] = Field(default_factory=list)
    entry_point: str = ""
    notes: str = ""

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        """The entry point must be one of the designed files, whatever else failed."""
        entry = data.get("entry_point")
        files = data.get("files")
        if not isinstance(entry, str) or not entry or not isinstance(files, list):
            return []
        paths = {f.get("path") for f in files if isinstance(f, Mapping)}
        if entry in paths:
            return []
        return [Issue("entry_point", "the entry point is not one of the design's files")]


SCHEMAS: dict[str, type[BaseModel]] = {
    "lenient_plan/v1": LenientPlan,
    "lenient_design/v1": LenientDesign,
}
