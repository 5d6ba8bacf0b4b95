"""Loading user contracts, failing clearly on bad specs, and strict JSON Schemas for providers."""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import python_stdout
from pydantic import BaseModel

from handoff_gate.gates.contracts.registry import (
    RegistryError,
    load_registry,
    strict_json_schema,
)
from handoff_gate.gates.vocab.environment import SCHEMAS_ENV
from handoff_gate.schemas import BUILT_IN
from handoff_gate.schemas.base import Contract

USER_MODULE = """
from pydantic import BaseModel

class Ticket(BaseModel):
    title: str = ""
    labels: list[str] = []

SCHEMAS = {"ticket/v1": Ticket}
"""


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCHEMAS_ENV, raising=False)


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


#: Every built-in contract class, by id.
SCHEMAS = dict(load_registry(""))


def test_builtins_only_by_default() -> None:
    registry = load_registry()
    assert list(registry) == list(BUILT_IN)
    for schema_id, where in BUILT_IN.items():
        model = registry[schema_id]
        assert issubclass(model, Contract)
        assert f"{model.__module__}:{model.__name__}" == where


def test_a_builtin_loads_when_first_looked_up_not_before() -> None:
    """A command handling one plan imports the plan's contract module and no other."""
    script = (
        "import sys\n"
        "from handoff_gate.gates.contracts.registry import load_registry\n"
        "registry = load_registry('')\n"
        "assert 'plan/v1' in registry and len(registry) == 10\n"
        "def loaded():\n"
        "    return sorted(m for m in sys.modules if m.startswith('handoff_gate.schemas.'))\n"
        "print(loaded())\n"
        "plan = registry['plan/v1']\n"
        "assert registry.get('plan/v1') is plan and registry.get('nope/v1') is None\n"
        "print(loaded())\n"
    )
    before, after = python_stdout(script).splitlines()
    assert "handoff_gate.schemas.planning" not in before
    assert "handoff_gate.schemas.planning" in after
    assert "handoff_gate.schemas.baton" not in after


def test_user_file_by_path(tmp_path: Path) -> None:
    registry = load_registry(str(write(tmp_path, "contracts.py", USER_MODULE)))
    assert set(registry) == set(SCHEMAS) | {"ticket/v1"}
    ticket = registry["ticket/v1"].model_validate({"title": "Fix login"})
    assert ticket.model_fields_set == {"title"}


def test_user_file_under_home_by_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path, "contracts.py", USER_MODULE)
    assert "ticket/v1" in load_registry("~/contracts.py")


def test_user_module_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "team_contracts_by_name.py", USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "team_contracts_by_name", raising=False)
    try:
        assert "ticket/v1" in load_registry("team_contracts_by_name")
    finally:
        sys.modules.pop("team_contracts_by_name", None)


def test_env_var_is_used_when_no_spec_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write(tmp_path, "one.py", USER_MODULE)
    second = write(tmp_path, "two.py", USER_MODULE.replace("ticket/v1", "ticket/v2"))
    monkeypatch.setenv(SCHEMAS_ENV, f"{first}{os.pathsep}{second}")
    assert {"ticket/v1", "ticket/v2"} <= set(load_registry())
    assert list(load_registry("")) == list(BUILT_IN)


def error(spec: str) -> str:
    with pytest.raises(RegistryError) as caught:
        load_registry(spec)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("raise RuntimeError('database\\nunreachable')", "RuntimeError: database unreachable"),
        ("def broken(:\n", "SyntaxError"),
        ("import sys\nsys.exit(3)", "SystemExit"),
        ("import no_such_package_here", "ModuleNotFoundError"),
        ("SCHEMAS = None", "no SCHEMAS"),
        ("VERSION = 1", "no SCHEMAS"),
        ("SCHEMAS = [1, 2]", "no SCHEMAS"),
        ("SCHEMAS = {'ticket/v1': dict}", "not a pydantic model class"),
        (USER_MODULE + "SCHEMAS = {'ticket/v1': Ticket()}", "not a pydantic model class"),
        (USER_MODULE + "SCHEMAS = {'Ticket/v1': Ticket}", "not of the form"),
        (USER_MODULE + "SCHEMAS = {'ticket': Ticket}", "not of the form"),
        (USER_MODULE + "SCHEMAS = {1: Ticket}", "not of the form"),
        (USER_MODULE + "SCHEMAS = {'plan/v1': Ticket}", "already in the built-ins"),
    ],
)
def test_bad_user_file_is_a_clear_one_line_error_and_leaves_no_module(
    tmp_path: Path, source: str, expected: str
) -> None:
    path = write(tmp_path, "bad_contracts.py", source)
    before = set(sys.modules)
    message = error(str(path))
    assert expected in message
    assert str(path) in message
    assert set(sys.modules) - before == set()


def test_a_failed_reload_keeps_the_module_that_loaded_before(tmp_path: Path) -> None:
    path = write(tmp_path, "contracts.py", USER_MODULE)
    loaded = load_registry(str(path))["ticket/v1"]
    modules = dict(sys.modules)
    write(tmp_path, "contracts.py", "raise ImportError('half-edited')")
    assert "half-edited" in error(str(path))
    assert sys.modules == modules
    assert sys.modules[loaded.__module__].SCHEMAS["ticket/v1"] is loaded


def test_missing_file_and_unknown_module() -> None:
    assert "no such file" in error("/nonexistent/contracts.py")
    assert "No module named" in error("no_such_contracts_module")


def test_failing_package_leaves_none_of_its_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "broken_contract_pkg"
    package.mkdir()
    write(package, "__init__.py", "from broken_contract_pkg.models import SCHEMAS\n")
    write(package, "helpers.py", "X = 1\n")
    write(package, "models.py", "from broken_contract_pkg import helpers\nraise ValueError('no')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    assert "ValueError: no" in error("broken_contract_pkg")
    assert set(sys.modules) - before == set()


def test_same_id_in_two_user_files(tmp_path: Path) -> None:
    first = write(tmp_path, "one.py", USER_MODULE)
    second = write(tmp_path, "two.py", USER_MODULE)
    before = set(sys.modules)
    message = error(f"{first}{os.pathsep}{second}")
    assert "'ticket/v1'" in message and str(first) in message
    assert set(sys.modules) - before == set()


def test_builtin_ids_are_versioned_names() -> None:
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*/v[0-9]+", i) for i in SCHEMAS)


# --- strict JSON Schema -----------------------------------------------------------------------


def subschemas(node: Any, where: str = "$") -> list[tuple[str, dict[str, Any]]]:
    """Every schema inside a JSON Schema (property names are never mistaken for keywords)."""
    if not isinstance(node, dict):
        return []
    found = [(where, node)]
    for key in ("properties", "$defs"):
        for name, sub in node.get(key, {}).items():
            found += subschemas(sub, f"{where}.{key}.{name}")
    for key in ("items", "additionalProperties"):
        found += subschemas(node.get(key), f"{where}.{key}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(node.get(key, [])):
            found += subschemas(sub, f"{where}.{key}[{i}]")
    return found


def assert_strict(schema: dict[str, Any]) -> None:
    defs = schema.get("$defs", {})
    for where, node in subschemas(schema):
        assert "default" not in node, where
        if node.get("type") == "object":
            assert "properties" in node, f"{where}: free-form object"
            assert node["required"] == list(node["properties"]), where
            assert node["additionalProperties"] is False, where
        if "$ref" in node:
            assert set(node) == {"$ref"}, f"{where}: keywords beside $ref"
            assert node["$ref"].removeprefix("#/$defs/") in defs, where


@pytest.mark.parametrize("schema_id", sorted(SCHEMAS))
def test_builtin_strict_schema_is_fit_for_strict_mode(schema_id: str) -> None:
    schema = strict_json_schema(SCHEMAS[schema_id])
    assert_strict(schema)
    for where, node in subschemas(schema):
        for name, prop in node.get("properties", {}).items():
            assert prop.get("description"), f"{where}.{name} has no description"


def test_patch_fields_become_required_but_nullable() -> None:
    schema = strict_json_schema(SCHEMAS["baton_patch/v1"])
    assert "goal" in schema["required"]
    assert {"type": "null"} in schema["properties"]["goal"]["anyOf"]


def test_lenient_user_model_is_made_strict(tmp_path: Path) -> None:
    source = """
    from pydantic import BaseModel, ConfigDict, Field

    class Owner(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str = "nobody"

    class Ticket(BaseModel):
        title: str = ""
        owner: Owner = Field(default_factory=Owner, description="Who handles it.")
        watchers: list[Owner] = []
        reviewer: Owner | None = None

    SCHEMAS = {"ticket/v1": Ticket}
    """
    model = load_registry(str(write(tmp_path, "lenient.py", source)))["ticket/v1"]
    assert "required" not in model.model_json_schema()
    schema = strict_json_schema(model)
    assert_strict(schema)
    assert schema["required"] == ["title", "owner", "watchers", "reviewer"]
    assert schema["properties"]["owner"]["description"] == "Who handles it."
    assert schema["properties"]["owner"]["required"] == ["name"]


def test_free_form_mapping_is_refused_by_name() -> None:
    class Loose(BaseModel):
        next_stage_inputs: dict[str, Any] = {}

    with pytest.raises(RegistryError, match=r"Loose\.next_stage_inputs"):
        strict_json_schema(Loose)


def test_model_without_a_json_schema_is_a_registry_error() -> None:
    class Hooked(BaseModel):
        callback: Callable[[], None]

    with pytest.raises(RegistryError, match="Hooked: no JSON Schema"):
        strict_json_schema(Hooked)
