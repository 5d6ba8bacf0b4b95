"""The demo raises the simulated pipeline's progress in the app, "pipeline finished" too."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import SIZE, make_app, notices, settle

from handoff_gate.demo.progress import ProgressToasts
from handoff_gate.gates.contracts.registry import Registry


async def test_simulator_lines_become_plain_notifications(
    root: Path, registry: Registry, tmp_path: Path
) -> None:
    log = tmp_path / "simulator.log"
    log.write_text("simulator: an old line from before the app started\n")
    app = make_app(root, registry)
    progress = ProgressToasts(app, log)
    async with app.run_test(size=SIZE) as pilot:
        progress.start()
        try:
            with log.open("a") as out:
                out.write("Traceback (most recent call last): not for the screen\n")
                out.write("simulator: 0002-design: submitted, waiting [b]for[/b] \x1b]0;x\x07you\n")
                out.write("simulator: pipeline finished: every phase approved\n")
            await settle(pilot, lambda: "Pipeline finished" in notices(app))
        finally:
            progress.stop()
        shown = notices(app)
    assert "0002-design: submitted, waiting [b]for[/b]" in shown
    assert "\x1b" not in shown and "\x07" not in shown
    assert "old line" not in shown and "Traceback" not in shown
