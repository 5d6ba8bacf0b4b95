"""The strict base every built-in contract uses, and the hooks for checks beyond fields.

Contracts are plain pydantic models. Two optional class-level hooks let a contract
declare checks that inspection runs on the *parsed dict*, so they still run when field
validation failed (a pydantic ``model_validator(mode="after")`` would stay silent then):

* ``cross_field_checks(data) -> list[Issue]``: relations between fields.
* ``append_only: ClassVar[tuple[str, ...]]``: list fields that may only be extended,
  compared with the previous handoff of the same contract in the same run.

User contracts need neither; lenient models with defaults everywhere are supported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict, StringConstraints


class Issue(NamedTuple):
    """A contract-declared problem at a field path (``""`` for the whole payload)."""

    path: str
    message: str


#: Text that must contain at least one non-whitespace character.
NonEmptyStr = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]


class Contract(BaseModel):
    """Strict: unknown keys forbidden, no coercion of types, frozen once validated.

    ``defer_build``: a contract's validator is built on its first use, not at import, so
    a command that inspects one handoff pays for one contract rather than all of them.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)

    append_only: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        """Relations between fields, checked on the raw parsed object. None by default."""
        return []
