"""The decision file's model, apart from ``gates.decisions`` so importing that stays cheap.

Defining any pydantic model loads pydantic's model machinery; ``handoff-gate watch``
imports ``gates.decisions`` before its first paint but reads no decision until after
it. ``gates.decisions.Decision`` is this class, loaded on first use.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from handoff_gate.gates.decisions import Action, Category
from handoff_gate.gates.findings import Verdict


class Decision(BaseModel):
    """One decision file, ``RUN_DIR/decisions/{handoff}.json``.

    ``defer_build``: the validator is built when the first decision is read or written.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    format: Literal["handoff-gate-decision/1"] = "handoff-gate-decision/1"
    handoff: str = Field(pattern=r"^[0-9]{4,}-[a-z0-9][a-z0-9_-]{0,39}$")
    run: str = Field(min_length=1, max_length=200)
    action: Action
    reason: str | None = Field(default=None, max_length=10_000)
    category: Category | None = None
    reviewer: str = Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]+$")
    decided_at: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    verdict: Verdict
    codes: tuple[str, ...] = ()
