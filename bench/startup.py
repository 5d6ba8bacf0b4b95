"""Command start-up: the pipeline-facing commands against a minimal pydantic script, and
``handoff-gate watch`` to first paint against a minimal Textual app that imports pydantic.

The baseline a pipeline command is judged by (within 1.3x since issue 18, which traded
the last tenth of issue 8's 1.2x for plain code) is a script that
imports pydantic, defines one model and validates the same payload bytes: what any
pydantic-based step pays. The older ``import pydantic`` baseline stays as a second
column (in the note and ``extra``), so figures remain comparable with earlier runs.

Each repetition runs every command once, in the order a pipeline would (submit, check,
decide, wait), with the baselines in between, so drift on a shared machine hits all alike.

Commands and baselines run in a venv holding the project's wheel (``bench.install``), as
a pipeline installs it, with the same interpreter and dependencies for both sides; the
editable install of a checkout adds about 15 ms a command that no installed copy pays.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from bench.config import Context
from bench.figures import Figure, Target
from bench.install import installed_copy, installed_env
from bench.procs import ROOT
from bench.pty_paint import first_paint
from bench.stats import summarize
from handoff_gate.schemas import example_path

COMMANDS = ("submit", "check", "decide", "wait")
PAYLOAD = example_path("plan/v1")
#: ``import pydantic`` is lazy (loads little); defining one model and validating the
#: payload the commands handle is what any pydantic-based pipeline step pays.
VALIDATE_SNIPPET = (
    "import sys, pydantic\n"
    "class M(pydantic.BaseModel):\n"
    "    model_config = pydantic.ConfigDict(extra='allow')\n"
    "    problem_statement: str\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    M.model_validate_json(f.read())\n"
)
VALIDATE_BASELINE = "pydantic: one model validating the payload"
#: The bound for a pipeline command against ``VALIDATE_BASELINE`` (issue 18; 1.2x before).
MAX_RATIO = 1.3


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
    payload = str(PAYLOAD)
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


def _cli_figures(ctx: Context, installed: Path) -> list[Figure]:
    gate, python = str(installed / "handoff-gate"), str(installed / "python")
    env = installed_env()
    run_dir = ctx.workdir / "startup-run"
    import_only: list[float] = []
    validating: list[float] = []
    samples: dict[str, list[float]] = {c: [] for c in COMMANDS}
    for rep in range(ctx.profile.startup_reps + 1):  # rep 0 warms the page cache
        import_t, _, _ = _timed([python, "-c", "import pydantic"], env)
        validate_t, _, _ = _timed([python, "-c", VALIDATE_SNIPPET, str(PAYLOAD)], env)
        times = _pipeline(gate, run_dir, env)
        if rep:
            import_only.append(import_t * 1000)
            validating.append(validate_t * 1000)
            for name, (t, _) in times.items():
                samples[name].append(t * 1000)
    probe = _pipeline(gate, run_dir, env | {"PYTHONPROFILEIMPORTTIME": "1"})
    base = summarize(validating)
    import_base = summarize(import_only).median
    figures = []
    for name in COMMANDS:
        textual = _textual_imported(probe[name][1])
        value = summarize(samples[name])
        figures.append(
            Figure(
                name=f"startup.{name}",
                unit="ms",
                value=value,
                baseline_name=VALIDATE_BASELINE,
                baseline=base,
                target=Target(stat="median", max_ratio=MAX_RATIO),
                note=("IMPORTS TEXTUAL" if textual else "no textual")
                + f"; {value.median / import_base:.2f}x import pydantic ({import_base:.1f} ms)"
                + f"; {CACHED}",
                extra={
                    "imports_textual": textual,
                    "import_pydantic_ms": import_base,
                    "ratio_to_import_pydantic": value.median / import_base,
                },
            )
        )
    return figures


def _watch_figure(ctx: Context, installed: Path) -> Figure:
    gate, python = str(installed / "handoff-gate"), str(installed / "python")
    env = installed_env()
    run_dir = ctx.workdir / "startup-run"
    marker = "startup-run"
    watch, minimal = [], []
    for rep in range(ctx.profile.startup_reps + 1):
        w = first_paint([gate, "watch", str(run_dir), "--quiet"], marker.encode(), env=env).seconds
        m = first_paint(
            [python, "-m", "bench.minimal_app", marker], marker.encode(), env=env
        ).seconds
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


#: Every start-up figure notes what it timed: an installed wheel, bytecode compiled.
CACHED = "installed wheel, bytecode compiled"


def run(ctx: Context) -> list[Figure]:
    installed = installed_copy(ctx.workdir)
    return [*_cli_figures(ctx, installed), _watch_figure(ctx, installed)]
