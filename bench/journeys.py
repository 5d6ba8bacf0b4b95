"""Three operator journeys through the review app, headless at 160x45: the keys each
takes and the seconds from the first screen to the decision records on disk.

    .venv/bin/python -m bench.journeys

1. Approve one clean plan (README.md's) after reading it: every field is on the first
   screen, so reading takes no key.
2. Reject it with a reason.
3. Approve the 20 clean handoffs of one run while another run has pending ones: ``*``
   marks the cursor's run only.

Seconds are the app's own time with Pilot pressing the keys, not a person's reading
time; keys are the count a person presses. Figures are in docs/performance.md.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from handoff_gate.gates.api import submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import assemble
from handoff_gate.tui.model import ReviewOptions
from handoff_gate.tui.review_app import ReviewApp
from handoff_gate.tui.screens.reject import RejectScreen

SIZE = (160, 45)
REPO = Path(__file__).resolve().parent.parent
REASON = "wrong quarter: the export covers April to June"
Journey = Callable[[Pilot[Any], ReviewApp], Awaitable[int]]


def readme_plan() -> bytes:
    readme = (REPO / "README.md").read_text()
    start = readme.index("cat > plan.json <<'EOF'\n") + len("cat > plan.json <<'EOF'\n")
    return readme[start : readme.index("\nEOF\n", start)].encode()


def decisions(root: Path) -> int:
    return sum(1 for _ in root.glob("*/decisions/*.json"))


async def until(pilot: Pilot[Any], condition: Callable[[], bool], bound: float = 30.0) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the journey did not finish")
        await pilot.pause(0.01)


async def approve_one(pilot: Pilot[Any], app: ReviewApp) -> int:
    keys = ["a", "y"]
    await pilot.press(*keys)
    return len(keys)


async def reject_one(pilot: Pilot[Any], app: ReviewApp) -> int:
    await pilot.press("r")
    await until(pilot, lambda: isinstance(app.screen, RejectScreen))
    await pilot.press(*REASON, "enter")
    return 1 + len(REASON) + 1


async def approve_run(pilot: Pilot[Any], app: ReviewApp) -> int:
    keys = ["*", "A", "y"]
    await pilot.press(*keys)
    return len(keys)


async def run(journey: Journey, runs: dict[str, int], expect: int) -> tuple[int, float]:
    """Keys and seconds for ``journey`` over fresh runs (name -> handoff count)."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "runs"
        plan = readme_plan()
        for name, count in runs.items():
            for _ in range(count):
                submit(root / name, plan, phase="plan", schema_id="plan/v1")
        gate = Gate(setup=assemble(root, contracts=load_registry(""), env={}))
        app = ReviewApp(gate, ReviewOptions(reviewer="operator", quiet=True))
        async with app.run_test(headless=True, size=SIZE) as pilot:
            await until(
                pilot,
                lambda: (
                    bool(app.review.entries)
                    and getattr(app.screen, "core", None) is not None
                    and all(e.report is not None for e in app.review.entries.values())
                ),
            )
            await pilot.pause()
            start = time.perf_counter()
            keys = await journey(pilot, app)
            await until(pilot, lambda: decisions(root) >= expect)
            took = time.perf_counter() - start
            await pilot.pause(0.5)
            if decisions(root) != expect:  # the other run's handoffs were decided too
                raise AssertionError(f"{decisions(root)} decisions, not {expect}")
            return keys, took


async def main() -> None:
    results = {
        "approve one plan after reading it": await run(approve_one, {"job-17": 1}, 1),
        "reject it with a reason": await run(reject_one, {"job-17": 1}, 1),
        "approve 20 of one run, another pending": await run(
            approve_run, {"job-17": 20, "job-18": 5}, 20
        ),
    }
    print(json.dumps({k: {"keys": v[0], "seconds": round(v[1], 2)} for k, v in results.items()}))


if __name__ == "__main__":
    asyncio.run(main())
