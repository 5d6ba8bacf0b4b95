"""Built-in handoff contracts, by versioned id.

Each built-in is named by where its class lives (``module:Class``) rather than imported
here, so a command that handles one plan loads the plan's module, not all ten.
``EXAMPLES`` holds one valid payload per built-in; ``HARNESS_TOOLS`` the argument
contracts of the coding agents' own tools, as JSON Schema.
"""

from __future__ import annotations

from pathlib import Path

# One import identity: reached as ``schemas`` (a checkout's top-level folder on sys.path),
# every class would exist twice and isinstance checks would fail between the two.
if __name__ != "handoff_gate.schemas":
    raise ImportError(f"import handoff_gate.schemas, not {__name__}")

#: Where each built-in contract class lives, by versioned id.
BUILT_IN: dict[str, str] = {
    "research_brief/v1": "handoff_gate.schemas.research:ResearchBrief",
    "plan/v1": "handoff_gate.schemas.planning:Plan",
    "design/v1": "handoff_gate.schemas.planning:Design",
    "baton/v1": "handoff_gate.schemas.baton:Baton",
    "baton_patch/v1": "handoff_gate.schemas.baton:BatonPatch",
    "executor_handoff/v1": "handoff_gate.schemas.execution:ExecutorHandoff",
    "feature_manifest/v1": "handoff_gate.schemas.build_loop:FeatureManifest",
    "gap_analysis/v1": "handoff_gate.schemas.build_loop:GapAnalysis",
    "verify_result/v1": "handoff_gate.schemas.build_loop:VerifyResult",
    "learning/v1": "handoff_gate.schemas.build_loop:Learning",
}

EXAMPLES = Path(__file__).parent / "examples"
#: The coding agents' built-in tools as JSON Schema contracts, one file per agent
#: (``harness/claude_code.json``...), for ``handoff-gate hook``.
HARNESS_TOOLS = Path(__file__).parent / "harness"


def example_path(schema_id: str) -> Path:
    """The example payload file for a built-in id: ``plan/v1`` -> ``examples/plan_v1.json``."""
    return EXAMPLES / (schema_id.replace("/", "_") + ".json")


__all__ = ["BUILT_IN", "EXAMPLES", "HARNESS_TOOLS", "example_path"]
