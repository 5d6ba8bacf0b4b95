"""docs/architecture.md is held to the code's structure, not to its sentences.

A newcomer finds where code goes from its module table, trusts its list of import
contracts and layers, and reads which agents ``hook`` serves and which test proves the
pins. Each of those is compared here with what the code and ``pyproject.toml`` say, so
a module added without a row, a contract renamed, a layer added or a harness named
elsewhere fails the suite.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from handoff_gate.integrations.harness_names import HARNESS_NAMES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "handoff_gate"
DOC = ROOT / "docs" / "architecture.md"
#: A row of a module table: ``| `gates/audit/log.py` | its job |``.
ROW = re.compile(r"^\| `([\w/]+\.py)` \| (.*?) \|$", re.M)
#: The sample runs are the demo's data (mypy and ruff treat them so too), not modules.
SAMPLES = PACKAGE / "demo" / "sample_runs"


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _documented() -> dict[str, str]:
    return {module: job.strip() for module, job in ROW.findall(_text())}


def _modules() -> set[str]:
    """Every module of the package, by its path under handoff_gate/; a package's
    ``__init__`` is its folder."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" and not path.is_relative_to(SAMPLES)
    }


def _import_contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_every_module_has_a_row_and_every_row_a_module() -> None:
    documented = _documented()
    assert sorted(_modules() - documented.keys()) == [], "add these to docs/architecture.md"
    assert sorted(documented.keys() - _modules()) == [], "these no longer exist"


def test_each_row_says_a_job() -> None:
    assert all(len(job.split()) >= 3 for job in _documented().values())


def test_it_lists_every_import_contract_by_the_name_lint_imports_prints() -> None:
    listed = set(re.findall(r'^  - "(.+)"$', _text(), re.M))
    assert listed == {str(contract["name"]) for contract in _import_contracts()}


def test_the_layers_it_draws_are_the_layers_lint_imports_checks() -> None:
    """The two layer chains, package and core, in the order ``pyproject.toml`` has."""
    text = " ".join(_text().split())
    for contract in _import_contracts():
        if contract["type"] != "layers":
            continue
        layers = [str(layer).replace("handoff_gate.", "") for layer in contract["layers"]]  # type: ignore[attr-defined]
        chain = " over ".join(f"`{layer}`" for layer in layers)
        assert chain in text, f"docs/architecture.md should draw: {chain}"


def test_the_pins_test_it_names_finds_the_commands_from_the_parser() -> None:
    named = set(re.findall(r"`(tests/test_[\w]*pins[\w]*\.py)`", _text()))
    assert named, "docs/architecture.md names the test that holds the pins"
    for test in named:
        source = (ROOT / test).read_text(encoding="utf-8")
        assert "build_parser" in source and "_SubParsersAction" in source


def test_the_harnesses_it_names_are_the_one_list() -> None:
    line = next(line for line in _text().splitlines() if "harness_names.py`:" in line)
    assert tuple(re.findall(r"`([a-z-]+)`", line.split("harness_names.py`:")[1])) == (HARNESS_NAMES)


def test_contracts_are_loaded_under_the_pins_in_one_module() -> None:
    """Only ``gates/setup.py`` calls ``load_registry``: every other loader goes through
    its ``load_contracts``, which takes the policy with no default."""
    loading = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if not path.is_relative_to(SAMPLES)
        and "load_registry(" in (source := path.read_text(encoding="utf-8"))
        and "def load_registry" not in source
    ]
    assert loading == ["gates/setup.py"]
