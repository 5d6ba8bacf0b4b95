"""Why nothing was decided, as the toast that says so (a plain line, never markup)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Notice:
    """Why nothing was decided, as the toast that says so."""

    message: str
    title: str = ""
    severity: Severity = "information"


READ_ONLY = Notice(
    "Read-only review: decisions cannot be made here. Nothing was written.",
    "Read-only",
    "warning",
)
