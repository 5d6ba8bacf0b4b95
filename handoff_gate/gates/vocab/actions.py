"""What a reviewer can decide, and why a rejection was made (coarse enough to count)."""

from __future__ import annotations

from enum import StrEnum


class Action(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


class Category(StrEnum):
    """Why a handoff was rejected, coarse enough to count across runs."""

    INCOMPLETE = "incomplete"
    TRUNCATED = "truncated"
    WRONG = "wrong"
    UNSAFE = "unsafe"
    OUT_OF_SCOPE = "out_of_scope"
    OTHER = "other"
