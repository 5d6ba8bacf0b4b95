"""How many evaluations listing a rejected payload's errors could take, counted first.

``iter_errors`` evaluates every failing branch of an ``anyOf``/``oneOf`` and every
branch below: against nested branches a payload of a few bytes asks for exponentially
many evaluations (20 levels of ``anyOf`` over ``$ref``: 133 s, where ``is_valid`` took
41 ms). So the evaluations are counted first, each (subschema, value) pair once, in
polynomial time; past the budget the payload, rejected either way, is blocked
``over_budget`` instead of listed. Counts are upper bounds.

Most contracts need no count: with no recursion and at most :data:`MAX_PATHS` paths from
the root, the listing grows with the payload, not with the nesting.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from handoff_gate.gates.contracts.json_schema import JsonSchemaContract
from handoff_gate.gates.inspect.schema_refs import RefIndex, index_of
from handoff_gate.gates.vocab.fieldpaths import pointer_step

#: Evaluations a listing may make (about 0.3 s of the validator's at 13 levels of
#: nesting), and how many more for each value of the payload.
MAX_EVALUATIONS = 50_000
PER_VALUE = 64
#: (subschema, value) pairs the count itself may look at (about half a second).
MAX_STEPS = 100_000
#: Paths from the root of a contract whose listing needs no count.
MAX_PATHS = 10_000

#: Keywords whose subschema applies to the value itself.
_IN_PLACE = ("not", "if", "then", "else")
_BRANCHES = ("allOf", "anyOf", "oneOf")
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")
#: Keywords whose subschema applies to each member of an object or array.
_MEMBER = ("additionalProperties", "unevaluatedProperties", "propertyNames")
_ITEM = ("items", "additionalItems", "contains", "unevaluatedItems")
_META = "#meta"
#: The value of the static count: any value, every keyword applying.
_ANY = object()


class _Exceeded(Exception):
    """Past the budget, or the count cannot be made."""


def listing_is_bounded(contract: JsonSchemaContract, payload: Any) -> bool:
    counter: _Counter | None = contract.memo.get("#cost")
    if counter is None:
        counter = contract.memo["#cost"] = _Counter(contract)
    if counter.linear:
        return True
    budget = MAX_EVALUATIONS + PER_VALUE * _values(payload)
    try:
        counter.evaluations(payload, budget)
    except _Exceeded:
        return False
    return True


def _values(payload: Any) -> int:
    """Containers and scalars, ``payload`` itself included."""
    count = 0
    stack = [payload]
    while stack:
        value = stack.pop()
        count += 1
        if type(value) is dict:
            stack.extend(value.values())
        elif type(value) is list:
            stack.extend(value)
    return count


class _Counter:
    def __init__(self, contract: JsonSchemaContract) -> None:
        self._subschema = contract.subschema
        self._index: RefIndex = index_of(contract.document)
        try:
            self.linear = self._paths() <= MAX_PATHS
        except _Exceeded:
            self.linear = False

    def _paths(self) -> int:
        """:class:`_Exceeded` for a loop, or past :data:`MAX_PATHS`."""
        known: dict[str, int] = {}
        return _post_order("", lambda at: (p for p, _ in self._edges(at, _ANY)), known, MAX_PATHS)

    def evaluations(self, payload: Any, budget: int) -> int:
        """(subschema, value) evaluations a full listing could make; :class:`_Exceeded`
        past ``budget``."""
        values: dict[int, Any] = {}

        def below(node: str) -> Iterator[str]:
            at, _, key = node.rpartition("@")
            value = values[int(key)]
            for pointer, child in self._edges(at, value):
                values.setdefault(id(child), child)
                yield f"{pointer}@{id(child)}"

        values[id(payload)] = payload
        return _post_order(f"@{id(payload)}", below, {}, budget, loops=True)

    def _edges(self, at: str, value: Any) -> Iterator[tuple[str, Any]]:
        """The subschemas that apply under the one at ``at``, each with its value; for
        :data:`_ANY` (the static count), every one."""
        schema = self._subschema(at)
        if type(schema) is not dict:
            return
        static = value is _ANY
        for word in _REFS:
            ref = schema.get(word)
            if isinstance(ref, str):
                yield from ((p, value) for p in self._targets(at, word, ref))
        if self._index.old and "$ref" in schema:
            return  # Draft 7 and older: a schema with $ref is only its $ref
        for word in _BRANCHES:
            parts = schema.get(word)
            if isinstance(parts, list):
                yield from ((f"{at}/{word}/{i}", value) for i in range(len(parts)))
        yield from ((f"{at}/{word}", value) for word in _IN_PLACE if word in schema)
        if static or type(value) is dict:
            yield from self._member_edges(at, schema, value)
        if static or type(value) is list:
            yield from self._item_edges(at, schema, value)

    def _member_edges(
        self, at: str, schema: dict[str, Any], value: Any
    ) -> Iterator[tuple[str, Any]]:
        keys = None if value is _ANY else list(value)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for key in properties if keys is None else keys:
                if key in properties:
                    yield (
                        f"{at}/properties/{pointer_step(key)}",
                        _ANY if keys is None else value[key],
                    )
        for word in ("patternProperties", "dependentSchemas", "dependencies"):
            named = schema.get(word)
            if not isinstance(named, dict):
                continue
            for name, sub in named.items():
                if not isinstance(sub, dict | bool):
                    continue  # a dependency's list of names applies no subschema
                where = f"{at}/{word}/{pointer_step(name)}"
                if word != "patternProperties":
                    if keys is None or name in keys:
                        yield where, value
                elif keys is None:
                    yield where, _ANY
                else:  # counted as if it matched every key: an upper bound
                    yield from ((where, value[key]) for key in keys)
        for word in _MEMBER:
            if word not in schema:
                continue
            if keys is None:
                yield f"{at}/{word}", _ANY
            elif word == "propertyNames":
                yield from ((f"{at}/{word}", key) for key in keys)
            else:
                yield from ((f"{at}/{word}", value[key]) for key in keys)

    def _item_edges(self, at: str, schema: dict[str, Any], value: Any) -> Iterator[tuple[str, Any]]:
        static = value is _ANY
        for word in ("prefixItems", "items"):
            leading = schema.get(word)
            if isinstance(leading, list):
                count = len(leading) if static else min(len(leading), len(value))
                yield from (
                    (f"{at}/{word}/{i}", _ANY if static else value[i]) for i in range(count)
                )
        for word in _ITEM:
            if word not in schema or isinstance(schema[word], list):
                continue
            if static:
                yield f"{at}/{word}", _ANY
            else:
                yield from ((f"{at}/{word}", item) for item in value)

    def _targets(self, at: str, word: str, ref: str) -> list[str]:
        """For a dynamic reference, every anchor it may reach."""
        target = self._index.resolve(at, ref)
        if target is None:
            raise _Exceeded(f"{word} {ref[:100]!r} does not land in the document")
        if target == _META:
            return []  # a metaschema: a fixed cost, not a branch of this document
        if word == "$recursiveRef":
            return [target, *(p for p in self._index.recursive if p != target)]
        if word == "$dynamicRef":
            name = ref.rpartition("#")[2]
            return [target, *(p for p in self._index.dynamic.get(name, ()) if p != target)]
        return [target]


def _post_order(
    root: str, below: Any, known: dict[str, int], budget: int, *, loops: bool = False
) -> int:
    """1 + the counts of everything below ``root``, each worked out once (``known``),
    iteratively. A node that leads back to itself raises unless ``loops``: then the way
    back counts one (two ``$ref`` naming each other constrain nothing)."""
    stack: list[tuple[str, list[str] | None]] = [(root, None)]
    open_: set[str] = set()
    while stack:
        node, children = stack.pop()
        if children is None:
            if node in known:
                continue
            if node in open_:
                if loops:
                    continue  # counted one in the total below
                raise _Exceeded("a subschema applies to its own value again")
            if len(known) + len(open_) > MAX_STEPS:
                raise _Exceeded(f"over {MAX_STEPS} steps")
            open_.add(node)
            children = list(below(node))
            stack.append((node, children))
            stack.extend((child, None) for child in children if child not in known)
            continue
        open_.discard(node)
        total = 1 + sum(known.get(child, 1) for child in children)
        if total > budget:
            raise _Exceeded(f"over {budget}")
        known[node] = total
    return known[root]
