"""The built wheel installs one import name and coexists with a pipeline's own packages.

The wheel is built from a copy of the sources in a temp folder (a build writes
``build/`` and ``*.egg-info`` next to its sources) and installed with ``--no-deps`` into
a fresh venv; the dependencies come from this test's own environment through a path
entry, so nothing is downloaded and the installed ``handoff_gate`` is only the wheel's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from bench.install import DEPS_PTH, installed_copy
from handoff_gate.demo.runner import SAMPLES
from handoff_gate.demo.simulator import LIVE_RUN

ROOT = Path(__file__).resolve().parent.parent
BOUND = 300.0

#: A pipeline that ships its own ``schemas``, ``tui`` and ``gates`` packages.
PIPELINE = {
    "schemas/__init__.py": "MINE = 'the pipeline schemas'\n",
    "tui/__init__.py": "MINE = 'the pipeline tui'\n",
    "gates/__init__.py": "MINE = 'the pipeline gates'\n",
    "main.py": textwrap.dedent(
        """
        import sys
        from pathlib import Path
        import gates, schemas, tui
        import handoff_gate as hg

        run = Path(sys.argv[1])
        ref = hg.submit(run, {"summary": "ok"}, phase="plan", schema_id="plan/v1")
        hg.decide(run, ref.id, "reject", reason="demo", registry=hg.load_registry())
        result = hg.wait(run, ref)
        print(schemas.MINE, tui.MINE, gates.MINE, result.outcome.value, sep="|")
        """
    ),
}


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=BOUND, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{args}: {done.stderr[-3000:]}"
    return done  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding only the wheel (built as the start-up bench builds it);
    returns its ``bin`` folder."""
    return installed_copy(tmp_path_factory.mktemp("wheel"))


def _site(bin_dir: Path) -> Path:
    out = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        cwd=bin_dir,
    )
    return Path(out.stdout.strip())


def test_the_only_top_level_name_is_handoff_gate_and_it_is_typed(installed: Path) -> None:
    site = _site(installed)
    names = {p.name for p in site.iterdir()} - {DEPS_PTH, "__pycache__"}
    assert {n for n in names if not n.endswith(".dist-info")} == {"handoff_gate"}
    assert (site / "handoff_gate" / "py.typed").is_file()
    assert (site / "handoff_gate" / "gates" / "deliver" / "waiting.py").is_file()
    assert not (site / "handoff_gate" / "gates").is_symlink()
    shipped = site / "handoff_gate" / "schemas" / "harness"  # the hook's tool contracts
    assert {p.name for p in shipped.glob("*.json")} == {
        "claude_code.json",
        "codex.json",
        "gemini.json",
    }
    where = _run(
        [str(installed / "python"), "-c", "import handoff_gate; print(handoff_gate.__file__)"],
        cwd=site,
    )
    assert Path(where.stdout.strip()).is_relative_to(site)


def _pipeline(tmp_path: Path) -> Path:
    for name, text in PIPELINE.items():
        path = tmp_path / "pipeline" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "pipeline"


def test_a_pipeline_with_its_own_schemas_tui_and_gates_packages(
    installed: Path, tmp_path: Path
) -> None:
    folder = _pipeline(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "HANDOFF_GATE_SCHEMAS"}}
    expected = "the pipeline schemas|the pipeline tui|the pipeline gates|rejected"
    from_folder = _run(
        [str(installed / "python"), "main.py", str(tmp_path / "r1")], cwd=folder, env=env
    )
    assert from_folder.stdout.strip() == expected
    with_path = {**env, "PYTHONPATH": "."}
    from_path = _run(
        [str(installed / "python"), str(folder / "main.py"), str(tmp_path / "r2")],
        cwd=folder,
        env=with_path,
    )
    assert from_path.stdout.strip() == expected
    help_text = _run(
        [str(installed / "handoff-gate"), "watch", "--help"], cwd=folder, env=with_path
    )
    assert "usage: handoff-gate watch" in help_text.stdout


def _files(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_the_sample_runs_ship_whole_and_the_demo_runs_from_the_wheel(
    installed: Path, tmp_path: Path
) -> None:
    """``handoff-gate demo`` from an installed copy: its sample runs are package data,
    every file of the checkout's (hidden ``.seq`` reservations included), and the demo
    copies them into its workspace and starts its pipeline, away from any checkout."""
    shipped = _site(installed) / "handoff_gate" / "demo" / "sample_runs"
    assert _files(shipped) == _files(SAMPLES)
    workspace = tmp_path / "ws"
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "HANDOFF_GATE_SCHEMAS"}}
    demo = subprocess.Popen(
        [str(installed / "handoff-gate"), "demo", "--no-tui", "--workspace", str(workspace)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo.stdout is not None
        lines: list[str] = []
        while not any("0001-plan approve" in line for line in lines):
            line = demo.stdout.readline()
            assert line, f"the demo ended before its first decision: {lines} {demo.stderr}"
            lines.append(line)
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=BOUND)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.communicate()
    assert demo.returncode == 0, err
    assert "pipeline stopped before it finished" in out
    runs = {p.name for p in SAMPLES.iterdir() if (p / "handoffs").is_dir()}
    assert runs <= {p.name for p in workspace.iterdir()}
    assert (workspace / LIVE_RUN / "handoffs" / "0001-plan.json").is_file()
    shown = _run(
        [str(installed / "handoff-gate"), "show", str(workspace / "planner-to-executor"),
         "0001-execute", "--brief"],
        cwd=tmp_path,
        env=env,
    )  # fmt: skip
    assert "planner-to-executor/0001-execute:" in shown.stdout
