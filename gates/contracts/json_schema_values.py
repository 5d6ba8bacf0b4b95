"""Value checks a JSON Schema names that pydantic has no strict-mode type for.

``format`` values stay strings: a contract delivers the exact text the producer sent
(``"2025-01-31T09:00:00+01:00"`` is never rewritten as ``…+01:00`` → ``…Z``), so each
format is a check on a ``str``, not a conversion to ``datetime`` or ``UUID``. A
non-string ``enum``, ``uniqueItems`` and ``oneOf``'s "exactly one" have no pydantic
spelling that keeps JSON's meaning (``Literal[1]`` accepts ``true`` and ``1.0``), so
they are checks too. Each raises ``ValueError``, which pydantic reports at the value's
exact path, and inspection turns into ``invalid_field``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

import pydantic_core

_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_TIME = r"[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
_DATE_RE = re.compile(_DATE)
_TIME_RE = re.compile(_TIME)
_DATE_TIME_RE = re.compile(f"{_DATE}[Tt]{_TIME}")
_EMAIL_RE = re.compile(r"[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)*")
_URI_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]*")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _real_date(text: str) -> bool:
    try:
        date.fromisoformat(text[:10])
    except ValueError:
        return False
    return True


def _real_time(text: str) -> bool:
    """RFC 3339 ``full-time``: hours, minutes and seconds in range (a leap second allowed),
    and an offset in range."""
    hour, minute, second = int(text[0:2]), int(text[3:5]), int(text[6:8])
    offset = text[8:].lstrip(".0123456789")
    if offset not in ("Z", "z") and (int(offset[1:3]) > 23 or int(offset[4:6]) > 59):
        return False
    return hour <= 23 and minute <= 59 and second <= 60


def _date_time(text: str) -> bool:
    if not (_DATE_TIME_RE.fullmatch(text) and _real_date(text) and _real_time(text[11:])):
        return False
    try:  # the combination must exist (a leap second is not checked against the calendar)
        datetime.fromisoformat(text[:19].replace(":60", ":59"))
    except ValueError:
        return False
    return True


#: Each supported ``format``: its check, and what the message says was expected.
FORMATS: dict[str, tuple[Callable[[str], bool], str]] = {
    "date-time": (_date_time, "an RFC 3339 date-time with an offset"),
    "date": (lambda t: bool(_DATE_RE.fullmatch(t)) and _real_date(t), "a date YYYY-MM-DD"),
    "time": (lambda t: bool(_TIME_RE.fullmatch(t)) and _real_time(t), "an RFC 3339 time"),
    "email": (lambda t: bool(_EMAIL_RE.fullmatch(t)), "an email address"),
    "uri": (lambda t: bool(_URI_RE.fullmatch(t)), "an absolute URI"),
    "uuid": (lambda t: bool(_UUID_RE.fullmatch(t)), "a UUID"),
}


def format_check(name: str) -> Callable[[str], str]:
    """The after-validator for ``format: name`` (a name not in :data:`FORMATS` is refused
    when the contract is built, never here)."""
    test, expected = FORMATS[name]

    def check(value: str) -> str:
        if not test(value):
            raise ValueError(f"should be {expected} (format {name})")
        return value

    return check


def _canonical(value: Any) -> Any:
    """A hashable key under JSON equality: ``1`` equals ``1.0``, ``true`` does not equal
    ``1``, and key order does not matter."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, int | float):
        return ("number", float(value) if float(value) == value else value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    return _canonical(pydantic_core.to_jsonable_python(value, by_alias=True))


def one_of_values(values: Sequence[Any]) -> Callable[[Any], Any]:
    """The check for an ``enum`` (or ``const``) that is not all strings."""
    allowed = {_canonical(v) for v in values}
    shown = ", ".join(pydantic_core.to_json(v).decode() for v in values[:10])

    def check(value: Any) -> Any:
        if _canonical(value) not in allowed:
            raise ValueError(f"should be one of: {shown}")
        return value

    return check


def unique_items(items: list[Any]) -> list[Any]:
    """``uniqueItems: true``: names the first repeated item and the one it repeats."""
    seen: dict[Any, int] = {}
    for i, item in enumerate(items):
        key = _canonical(item)
        if key in seen:
            raise ValueError(f"items must be unique: item {i} repeats item {seen[key]}")
        seen[key] = i
    return items


def exactly_one(options: Sequence[Callable[[bytes], bool]]) -> Callable[[Any], Any]:
    """``oneOf``: the value (already valid for at least one option) must fit only one."""

    def check(value: Any) -> Any:
        text = pydantic_core.to_json(value, by_alias=True)
        fits = sum(1 for fit in options if fit(text))
        if fits != 1:
            raise ValueError(f"fits {fits} of the oneOf alternatives; exactly one is required")
        return value

    return check
