"""docs/architecture.md names every module of the core and the TUI, each with its job.

A newcomer finds where code goes from that table; a module added without a row, or a
row left behind by a module that is gone, would send them to the wrong place.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
#: A row of the module table: ``| `gates/audit/log.py` | its job |``.
ROW = re.compile(r"^\| `((?:gates|tui)/[\w/]+\.py)` \| (.*?) \|$", re.M)


def _documented() -> dict[str, str]:
    return {module: job.strip() for module, job in ROW.findall(DOC.read_text(encoding="utf-8"))}


def _modules() -> set[str]:
    """Every module of ``gates/`` and ``tui/``; a package's ``__init__`` is its folder."""
    return {
        path.relative_to(ROOT).as_posix()
        for folder in ("gates", "tui")
        for path in (ROOT / folder).rglob("*.py")
        if path.name != "__init__.py"
    }


def test_every_module_of_the_core_and_the_tui_has_a_row() -> None:
    documented = _documented()
    assert sorted(_modules() - documented.keys()) == [], "add these to docs/architecture.md"
    assert sorted(documented.keys() - _modules()) == [], "these no longer exist"


def test_each_row_says_a_job() -> None:
    assert all(len(job.split()) >= 3 for job in _documented().values())


def test_it_names_where_the_configuration_is_built_and_the_pins_applied() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "One function loads contracts: `gates/setup.py`'s `load_contracts`" in text
    assert "`run(gate, args)`" in text and "`ReviewCore.maker`" in text
    assembling = [
        path.relative_to(ROOT / "handoff_gate").as_posix()
        for path in (ROOT / "handoff_gate").rglob("*.py")
        if "load_registry(" in path.read_text(encoding="utf-8")
        and "def load_registry" not in path.read_text(encoding="utf-8")
        # The sample runs' generator is a developer's script shipped beside its data,
        # not a front end: it builds the runs the demo copies.
        and not path.is_relative_to(ROOT / "handoff_gate" / "demo" / "sample_runs")
    ]
    assert assembling == ["gates/setup.py"]
