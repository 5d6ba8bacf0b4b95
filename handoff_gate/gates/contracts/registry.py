"""Which contracts exist: the built-ins plus any the user loads with ``--schemas SPEC``
or ``$HANDOFF_GATE_SCHEMAS`` (``.py`` paths or module names exposing ``SCHEMAS``, joined
with ``os.pathsep``). Anything wrong with a spec is a one-line ``RegistryError``.

A built-in is imported the first time its id is looked up, so a command that handles one
handoff loads one contract module; a user's module must be imported to learn its ids.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel, PydanticUserError

from handoff_gate.gates.vocab.environment import Environment
from handoff_gate.gates.vocab.ids import SCHEMA_ID_PATTERN
from handoff_gate.schemas import BUILT_IN

#: Any mapping of id -> contract class (``Contracts``, or a dict).
Registry = Mapping[str, type[BaseModel]]


class RegistryError(Exception):
    """A contract spec that cannot be used, or a contract a strict schema cannot express."""


class Contracts(Mapping[str, type[BaseModel]]):
    """``in`` and iterating the ids import nothing; looking an id up imports that
    built-in's module once."""

    __slots__ = ("_built_in", "_classes", "_ids")

    def __init__(self, built_in: Mapping[str, str], classes: Mapping[str, type[BaseModel]]) -> None:
        self._built_in = dict(built_in)
        self._classes = dict(classes)
        self._ids = [*built_in, *(i for i in classes if i not in built_in)]

    def __getitem__(self, schema_id: str) -> type[BaseModel]:
        found = self._classes.get(schema_id)
        if found is None:  # ``module:Class``; a missing one is a broken install
            module, _, name = self._built_in[schema_id].partition(":")
            found = self._classes[schema_id] = getattr(importlib.import_module(module), name)
        return found

    def __contains__(self, schema_id: object) -> bool:
        return schema_id in self._classes or schema_id in self._built_in

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def load_registry(spec: str | None = None, *, pins: Mapping[str, str] | None = None) -> Contracts:
    """Built-in contracts plus those from ``spec`` (default: ``$HANDOFF_GATE_SCHEMAS``).

    ``pins`` (a policy's ``[[contracts]]``: absolute path -> sha256): under a policy a
    module is code an agent may have edited, so only a pinned ``.py`` file whose bytes
    have that digest runs. Fails as a whole: no module imported for this call stays in
    ``sys.modules``, so a corrected file loads afresh on the next try.
    """
    if spec is None:
        spec = Environment.read().schemas
    parts = [p.strip() for p in spec.split(os.pathsep) if p.strip()]
    if pins is not None:
        for part in parts:
            if not _is_path(part):
                raise RegistryError(
                    f"{part}: under a policy a contract module is named by its .py file and "
                    "pinned in the policy's [[contracts]]"
                )
    owners = [_module_name(p) for p in parts]
    registry: dict[str, type[BaseModel]] = {}
    origin = dict.fromkeys(BUILT_IN, "the built-ins")
    before = set(sys.modules)
    kept = {o: sys.modules[o] for o in owners if o in sys.modules}
    try:
        for part, owner in zip(parts, owners, strict=True):
            for schema_id, model in _user_schemas(part, owner, origin, pins).items():
                registry[schema_id] = model
                origin[schema_id] = part
    except BaseException:
        for name in set(sys.modules) - before:
            if any(name == o or name.startswith(o + ".") for o in owners):
                del sys.modules[name]
        sys.modules.update(kept)
        raise
    return Contracts(BUILT_IN, registry)


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or "/" in spec


def _module_name(spec: str) -> str:
    """A private, stable name per file, so two never collide."""
    if not _is_path(spec):
        return spec.partition(".")[0]
    digest = hashlib.sha256(str(Path(spec).expanduser().resolve()).encode()).hexdigest()[:12]
    return f"handoff_gate_user_schemas_{digest}"


def _user_schemas(
    spec: str, name: str, origin: Mapping[str, str], pins: Mapping[str, str] | None
) -> dict[str, type[BaseModel]]:
    if pins is not None:
        module = _run_pinned(spec, name, pins)
    else:
        module = _import_file(spec, name) if _is_path(spec) else _import_module(spec)
    return _checked(spec, getattr(module, "SCHEMAS", None), origin)


def _checked(spec: str, found: object, origin: Mapping[str, str]) -> dict[str, type[BaseModel]]:
    if not isinstance(found, Mapping):
        raise RegistryError(f"{spec}: no SCHEMAS dict (id -> pydantic model) at module level")
    checked: dict[str, type[BaseModel]] = {}
    for schema_id, model in found.items():
        if not isinstance(schema_id, str) or not SCHEMA_ID_PATTERN.match(schema_id):
            raise RegistryError(f"{spec}: schema id {schema_id!r} is not of the form 'name/v1'")
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise RegistryError(f"{spec}: SCHEMAS[{schema_id!r}] is not a pydantic model class")
        if schema_id in origin:
            raise RegistryError(
                f"{spec}: schema id {schema_id!r} is already in {origin[schema_id]}"
            )
        checked[schema_id] = model
    return checked


def _failed(spec: str, exc: BaseException) -> RegistryError:
    detail = " ".join(str(exc).split()) or "no detail"
    return RegistryError(f"{spec}: cannot import: {type(exc).__name__}: {detail}")


def _import_module(spec: str) -> ModuleType:
    try:
        return importlib.import_module(spec)
    except (Exception, SystemExit) as exc:
        raise _failed(spec, exc) from exc


def _import_file(spec: str, name: str) -> ModuleType:
    path = Path(spec).expanduser()
    if not path.is_file():
        raise RegistryError(f"{spec}: no such file")
    loader_spec = importlib.util.spec_from_file_location(name, path.resolve())
    if loader_spec is None or loader_spec.loader is None:
        raise RegistryError(f"{spec}: not an importable Python file")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        raise _failed(spec, exc) from exc
    return module


_MAX_MODULE_BYTES = 1024 * 1024


def _run_pinned(spec: str, name: str, pins: Mapping[str, str]) -> ModuleType:
    """Read once: the bytes hashed are the bytes executed, so a file swapped after the
    check changes nothing."""
    path = Path(spec).expanduser().resolve()
    expected = pins.get(str(path))
    if expected is None:
        raise RegistryError(
            f"{spec}: not listed in the policy's [[contracts]]; under a policy a contract "
            "module loads only with its sha256 pinned there"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise RegistryError(f"{spec}: not a regular file")
            data = handle.read(_MAX_MODULE_BYTES + 1)
    except OSError as exc:
        raise RegistryError(f"{spec}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > _MAX_MODULE_BYTES:
        raise RegistryError(f"{spec}: larger than {_MAX_MODULE_BYTES} bytes")
    found = hashlib.sha256(data).hexdigest()
    if found != expected:
        raise RegistryError(
            f"{spec}: its sha256 is {found}, the policy pins {expected}: the module was "
            "changed since it was pinned; nothing of it was run"
        )
    module = ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        exec(compile(data, str(path), "exec"), module.__dict__)  # noqa: S102 - pinned bytes
    except (Exception, SystemExit) as exc:
        raise _failed(spec, exc) from exc
    return module


_ONE = frozenset({"items", "additionalProperties", "not", "contains", "if", "then", "else"})
_MANY = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_NAMED = frozenset({"properties", "$defs", "patternProperties"})


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema as a provider's strict structured-output mode takes it:
    every property required, no others, no defaults, no keywords beside ``$ref``. A
    free-form mapping cannot be made strict: a ``RegistryError``, not a narrower schema."""
    try:
        schema = model.model_json_schema()
    except PydanticUserError as exc:
        detail = " ".join(str(exc).split())
        raise RegistryError(f"{model.__name__}: no JSON Schema: {detail}") from exc
    strict: dict[str, Any] = _strict(schema, schema.get("$defs", {}), model.__name__)
    return strict


def _strict(node: Any, defs: Mapping[str, Any], where: str) -> Any:
    if not isinstance(node, dict):
        return node
    node = _flatten(node, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "default":
            continue
        if key in _NAMED and isinstance(value, dict):
            out[key] = {k: _strict(v, defs, f"{where}.{k}") for k, v in value.items()}
        elif key in _MANY and isinstance(value, list):
            out[key] = [_strict(v, defs, where) for v in value]
        elif key in _ONE:
            out[key] = _strict(value, defs, where if key != "items" else f"{where}[]")
        else:
            out[key] = value
    if out.get("type") == "object" or "properties" in out:
        if "properties" not in out and out.get("additionalProperties", False) is not False:
            raise RegistryError(
                f"{where}: a free-form mapping cannot be expressed in a strict JSON Schema"
            )
        out["required"] = list(out.get("properties", {}))
        out["additionalProperties"] = False
    return out


def _flatten(node: dict[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """Merge a one-element ``allOf`` and a ``$ref`` that has siblings into the node itself."""
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        rest = {k: v for k, v in node.items() if k != "allOf"}
        node = {**all_of[0], **rest}
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1 and ref.startswith("#/$defs/"):
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            rest = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **rest}
    return node
