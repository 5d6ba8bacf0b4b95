"""One import identity: the core, the contracts and the TUI are ``handoff_gate.*`` only.

The checkout keeps ``gates/``, ``schemas/`` and ``tui/`` at its root (``handoff_gate/``
links to them), so a process started there has them on ``sys.path`` under their bare
names too. Imported that way, every class would exist twice and ``isinstance`` would
fail between the copies; the packages refuse it instead.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BARE = ("gates", "schemas", "tui")
#: A script that tries each import and prints ``name: ok`` or the error it raised.
TRY = """
import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError as exc:
        print(f"{name}: {type(exc).__name__}: {exc}")
    else:
        print(f"{name}: ok")
"""


def _tried(*names: str) -> dict[str, str]:
    """What a fresh interpreter started in the checkout's root says about each import."""
    done = subprocess.run(
        [sys.executable, "-c", TRY, *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = (line.split(": ", 1) for line in done.stdout.splitlines())
    return {name: outcome for name, outcome in lines}


@pytest.mark.parametrize("package", BARE)
def test_a_top_level_folder_cannot_be_imported_by_its_bare_name(package: str) -> None:
    submodule = {"gates": "gates.vocab.findings", "schemas": "schemas.planning"}.get(
        package, "tui.render"
    )
    tried = _tried(package, submodule, f"handoff_gate.{submodule}")
    assert tried[package] == f"ImportError: import handoff_gate.{package}, not {package}"
    assert tried[submodule] == tried[package]
    assert tried[f"handoff_gate.{submodule}"] == "ok"


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_source_of_the_checkout_imports_a_second_identity() -> None:
    """Nothing names the bare packages, and no test reaches a helper as ``tests.…``
    (pytest imports the helpers by their own names, so that would load them twice)."""
    folders = ("tests", "bench", "sample_runs", "examples", "handoff_gate", *BARE)
    offending = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(ROOT / "handoff_gate") and path.resolve() != path:
                continue  # handoff_gate/gates etc. are the linked folders, scanned above
            if "node_modules" in path.parts:
                continue  # npm's packages (the pinned agents) are no source of ours
            for name in _imported_names(path):
                top = name.split(".")[0]
                second = top in BARE or (top == "tests" and folder == "tests")
                if second:
                    offending.append(f"{path.relative_to(ROOT)}: {name}")
    assert offending == []
