"""What a class contract looks like from the payload's side: which keys a model
accepts, which fields are required, and where nested models can hide; once per class.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import MISSING, AliasChoices, BaseModel
from pydantic.fields import FieldInfo

from handoff_gate.gates.vocab.absent import ABSENT

Kind = Literal["leaf", "any", "model", "list", "dict", "union"]


@dataclass(frozen=True, slots=True)
class Shape:
    """Where nested models can hide inside one annotation."""

    kind: Kind
    model: type[BaseModel] | None = None
    item: Shape | None = None
    options: tuple[Shape, ...] = ()


_LEAF = Shape("leaf")
_ANY = Shape("any")


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """``keys``: alias first. ``optional``: neither required nor defaulted (pydantic's
    ``MISSING``): absent, it is absent from the delivery too."""

    name: str
    keys: tuple[str, ...]
    required: bool
    info: FieldInfo
    shape: Shape
    optional: bool = False


@dataclass(frozen=True, slots=True)
class ModelPlan:
    """``open`` (``extra="allow"``): unnamed keys pass through with a warning, ``extra``
    their values' shape; ``closed`` (``extra="forbid"``): one blocks the handoff."""

    fields: tuple[FieldPlan, ...]
    keys: frozenset[str]
    by_key: Mapping[str, FieldPlan]
    nested: tuple[FieldPlan, ...]
    open: bool = False
    extra: Shape = Shape("any")
    closed: bool = False


def shape_of(annotation: Any) -> Shape:
    """Models are referenced, not expanded."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return shape_of(args[0])
    if annotation is Any or annotation is object:
        return _ANY
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Shape("model", model=annotation)
    if origin in (typing.Union, types.UnionType):
        return _combined([shape_of(a) for a in args]) if args else _ANY
    if origin in (list, tuple, set, frozenset) or _is_abc(origin, Sequence):
        item = _combined([shape_of(a) for a in args if a is not Ellipsis])
        return _LEAF if item.kind == "leaf" else Shape("list", item=item)
    if origin is dict or _is_abc(origin, Mapping):
        item = shape_of(args[1]) if len(args) == 2 else _ANY
        return _LEAF if item.kind == "leaf" else Shape("dict", item=item)
    return _LEAF


def _combined(shapes: list[Shape]) -> Shape:
    """One shape for several alternatives (a union, or a fixed tuple's items)."""
    if not shapes:
        return _ANY
    options = tuple(s for s in shapes if s.kind != "leaf")
    if not options:
        return _LEAF
    return options[0] if len(options) == 1 else Shape("union", options=options)


def _is_abc(origin: Any, abc: type) -> bool:
    return isinstance(origin, type) and issubclass(origin, abc) and origin is not str


def _input_keys(name: str, info: FieldInfo, model: type[BaseModel]) -> tuple[str, ...]:
    keys: list[str] = []
    alias = info.validation_alias
    if isinstance(alias, str):
        keys.append(alias)
    elif isinstance(alias, AliasChoices):
        keys.extend(c for c in alias.choices if isinstance(c, str))
    elif info.alias:
        keys.append(info.alias)
    config = model.model_config
    if not keys or config.get("validate_by_name") or config.get("populate_by_name"):
        keys.append(name)
    return tuple(dict.fromkeys(keys))


@cache
def plan_of(model: type[BaseModel]) -> ModelPlan:
    fields = tuple(
        FieldPlan(
            name=name,
            keys=_input_keys(name, info, model),
            required=info.is_required(),
            info=info,
            shape=shape_of(info.annotation),
            optional=info.default is MISSING,
        )
        for name, info in model.model_fields.items()
    )
    by_key = {key: f for f in fields for key in f.keys}
    nested = tuple(f for f in fields if f.shape.kind not in ("leaf", "any"))
    extra = model.model_config.get("extra")
    return ModelPlan(
        fields,
        frozenset(by_key),
        by_key,
        nested,
        extra == "allow",
        _extra_shape(model),
        extra == "forbid",
    )


def _extra_shape(model: type[BaseModel]) -> Shape:
    """From ``__pydantic_extra__: dict[str, X]``; one that cannot be resolved is ``any``
    (validated by pydantic, but not walked)."""
    for cls in model.__mro__:
        declared = vars(cls).get("__annotations__", {}).get("__pydantic_extra__")
        if declared is None:
            continue
        if isinstance(declared, str):
            try:
                declared = typing.get_type_hints(cls).get("__pydantic_extra__")
            except Exception:  # an unresolvable forward reference: validated, not walked
                return _ANY
        args = typing.get_args(declared)
        return shape_of(args[1]) if len(args) == 2 else _ANY
    return _ANY


def pick(shape: Shape, value: Any) -> Shape:
    """The union option that fits ``value`` best (the model naming most of its keys)."""
    if shape.kind != "union":
        return shape
    if isinstance(value, dict):
        best, score = _ANY, -1
        for option in shape.options:
            if option.kind == "model" and option.model is not None:
                hits = len(plan_of(option.model).keys.intersection(value))
                if hits > score:
                    best, score = option, hits
            elif option.kind == "dict" and score < 0:
                best = option
        return best
    if isinstance(value, list):
        return next((o for o in shape.options if o.kind == "list"), _ANY)
    return _ANY


def default_of(info: FieldInfo) -> Any:
    """As JSON data (a model default as the object it delivers), or ``ABSENT`` if it
    needs other fields."""
    try:
        default = info.get_default(call_default_factory=True, validated_data={})
    except Exception:  # a factory that needs other fields: say so instead of guessing
        return ABSENT
    if isinstance(default, BaseModel):
        return default.model_dump(mode="json", by_alias=True)
    return default


@cache
def is_closed(model: type[BaseModel]) -> bool:
    """Every model reachable forbids extra keys and has only required fields: a payload
    that validates has nothing to drop or default."""
    seen: set[type[BaseModel]] = set()
    todo = [model]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        plan = plan_of(current)
        if current.model_config.get("extra") != "forbid" or not all(
            f.required for f in plan.fields
        ):
            return False
        for f in plan.nested:
            todo.extend(_models_in(f.shape))
    return True


def _models_in(shape: Shape) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    todo = [shape]
    while todo:
        current = todo.pop()
        if current.model is not None:
            found.append(current.model)
        if current.item is not None:
            todo.append(current.item)
        todo.extend(current.options)
    return found
