"""Where a ``$ref`` of a JSON Schema document lands, as a JSON Pointer into the document.

A reference is a URI resolved against the base URI in force where it sits (a root or
embedded ``$id``): reading it as a bare pointer works only by luck, and not at all once
an embedded ``$id`` or an ``$anchor`` is involved. So the document is indexed once per
contract. The index only answers from the document: a reference it cannot place
resolves to ``None``, and the caller decides what that costs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from handoff_gate.gates.contracts.json_schema import META_SCHEMAS, SCHEMA_MAPS, SCHEMA_VALUES
from handoff_gate.gates.vocab.fieldpaths import pointer_step

#: The base URI of a document without a root ``$id``: relative ids resolve against it
#: as they would against the validator's own default, and it never names a real place.
DEFAULT_BASE = "https://handoff-gate.invalid/root.json"
#: ``contentSchema`` names a subschema too, one an ``$id`` or anchor may sit in.
_SCHEMA_VALUES = SCHEMA_VALUES | {"contentSchema"}

#: Only reached by a document (at most 1 MB) that is nothing but nesting.
MAX_SUBSCHEMAS = 200_000


@dataclass
class RefIndex:
    draft: str
    base_of: dict[str, str] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)
    anchors: dict[tuple[str, str], str] = field(default_factory=dict)
    dynamic: dict[str, list[str]] = field(default_factory=dict)
    recursive: list[str] = field(default_factory=list)
    #: The document had more subschemas than :data:`MAX_SUBSCHEMAS`: nothing resolves.
    whole: bool = True

    @property
    def old(self) -> bool:
        """Draft 7 and older: ``$ref`` replaces its siblings."""
        return self.draft in ("7", "6", "4")

    def resolve(self, at: str, ref: str) -> str | None:
        """``"#meta"`` for a known metaschema; ``None`` when the document does not hold it."""
        if not self.whole:
            return None
        base = self._base(at)
        if base is None:
            return None
        try:
            uri, fragment = urldefrag(_join(base, ref))
        except ValueError:  # a URI Python cannot read: the gate cannot tell where it lands
            return None
        if uri in META_SCHEMAS and uri not in self.resources:
            return "#meta"
        root = self.resources.get(uri)
        if root is None:
            return None
        if fragment == "":
            return root
        if fragment.startswith("/"):
            return root + unquote(fragment)
        return self.anchors.get((uri, unquote(fragment)))

    def _base(self, at: str) -> str | None:
        """Or at its nearest indexed ancestor: a reference may land where no walk reaches."""
        pointer = at
        while True:
            found = self.base_of.get(pointer)
            if found is not None or not pointer:
                return found
            pointer = pointer.rpartition("/")[0]


def _join(base: str, ref: str) -> str:
    """A fragment-only reference keeps the base whatever its scheme (``urljoin`` does
    not resolve against ``urn:`` and the like)."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    return urljoin(base, ref)


def _draft(document: Mapping[str, Any]) -> str:
    declared = document.get("$schema")
    if isinstance(declared, str):
        for marker, name in (
            ("draft-04", "4"),
            ("draft-06", "6"),
            ("draft-07", "7"),
            ("2019-09", "2019"),
        ):
            if marker in declared:
                return name
    return "2020"


def index_of(document: Mapping[str, Any]) -> RefIndex:
    draft = _draft(document)
    index = RefIndex(draft)
    id_word = "id" if draft == "4" else "$id"
    stack: list[tuple[str, Any, str]] = [("", document, DEFAULT_BASE)]
    index.resources[DEFAULT_BASE] = ""
    while stack:
        pointer, node, base = stack.pop()
        if not isinstance(node, Mapping):
            continue
        if len(index.base_of) >= MAX_SUBSCHEMAS:
            index.whole = False
            return index
        ident = node.get(id_word)
        if isinstance(ident, str) and not (index.old and "$ref" in node):
            try:
                uri, fragment = urldefrag(_join(base, ident))
            except ValueError:  # an id Python cannot read: no reference can be placed
                index.whole = False
                return index
            if fragment and ident.startswith("#"):  # Draft 4-7's plain-name anchor
                index.anchors[(uri, fragment)] = pointer
            else:
                base = uri
                index.resources.setdefault(uri, pointer)
                if fragment:
                    index.anchors[(uri, fragment)] = pointer
        index.base_of[pointer] = base
        anchor = node.get("$anchor")
        if isinstance(anchor, str):
            index.anchors[(base, anchor)] = pointer
        dynamic = node.get("$dynamicAnchor")
        if isinstance(dynamic, str):
            index.anchors.setdefault((base, dynamic), pointer)
            index.dynamic.setdefault(dynamic, []).append(pointer)
        if node.get("$recursiveAnchor") is True:
            index.recursive.append(pointer)
        for key, value in node.items():
            here = f"{pointer}/{pointer_step(key)}"
            if key in SCHEMA_MAPS and isinstance(value, Mapping):
                stack.extend((f"{here}/{pointer_step(k)}", v, base) for k, v in value.items())
            elif key == "dependencies" and isinstance(value, Mapping):
                stack.extend(
                    (f"{here}/{pointer_step(k)}", v, base)
                    for k, v in value.items()
                    if isinstance(v, Mapping)
                )
            elif key in _SCHEMA_VALUES and isinstance(value, list):
                stack.extend((f"{here}/{i}", v, base) for i, v in enumerate(value))
            elif key in _SCHEMA_VALUES:
                stack.append((here, value, base))
    return index
