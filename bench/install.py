"""The project as a pipeline installs it: a wheel in a fresh venv, for the start-up
figures and for ``tests/test_wheel.py``.

``pip install -e`` (this checkout's venv) resolves every ``handoff_gate`` import through
setuptools' editable finder and this repository's symlinks, which costs a command about
15 ms that no installed copy pays. The start-up benchmark times this copy instead. The
wheel is built from a copy of the sources (a build writes ``build/`` next to them); the
dependencies come from the benchmark's own environment through a plain path entry, so
nothing is downloaded and the only ``handoff_gate`` the venv sees is the wheel's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from bench.procs import ROOT

#: The path entry that lends the venv this environment's dependencies.
DEPS_PTH = "zz_deps.pth"
SOURCES = ("pyproject.toml", "README.md", "handoff_gate", "gates", "schemas", "tui")
BOUND_S = 300


def _run(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=BOUND_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} failed: {done.stderr[-1000:]}")
    return done.stdout


def installed_copy(workdir: Path) -> Path:
    """A venv under ``workdir`` holding the wheel of this checkout; returns its ``bin``."""
    src, dist, venv = workdir / "wheel-src", workdir / "wheel-dist", workdir / "wheel-venv"
    for folder in (src, dist, venv):
        shutil.rmtree(folder, ignore_errors=True)
    src.mkdir(parents=True)
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(path, src / name, symlinks=True, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)])
    (wheel,) = dist.glob("handoff_gate-*.whl")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = str(venv / "bin" / "python")
    _run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", str(wheel)]
    )
    purelib = Path(
        _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    )
    (purelib / DEPS_PTH).write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([python, "-m", "compileall", "-q", str(purelib / "handoff_gate")])
    return venv / "bin"


def installed_env() -> dict[str, str]:
    """This environment without ``PYTHONPATH``, which would put the checkout first."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env
