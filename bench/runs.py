"""Run directories for the benchmarks, written through ``gates.store`` in the real format."""

from __future__ import annotations

import shutil
from pathlib import Path

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import DECISIONS, HANDOFFS
from handoff_gate.schemas import example_path

#: Contracts cycled through, so the rows and detail views are not all alike.
MIX = ("plan/v1", "design/v1", "research_brief/v1", "verify_result/v1", "feature_manifest/v1")


def fill_run(run_dir: Path, count: int, *, phase: str = "step", decided_every: int = 0) -> None:
    """Submit ``count`` example handoffs; approve every ``decided_every``-th one (0: none)."""
    registry = load_registry()
    run_dir.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        schema_id = MIX[i % len(MIX)]
        ref = submit(
            run_dir,
            example_path(schema_id).read_bytes(),
            phase=phase,
            schema_id=schema_id,
            from_role="planner",
            to_role="builder",
            registry=registry,
        )
        if decided_every and i % decided_every == 0:
            decide(run_dir, ref.id, "approve", reviewer="bench", registry=registry)


def staged(root: Path, run_name: str, count: int, phase: str = "step") -> tuple[Path, Path]:
    """A watched run holding one handoff, and a staging folder with the next ``count``.

    The staged files were submitted to a run of the same name on the same filesystem,
    so moving one into the watched run is exactly a writer's final atomic rename.
    """
    stage_run = root / "stage" / run_name
    fill_run(stage_run, count + 1, phase=phase)
    watched = root / "watched" / run_name
    (watched / HANDOFFS).mkdir(parents=True)
    (watched / DECISIONS).mkdir()
    first = sorted((stage_run / HANDOFFS).glob("*.json"))[0]
    shutil.move(first, watched / HANDOFFS / first.name)
    return watched, stage_run / HANDOFFS
