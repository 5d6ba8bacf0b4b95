"""Defensive readers for ``cross_field_checks``.

Cross-field checks run on the raw parsed JSON, which may be any shape at all (that is
why they still speak when field validation failed). These helpers look only at the
parts that have the expected type and skip the rest, so a check never raises; the
field validator already reports the wrong types.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from handoff_gate.schemas.base import Issue

#: An empty, ``.`` or ``..`` segment, in a path framed by ``/`` on both ends.
_ODD_SEGMENT = re.compile(r"/\.{0,2}/")


def _listed(data: object, key: str) -> list[Any]:
    """``data[key]`` when ``data`` is a JSON object and that value is a list, else ``[]``."""
    if not isinstance(data, Mapping):
        return []
    value = data.get(key)
    return value if isinstance(value, list) else []


def objects(data: object, key: str) -> list[tuple[int, Mapping[str, Any]]]:
    """The ``(index, element)`` pairs of ``data[key]`` whose element is a JSON object."""
    # Parsed JSON objects are dicts: the exact type check spares the ABC machinery.
    return [
        (i, item)
        for i, item in enumerate(_listed(data, key))
        if type(item) is dict or isinstance(item, Mapping)
    ]


def strings_in(data: object, key: str, field: str) -> list[tuple[int, str]]:
    """``(index, element[field])`` for the JSON objects in ``data[key]`` with a string there."""
    return [(i, text) for i, item in objects(data, key) if isinstance(text := item.get(field), str)]


def strings(data: object, key: str) -> list[tuple[int, str]]:
    """The ``(index, element)`` pairs of ``data[key]`` whose element is a string."""
    return [(i, item) for i, item in enumerate(_listed(data, key)) if isinstance(item, str)]


def duplicates(located: Iterable[tuple[str, object]], what: str) -> list[Issue]:
    """One issue per repeat of a string or integer value, pointing at the first one."""
    first: dict[tuple[type, object], str] = {}
    issues: list[Issue] = []
    for path, value in located:
        if isinstance(value, bool) or not isinstance(value, str | int):
            continue
        key = (type(value), value)
        if key in first:
            issues.append(Issue(path, f"duplicate {what}: same as {first[key]}"))
        else:
            first[key] = path
    return issues


def quoted(value: str, limit: int = 80) -> str:
    """``value`` quoted for a message, cut at ``limit`` characters so a message stays short."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def unsafe_path(path: str) -> str | None:
    """Why ``path`` could name something outside the project tree, or ``None`` if it cannot."""
    if "\\" in path:
        return "use forward slashes: a backslash is a separator on some systems"
    if path.startswith("/"):
        return "must be relative to the project root, not absolute"
    if len(path) >= 2 and path[1] == ":" and path[0].isalpha():
        return "must be relative to the project root, not a drive path"
    segments = path.split("/")
    if ".." in segments:
        return "must not contain a '..' segment"
    if "" in segments or "." in segments:
        return "must not contain empty or '.' segments"
    return None


def unsafe_paths(paths: Sequence[str]) -> list[tuple[int, str]]:
    """``(position, why)`` for each path :func:`unsafe_path` objects to, in order.
    Three quick searches over the paths joined by ``/`` clear the usual case, where
    none is unsafe; only a suspect sends each path to :func:`unsafe_path`.
    """
    joined = "/".join(paths)
    if "\\" not in joined and ":" not in joined and not _ODD_SEGMENT.search(f"/{joined}/"):
        return []
    return [(n, why) for n, p in enumerate(paths) if (why := unsafe_path(p)) is not None]


def instant(value: object) -> datetime | None:
    """A timezone-aware time for an ISO-8601 string, or ``None`` when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
