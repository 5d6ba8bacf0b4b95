"""A user contract for the large-payload benchmark, loaded the way ``--schemas`` loads one.

Every built-in contract caps its lists (a runaway model output is a bug to stop), so a
valid ~5 MB payload with tens of thousands of list items needs a contract without a
cap: an inventory of files, like one a code-indexing phase hands on.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from handoff_gate.schemas.base import Contract
from handoff_gate.schemas.types import FilePath, Line, Name


class Item(Contract):
    id: int = Field(ge=1)
    path: FilePath
    summary: Line
    tags: list[Name]
    size: int = Field(ge=0)


class Inventory(Contract):
    """``bench_inventory/v1``: every file of a repository, with a one-line summary."""

    repository: Line
    items: list[Item] = Field(min_length=1)


SCHEMAS: dict[str, type[BaseModel]] = {"bench_inventory/v1": Inventory}
