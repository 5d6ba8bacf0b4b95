"""The benchmark harness runs end to end in its smallest mode and reports every figure.

No timing is asserted: figures on a shared machine are the harness's output, not a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pg_server import PgUnavailable, find_bindir

from bench.figures import Figure, Target
from bench.stats import percentile, summarize
from bench.table import render

# bench/ is a tool of the checkout, not an installed package: pytest's pythonpath finds it.
ROOT = Path(__file__).resolve().parent.parent


def _postgres_available() -> bool:
    """Whether this machine has server binaries (the PostgreSQL benchmark needs them)."""
    try:
        find_bindir()
    except PgUnavailable:
        return False
    return True


def test_p95_is_an_observed_sample_by_nearest_rank() -> None:
    samples = [float(x) for x in range(1, 21)]
    assert percentile(samples, 95) == 19.0
    assert summarize(samples).median == 10.5
    assert summarize([7.0]).p95 == 7.0


def test_a_figure_misses_when_either_the_limit_or_the_ratio_is_exceeded() -> None:
    fast_base = summarize([10.0, 10.0])
    within = Figure("x", "ms", summarize([14.0, 14.0]), "base", fast_base, Target("p95", 25, 1.5))
    too_slow = Figure(
        "x", "ms", summarize([30.0, 30.0]), "base", summarize([29.0]), Target("p95", 25, 1.5)
    )
    too_far = Figure("x", "ms", summarize([16.0, 16.0]), "base", fast_base, Target("p95", 25, 1.5))
    assert (within.met, too_slow.met, too_far.met) == (True, False, False)
    assert within.ratio == pytest.approx(1.4)
    table = render([within, too_slow])
    assert "1.40×" in table and "MISSED" in table


@pytest.mark.timeout(240)
@pytest.mark.alone
def test_smoke_run_reports_every_benchmark_beside_its_baseline(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=230,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(out.read_text())
    figures = {f["name"]: f for f in doc["figures"]}
    for prefix in (
        "inspect.",
        "json_schema.",
        "pickup.",
        "tools.",
        "run_size.",
        "visible.",
        "scale.",
        "startup.",
        "batch.",
        "mcp.",
        "agents.",
        "serve.",
    ):
        assert any(name.startswith(prefix) for name in figures), prefix
    assert "pickup.wait_signed" in figures
    if _postgres_available():  # the benchmark leaves itself out without server binaries
        assert "pg.wait_api" in figures
        for name in ("pg.visible", "pg.scale_first_row", "pg.scale_peak_rss"):
            assert name in figures, name
        assert figures["pg.scale_first_row"]["extra"]["all_listed"]
    for f in figures.values():
        assert not f["error"], f
        assert f["value"]["n"] >= 1 and f["baseline"]["n"] >= 1, f["name"]
        assert f["ratio"] is not None and f["ratio"] > 0, f["name"]
    assert not figures["visible.burst"]["extra"]["lost"]
    assert not any(
        figures[f"startup.{c}"]["extra"]["imports_textual"]
        for c in ("check", "submit", "decide", "wait")
    )
    assert "ratio" in done.stdout and str(out) in done.stdout
