"""A tool call's contract: the tool's own argument JSON Schema, named by its digest.

A tool-call handoff carries the schema the framework declared for the tool (pydantic-ai's
``parameters_json_schema``, OpenAI Agents' ``params_json_schema``, a LangChain tool's
argument schema) in ``tool.parameters``, and names it in ``schema`` as ``tool/`` plus the
start of its sha256. Every reader builds the contract from that document, so a reviewer
in another process checks the arguments against exactly what the producer declared,
without importing the producer's code; a ``schema`` that does not name the document it
sits beside finds no contract and is blocked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from handoff_gate.gates.contracts.json_schema import contract_from_json_schema, schema_sha256
from handoff_gate.gates.contracts.registry import Registry

#: How a tool call's contract is named: this prefix, then the schema's digest (16 hex).
PREFIX = "tool/"
DIGEST_CHARS = 16


def tool_schema_id(parameters: Mapping[str, Any]) -> str:
    """The ``schema`` a tool call with these parameters names (``JsonSchemaError`` if the
    document is not JSON)."""
    return PREFIX + schema_sha256(parameters)[:DIGEST_CHARS]


def with_tool_contract(registry: Registry, parameters: Mapping[str, Any]) -> Registry:
    """``registry`` plus the contract built from ``parameters`` under its ``tool/`` id.

    Raises ``JsonSchemaError`` (one line naming the keyword) for a schema the inspector
    would not enforce, so such a call is blocked rather than checked against less.
    """
    return _WithTool(registry, tool_schema_id(parameters), contract_from_json_schema(parameters))


class _WithTool(Mapping[str, type[BaseModel]]):
    """A registry seen with one more contract, looking nothing else up until asked (the
    built-ins stay unimported, as ``Contracts`` keeps them)."""

    __slots__ = ("_base", "_id", "_model")

    def __init__(self, base: Registry, schema_id: str, model: type[BaseModel]) -> None:
        self._base, self._id, self._model = base, schema_id, model

    def __getitem__(self, schema_id: str) -> type[BaseModel]:
        return self._model if schema_id == self._id else self._base[schema_id]

    def __contains__(self, schema_id: object) -> bool:
        return schema_id == self._id or schema_id in self._base

    def __iter__(self) -> Iterator[str]:
        yield self._id
        yield from (i for i in self._base if i != self._id)

    def __len__(self) -> int:
        return len(self._base) + (self._id not in self._base)
