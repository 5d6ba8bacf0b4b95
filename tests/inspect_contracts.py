"""Small contracts for the inspection tests: strict ones on the project's base, a lenient one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from handoff_gate.schemas.base import Contract, Issue, NonEmptyStr


class Step(Contract):
    name: NonEmptyStr
    owner: NonEmptyStr


class Strict(Contract):
    title: NonEmptyStr
    kind: Literal["fix", "feature"]
    steps: list[Step]
    notes: list[str]


class Lenient(BaseModel):
    """A user model the way people write them: plain BaseModel, defaults everywhere."""

    title: str = "untitled"
    tags: list[str] = []
    owner: str | None = None


class Member(BaseModel):
    name: str = "nobody"
    email: str | None = None


class Team(BaseModel):
    """A lenient model with nested lenient models, as a user might write one."""

    lead: Member = Member()
    members: list[Member] = []
    by_role: dict[str, Member] = {}


class Aliased(Contract):
    """Keys that are not valid Python names, as providers' schemas often have."""

    sender: NonEmptyStr = Field(alias="from")
    reply_to: str = Field(alias="reply-to")


class Window(Contract):
    start: int
    end: int

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        start, end = data.get("start"), data.get("end")
        if isinstance(start, int) and isinstance(end, int) and end < start:
            return [Issue("end", "ends before it starts")]
        return []


class Log(Contract):
    append_only: ClassVar[tuple[str, ...]] = ("entries",)

    entries: list[str]


class Broken(Contract):
    value: int

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        raise RuntimeError("this hook has a bug")


REGISTRY: dict[str, type[BaseModel]] = {
    "strict/v1": Strict,
    "lenient/v1": Lenient,
    "team/v1": Team,
    "aliased/v1": Aliased,
    "window/v1": Window,
    "log/v1": Log,
    "broken/v1": Broken,
}

VALID_STRICT: dict[str, Any] = {
    "title": "Fix the login timeout",
    "kind": "fix",
    "steps": [
        {"name": "reproduce", "owner": "ana"},
        {"name": "patch", "owner": "bo"},
    ],
    "notes": ["seen on staging"],
}


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


DROP = object()


def strict_with(**changes: Any) -> bytes:
    """The valid strict payload with some top-level keys replaced (``DROP`` removes one)."""
    payload = {**VALID_STRICT, **changes}
    return dumps({k: v for k, v in payload.items() if v is not DROP})
