"""The walkthrough's pictures come from a script that drives the real app; it must keep
working as the app changes, or the pictures quietly go stale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "docs" / "screenshots" / "make_screenshots.py"
PICTURES = {p.name for p in SCRIPT.parent.glob("*.svg")}


def test_the_screenshot_script_redraws_every_picture_the_docs_show(tmp_path: Path) -> None:
    env = {**os.environ, "HANDOFF_GATE_SHOTS_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert {p.name for p in tmp_path.glob("*.svg")} == PICTURES
    live_plan = (tmp_path / "operator-1-live-plan.svg").read_text()
    assert "problem_statement" in live_plan and "APPROVABLE" in live_plan
    phone = (tmp_path / "phone-2-handoff.svg").read_text()
    assert "BLOCKED" in phone and "0001-execute" in phone, "the phone shows the handoff"
