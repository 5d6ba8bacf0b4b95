"""Command start-up: the pipeline-facing commands against ``python -c "import pydantic"``,
and ``handoff-gate watch`` to first paint against a minimal Textual app that imports pydantic.

Each repetition runs every command once, in the order a pipeline would (submit, check,
decide, wait), with the baseline in between, so drift on a shared machine hits all alike.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.procs import ROOT, child_env, compile_project
from bench.pty_paint import first_paint
from bench.stats import summarize
from handoff_gate.schemas import example_path

COMMANDS = ("submit", "check", "decide", "wait")
#: ``import pydantic`` is lazy (loads little); defining one model is what any user pays.
MODEL_SNIPPET = "import pydantic\nclass M(pydantic.BaseModel):\n    x: int"


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, str, str]:
    t0 = time.perf_counter()
    out = subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=ROOT, check=False, timeout=60
    )
    elapsed = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:3])} exited {out.returncode}: {out.stderr[-500:]}")
    return elapsed, out.stdout, out.stderr


def _textual_imported(stderr: str) -> bool:
    """Whether textual was imported, from Python's own import-time report on stderr."""
    return any(line.rstrip().endswith("| textual") for line in stderr.splitlines())


def _pipeline(gate: str, run_dir: Path, env: dict[str, str]) -> dict[str, tuple[float, str]]:
    """Submit a fresh handoff, check it, approve it, wait for it: ``{command: (s, stderr)}``."""
    payload = str(example_path("plan/v1"))
    t, out, err = _timed(
        [gate, "submit", str(run_dir), "--phase", "plan", "--schema", "plan/v1", payload], env
    )
    handoff = out.strip().splitlines()[-1]
    result = {"submit": (t, err)}
    argvs = {
        "check": [gate, "check", str(run_dir / "handoffs" / f"{handoff}.json")],
        "decide": [gate, "decide", str(run_dir), handoff, "approve", "--reviewer", "bench"],
        "wait": [gate, "wait", str(run_dir), handoff, "--timeout", "10"],
    }
    for name, argv in argvs.items():
        t, _, err = _timed(argv, env)
        result[name] = (t, err)
    return result


def _cli_figures(ctx: Context) -> list[Figure]:
    gate = str(ctx.bin_dir / "handoff-gate")
    env = child_env()
    run_dir = ctx.workdir / "startup-run"
    baseline: list[float] = []
    with_model: list[float] = []
    samples: dict[str, list[float]] = {c: [] for c in COMMANDS}
    for rep in range(ctx.profile.startup_reps + 1):  # rep 0 warms the page cache
        base_t, _, _ = _timed([ctx.python, "-c", "import pydantic"], env)
        model_t, _, _ = _timed([ctx.python, "-c", MODEL_SNIPPET], env)
        times = _pipeline(gate, run_dir, env)
        if rep:
            baseline.append(base_t * 1000)
            with_model.append(model_t * 1000)
            for name, (t, _) in times.items():
                samples[name].append(t * 1000)
    probe = _pipeline(gate, run_dir, env | {"PYTHONPROFILEIMPORTTIME": "1"})
    base = summarize(baseline)
    model_base = summarize(with_model).median
    figures = []
    for name in COMMANDS:
        textual = _textual_imported(probe[name][1])
        figures.append(
            Figure(
                name=f"startup.{name}",
                unit="ms",
                value=summarize(samples[name]),
                baseline_name="import pydantic",
                baseline=base,
                target=Target(stat="median", max_ratio=1.5),
                note=("IMPORTS TEXTUAL" if textual else "no textual")
                + f"; {summarize(samples[name]).median / model_base:.2f}x one-model script"
                + f"; {CACHED}",
                extra={"imports_textual": textual, "pydantic_with_model_ms": model_base},
            )
        )
    return figures


def _watch_figure(ctx: Context) -> Figure:
    gate = str(ctx.bin_dir / "handoff-gate")
    run_dir = ctx.workdir / "startup-run"
    marker = "startup-run"
    watch, minimal = [], []
    for rep in range(ctx.profile.startup_reps + 1):
        w = first_paint([gate, "watch", str(run_dir), "--quiet"], marker.encode()).seconds
        m = first_paint([ctx.python, "-m", "bench.minimal_app", marker], marker.encode()).seconds
        if rep:
            watch.append(w * 1000)
            minimal.append(m * 1000)
    return Figure(
        name="startup.watch_paint",
        unit="ms",
        value=summarize(watch),
        baseline_name="minimal Textual app",
        baseline=summarize(minimal),
        target=Target(stat="median", max_ratio=1.5),
        note=f"spawn -> run name painted on a pty; {CACHED}",
    )


#: Every start-up figure notes that the project's bytecode cache was in place.
CACHED = "project bytecode cached (compileall)"


def run(ctx: Context) -> list[Figure]:
    compile_project(ctx.python)
    return [*_cli_figures(ctx), _watch_figure(ctx)]
