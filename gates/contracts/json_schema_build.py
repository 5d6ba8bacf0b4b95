"""Translate one JSON Schema document into strict contract models (``schemas.base.Contract``).

Every object becomes a model class of the project's strict base, so a JSON-Schema
contract goes through exactly the inspection a Python contract does (unknown keys,
absent, defaulted and empty fields, truncation, secrets, the field rows, the delivery):
nothing in ``gates.inspect`` knows which kind it has. Properties become fields named
``f0, f1, …`` with the property's name as alias, so any key (``model_config``, ``a-b``,
``_x``) is a field and the delivery is by alias. A property that is neither required nor
defaulted has pydantic's ``MISSING`` as default: absent, it is absent from the delivery.

Nothing here runs code from the schema: the document is data, and every keyword maps
to a pydantic constraint or to a check of ``json_schema_values``.
"""

from __future__ import annotations

import copy
import math
import re
import typing
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import (
    MISSING,
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import SchemaError

from handoff_gate.gates.contracts import json_schema_keywords as kw
from handoff_gate.gates.contracts.json_schema_keywords import JsonSchemaError, pointer, refuse
from handoff_gate.gates.contracts.json_schema_values import (
    exactly_one,
    format_check,
    one_of_values,
    unique_items,
)
from handoff_gate.schemas.base import Contract

#: How deep a schema may nest (JSON Pointer steps): payloads nest at most 64 levels.
MAX_NESTING = 200
_REF = re.compile(r"#/(\$defs|definitions)/([^/]+)")
_NAME = re.compile(r"[^A-Za-z0-9_]")
_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


def _whole(node: Mapping[str, Any]) -> Any:
    """An ``int`` under the numeric keywords (pydantic's int bounds must be integers):
    ``minimum: 1.5`` is ``ge=2``, ``exclusiveMaximum: 3.5`` is ``lt=4``, and a fractional
    ``multipleOf`` is checked exactly, as a fraction."""
    bounds: dict[str, int] = {}
    for key, name, rounded in (
        ("minimum", "ge", math.ceil),
        ("maximum", "le", math.floor),
        ("exclusiveMinimum", "gt", math.floor),
        ("exclusiveMaximum", "lt", math.ceil),
    ):
        if node.get(key) is not None:
            bounds[name] = rounded(node[key])
    step = node.get("multipleOf")
    if step is None or float(step).is_integer():
        if step is not None:
            bounds["multiple_of"] = int(step)
        return Annotated[int, Field(**bounds)]  # type: ignore[call-overload]
    fraction = Fraction(str(step))

    def multiple(value: int) -> int:
        if Fraction(value) % fraction:
            raise ValueError(f"should be a multiple of {step}")
        return value

    return Annotated[int, Field(**bounds), AfterValidator(multiple)]  # type: ignore[call-overload]


class Built(typing.NamedTuple):
    """The root model and every model made for the document (for the default probe)."""

    root: type[BaseModel]
    models: tuple[type[BaseModel], ...]


class Builder:
    """One pass over one document; not reused."""

    def __init__(self, document: Mapping[str, Any], name: str) -> None:
        self.document = document
        self.name = name
        self.models: list[type[BaseModel]] = []
        self.namespace: dict[str, Any] = {}
        self.done: dict[str, Any] = {}
        self.active: dict[str, str | None] = {}
        #: Class names reserved for a ``$ref`` target, taken by the model built for it.
        self.claims: set[str] = set()
        #: Every ``pattern`` and where it is, to name the one the validator cannot use.
        self.patterns: list[tuple[str, str]] = []
        self.defaults: dict[type[BaseModel], dict[str, str]] = {}

    def build(self) -> Built:
        doc = self.document
        kw.check_values(doc, "#", root=True)
        for key in ("$defs", "definitions"):
            if key in doc and not isinstance(doc[key], dict):
                raise refuse(pointer("#", key), key, "must be an object")
        root = self.annotation(doc, "#", name=self.name, root=True)
        if not (isinstance(root, type) and issubclass(root, BaseModel)):
            raise refuse("#", "type", "a contract's top level must be an object with properties")
        self._finish()
        return Built(root, tuple(self.models))

    # -- nodes ---------------------------------------------------------------------------

    def annotation(self, node: Any, where: str, *, name: str = "", root: bool = False) -> Any:
        """The annotation a value under ``node`` is validated with."""
        if where.count("/") > MAX_NESTING:
            raise refuse(where, "(schema)", f"nested more than {MAX_NESTING} levels deep")
        if node is True:
            return Any
        if not isinstance(node, dict):
            raise refuse(where, "(schema)", "a schema must be an object (or true)")
        if not root:
            kw.check_values(node, where, root=False)
        combined = [k for k in kw.COMBINED if k in node]
        if combined:
            return self._combined(node, where, combined, name)
        if kw.CHOICE & node.keys():
            return self._choice(node, where)
        types = node.get("type")
        if types is None:
            if not (node.keys() - kw.ANNOTATIONS - kw.ROOT_ONLY - {"default"}):
                return Any
            if kw.OBJECT & node.keys():
                return self._object(node, where, name)
            raise refuse(where, sorted(node.keys() - kw.ANNOTATIONS)[0], "needs a 'type'")
        names = [types] if isinstance(types, str) else types
        if (
            not isinstance(names, list)
            or not names
            or not all(isinstance(t, str) and t in kw.TYPES for t in names)
            or len(set(names)) != len(names)
        ):
            raise refuse(pointer(where, "type"), "type", f"must name distinct {sorted(kw.TYPES)}")
        taken = frozenset().union(*(kw.BY_TYPE.get(t, frozenset()) for t in names))
        stray = node.keys() & (kw.STRING | kw.NUMBER | kw.ARRAY | kw.OBJECT) - taken
        if stray:
            key = sorted(stray)[0]
            raise refuse(pointer(where, key), key, f"does not apply to type {types}")
        options = [self._typed(t, node, where, name) for t in names]
        return options[0] if len(options) == 1 else typing.Union[tuple(options)]  # noqa: UP007

    def _typed(self, kind: str, node: Mapping[str, Any], where: str, name: str) -> Any:
        if kind == "string":
            return self._string(node, where)
        if kind in ("integer", "number"):
            return self._number(kind, node)
        if kind == "boolean":
            return bool
        if kind == "null":
            return None
        if kind == "array":
            return self._array(node, where, name)
        return self._object(node, where, name)

    def _string(self, node: Mapping[str, Any], where: str) -> Any:
        constraints = StringConstraints(
            min_length=node.get("minLength"),
            max_length=node.get("maxLength"),
            pattern=node.get("pattern"),
        )
        if "pattern" in node:
            self.patterns.append((node["pattern"], pointer(where, "pattern")))
        if "format" in node:
            return Annotated[str, constraints, AfterValidator(format_check(node["format"]))]
        return Annotated[str, constraints]

    def _number(self, kind: str, node: Mapping[str, Any]) -> Any:
        """``integer`` is ``int``; ``number`` is ``int`` or ``float``, so an integer is
        delivered as the producer wrote it (``3``, never ``3.0``)."""
        whole = _whole(node)
        if kind == "integer":
            return whole
        bounds = Field(
            ge=node.get("minimum"),
            le=node.get("maximum"),
            gt=node.get("exclusiveMinimum"),
            lt=node.get("exclusiveMaximum"),
            multiple_of=node.get("multipleOf"),
        )
        return typing.Union[whole, Annotated[float, bounds]]  # noqa: UP007

    def _array(self, node: Mapping[str, Any], where: str, name: str) -> Any:
        item = self.annotation(node.get("items", True), pointer(where, "items"), name=name + "Item")
        extras: list[Any] = [
            Field(min_length=node.get("minItems"), max_length=node.get("maxItems"))
        ]
        if node.get("uniqueItems"):
            extras.append(AfterValidator(unique_items))
        return Annotated[(list[item], *extras)]  # type: ignore[valid-type]

    def _choice(self, node: Mapping[str, Any], where: str) -> Any:
        key = "const" if "const" in node else "enum"
        values = [node["const"]] if key == "const" else list(node[key])
        beside = node.keys() - kw.ANNOTATIONS - {"default", "type", key}
        if beside:
            other = sorted(beside)[0]
            raise refuse(pointer(where, other), other, f"not supported beside {key!r}")
        types = node.get("type")
        if types is not None:
            allowed = [types] if isinstance(types, str) else types
            wanted = tuple(t for a in allowed for t in _JSON_TYPES.get(a, ()))
            for v in values:
                if not isinstance(v, wanted) or (isinstance(v, bool) and bool not in wanted):
                    raise refuse(pointer(where, key), key, f"{v!r} is not of type {types}")
        if all(isinstance(v, str) for v in values):
            return Literal[tuple(values)]
        return Annotated[Any, AfterValidator(one_of_values(values))]

    def _combined(self, node: Mapping[str, Any], where: str, keys: list[str], name: str) -> Any:
        beside = node.keys() - kw.ANNOTATIONS - kw.ROOT_ONLY - {"default"} - {keys[0]}
        if len(keys) > 1 or beside:
            other = sorted(beside | set(keys[1:]))[0]
            raise refuse(pointer(where, other), other, f"not supported beside {keys[0]!r}")
        key = keys[0]
        if key == "$ref":
            return self._ref(node["$ref"], pointer(where, "$ref"))
        if key == "allOf":
            return self._all_of(node["allOf"], where, name)
        options = [
            self.annotation(sub, pointer(where, key, i), name=f"{name}Option{i}")
            for i, sub in enumerate(node[key])
        ]
        union = options[0] if len(options) == 1 else typing.Union[tuple(options)]  # noqa: UP007
        if key == "oneOf" and len(options) > 1:
            return Annotated[union, AfterValidator(exactly_one(self._fits(options)))]
        return union

    def _fits(self, options: list[Any]) -> list[Any]:
        """One probe per ``oneOf`` option: does JSON text fit it on its own?"""
        fits = []
        for i, option in enumerate(options):
            probe = self._model(f"OneOf{len(self.models)}_{i}", {"v": (option, Field())}, {})

            def fit(text: bytes, probe: type[BaseModel] = probe) -> bool:
                try:
                    probe.model_validate_json(b'{"v":' + text + b"}")
                except ValidationError:
                    return False
                return True

            fits.append(fit)
        return fits

    def _ref(self, ref: Any, where: str) -> Any:
        match = _REF.fullmatch(ref) if isinstance(ref, str) else None
        if match is None:
            raise refuse(where, "$ref", "only local references into #/$defs or #/definitions")
        key = match.group(2).replace("~1", "/").replace("~0", "~")
        defs = self.document.get(match.group(1))
        if not isinstance(defs, dict) or key not in defs:
            raise refuse(where, "$ref", f"no definition {key!r} in {match.group(1)}")
        if ref in self.done:
            return self.done[ref]
        if ref in self.active:
            model_name = self.active[ref]
            if model_name is None:
                raise refuse(where, "$ref", "a cycle of references that no object interrupts")
            return typing.ForwardRef(model_name)
        target = defs[key]
        is_object = isinstance(target, dict) and (
            target.get("type") == "object" or ("type" not in target and "properties" in target)
        )
        model_name = self._unique(key) if is_object else None
        if model_name is not None:
            self.claims.add(model_name)
        self.active[ref] = model_name
        found = self.annotation(target, pointer("#", match.group(1), key), name=model_name or key)
        del self.active[ref]
        self.done[ref] = found
        return found

    def _all_of(self, parts: list[Any], where: str, name: str) -> Any:
        """``allOf`` of objects: one object with every part's properties and requirements."""
        merged: dict[str, Any] = {}
        required: list[str] = []
        open_parts = []
        for i, part in enumerate(parts):
            at = pointer(where, "allOf", i)
            resolved, at = self._resolved(part, at)
            if not isinstance(resolved, dict) or not (kw.OBJECT & resolved.keys()):
                raise refuse(at, "allOf", "supported only as a combination of objects")
            kw.check_values(resolved, at, root=False)
            for key, sub in resolved.get("properties", {}).items():
                if key in merged and merged[key] != sub:
                    raise refuse(at, "allOf", f"property {key!r} is defined twice, differently")
                merged[key] = sub
            required += [r for r in resolved.get("required", []) if r not in required]
            open_parts.append(resolved.get("additionalProperties", False))
        node: dict[str, Any] = {"type": "object", "properties": merged, "required": required}
        if all(p is True for p in open_parts):
            node["additionalProperties"] = True
        return self._object(node, where, name)

    def _resolved(self, part: Any, where: str) -> tuple[Any, str]:
        seen = set()
        while isinstance(part, dict) and set(part) - kw.ANNOTATIONS == {"$ref"}:
            ref = part["$ref"]
            match = _REF.fullmatch(ref) if isinstance(ref, str) else None
            if match is None or ref in seen:
                raise refuse(pointer(where, "$ref"), "$ref", "not a local, acyclic reference")
            seen.add(ref)
            defs = self.document.get(match.group(1))
            key = match.group(2).replace("~1", "/").replace("~0", "~")
            if not isinstance(defs, dict) or key not in defs:
                raise refuse(pointer(where, "$ref"), "$ref", f"no definition {key!r}")
            part, where = defs[key], pointer("#", match.group(1), key)
        return part, where

    def _object(self, node: Mapping[str, Any], where: str, name: str) -> Any:
        props: dict[str, Any] = node.get("properties", {})
        required: list[str] = node.get("required", [])
        extra = node.get("additionalProperties", False)
        for key in required:
            if key not in props:
                raise refuse(pointer(where, "required"), "required", f"{key!r} is not a property")
        if not props and extra is not False:
            at = pointer(where, "additionalProperties")
            return dict[str, self.annotation(extra, at, name=name + "Value")]  # type: ignore[misc]
        fields: dict[str, tuple[Any, Any]] = {}
        defaults: dict[str, str] = {}
        for i, (key, sub) in enumerate(props.items()):
            at = pointer(where, "properties", key)
            annotation = self.annotation(sub, at, name=f"{name}_{_NAME.sub('_', key)}")
            info = sub if isinstance(sub, dict) else {}
            text = {k: info[k] for k in ("title", "description") if k in info}
            if key in required:
                fields[f"f{i}"] = (annotation, Field(alias=key, **text))
            elif "default" in info:
                default = info["default"]
                fields[f"f{i}"] = (annotation, Field(copy.deepcopy(default), alias=key, **text))
                defaults[f"f{i}"] = pointer(at, "default")  # a default's error names the field
            else:
                # MISSING is never validated, and never serialized: absent stays absent.
                absent = Field(MISSING, alias=key, validate_default=False, **text)
                fields[f"f{i}"] = (annotation, absent)
        if extra is True:
            config = "allow"
        elif isinstance(extra, dict):
            at = pointer(where, "additionalProperties")
            value = self.annotation(extra, at, name=name + "Extra")
            fields["__pydantic_extra__"] = (dict[str, value], Field(init=False))  # type: ignore[valid-type]
            config = "allow"
        elif extra is False:
            config = "forbid"
        else:
            raise refuse(
                pointer(where, "additionalProperties"),
                "additionalProperties",
                "must be true, false or a schema",
            )
        doc = node.get("description") or node.get("title") or ""
        model = self._model(name, fields, {"extra": config}, doc)
        if defaults:
            self.defaults[model] = defaults
        return model

    # -- classes -------------------------------------------------------------------------

    def _unique(self, hint: str) -> str:
        base = _NAME.sub("_", hint) or "Object"
        if not base[0].isalpha():
            base = "S" + base
        found, n = base, 1
        while found in self.namespace:
            n += 1
            found = f"{base}{n}"
        self.namespace[found] = None
        return found

    def _model(
        self,
        name: str,
        fields: dict[str, tuple[Any, Any]],
        config: Mapping[str, Any],
        doc: str = "",
    ) -> type[BaseModel]:
        if name in self.claims:
            self.claims.discard(name)
        else:
            name = self._unique(name)
        body: dict[str, Any] = {
            "__annotations__": {k: v[0] for k, v in fields.items()},
            "__module__": __name__,
            "__doc__": doc or "A contract made from a JSON Schema.",
            # Built at once (defer_build is for imported classes, which may go unused):
            # one schema pass instead of a class, then a rebuild.
            "model_config": ConfigDict(validate_default=True, defer_build=False, **config),  # type: ignore[typeddict-item]
            **{k: v[1] for k, v in fields.items()},
        }
        try:
            model: type[BaseModel] = type(name, (Contract,), body)
        except (SchemaError, ValueError, TypeError) as exc:
            raise self._unusable(exc) from exc
        self.namespace[name] = model
        self.models.append(model)
        return model

    def _unusable(self, exc: Exception) -> JsonSchemaError:
        """Why pydantic could not build a validator, naming the ``pattern`` at fault when
        it is one (only looked for on this path: compiling each pattern alone costs)."""
        for pattern, where in self.patterns:
            try:
                TypeAdapter(Annotated[str, StringConstraints(pattern=pattern)])
            except (SchemaError, ValueError) as bad:
                detail = " ".join(str(bad).split())[:200]
                return refuse(where, "pattern", f"not usable: {detail}")
        detail = " ".join(str(exc).split())[:200]
        return JsonSchemaError(f"cannot build a validator: {detail}")

    def _finish(self) -> None:
        """Build every validator now, so a schema pydantic cannot use fails here, and
        refuse a default that its own schema would reject."""
        for model in self.models:
            if model.__pydantic_complete__:
                continue  # only a model that names one still being built waits until now
            try:
                model.model_rebuild(_types_namespace=self.namespace)
            except Exception as exc:
                raise self._unusable(exc) from exc
        for model, defaults in self.defaults.items():
            try:
                model.model_validate_json(b"{}")
            except ValidationError as exc:
                for error in exc.errors(include_url=False):
                    loc = error.get("loc", ())
                    if loc and loc[0] in defaults and error.get("type") != "missing":
                        where = defaults[str(loc[0])]
                        raise refuse(
                            where, "default", f"its own schema rejects it: {error['msg']}"
                        ) from exc
