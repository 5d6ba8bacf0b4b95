"""A withdrawal that lands while the TUI is open, in the pipeline's ``withdrawals/``.

What a reviewer would notice: a row that stays pending (and approvable) after the
pipeline withdrew it, or junk planted where a withdrawal goes crashing the app or
leaving the handoff approvable.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui_helpers import PLAN, list_rows, make_app, placed, put, settle

import handoff_gate as hg
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.tui.review_app import ReviewApp


def _row(app: ReviewApp, handoff_id: str) -> str:
    return next(line for line in list_rows(app) if handoff_id in line)


async def test_a_withdrawal_made_while_the_tui_is_open_greys_its_row(
    root: Path, registry: Registry
) -> None:
    gone, junked, kept = (put(root, "job", PLAN) for _ in range(3))
    app = make_app(root, registry, show="all")
    async with app.run_test(size=(160, 35)) as pilot:
        await settle(pilot, lambda: placed(app))
        assert "withdrawn" not in _row(app, gone)
        with hg.Gate(str(root), contracts=registry) as gate:
            gate.withdraw("job", gone, reason="job cancelled", by="ci")
        os.mkfifo(root / "job" / "withdrawals" / junked)
        await settle(pilot, lambda: "was withdrawn" in _row(app, gone))
        await settle(pilot, lambda: "was withdrawn" in _row(app, junked))
        assert "WITHDRWN" in _row(app, gone) and "WITHDRWN" in _row(app, junked)
        assert "withdrawn" not in _row(app, kept)
    assert (root / "job" / "withdrawals" / gone).is_file()
