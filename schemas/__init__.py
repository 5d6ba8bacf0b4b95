"""Built-in handoff contracts, by versioned id.

A user module passed with ``--schemas`` exposes a ``SCHEMAS`` mapping of the same shape.
``EXAMPLES`` holds one realistic, valid payload per built-in (``<name>_v1.json``) for
tests, the benchmark and sample runs.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from handoff_gate.schemas.baton import Baton, BatonPatch
from handoff_gate.schemas.delivery import FeatureManifest, GapAnalysis, Learning, VerifyResult
from handoff_gate.schemas.execution import ExecutorHandoff
from handoff_gate.schemas.planning import Design, Plan
from handoff_gate.schemas.research import ResearchBrief

SCHEMAS: dict[str, type[BaseModel]] = {
    "research_brief/v1": ResearchBrief,
    "plan/v1": Plan,
    "design/v1": Design,
    "baton/v1": Baton,
    "baton_patch/v1": BatonPatch,
    "executor_handoff/v1": ExecutorHandoff,
    "feature_manifest/v1": FeatureManifest,
    "gap_analysis/v1": GapAnalysis,
    "verify_result/v1": VerifyResult,
    "learning/v1": Learning,
}

EXAMPLES = Path(__file__).parent / "examples"


def example_path(schema_id: str) -> Path:
    """The example payload file for a built-in id: ``plan/v1`` -> ``examples/plan_v1.json``."""
    return EXAMPLES / (schema_id.replace("/", "_") + ".json")


__all__ = ["EXAMPLES", "SCHEMAS", "example_path"]
