"""Bytes to a parsed JSON value, strictly, with a diagnosis when that fails.

The payload is parsed exactly once, by jiter, with duplicate keys and NaN/Infinity
rejected. When the strict parse fails at the end of the input and a partial parse
succeeds, the text was cut off: that partial value is kept for display only. The
module also owns field paths (``files[1].path``), the one way every other part of
inspection names a place in the payload.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import jiter

#: Deepest nesting of arrays and objects accepted. Real handoffs stay below ten.
MAX_DEPTH = 64

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_HUGE_NUMBER = re.compile(r"[eE][+]?[0-9]{3}|[0-9]{300}")
_DUPLICATE = re.compile(r'Detected duplicate key "(.*)" at line')


@dataclass(frozen=True, slots=True)
class Parsed:
    """Outcome of the strict parse: ``value`` when ``ok``, else why not.

    ``error`` is jiter's message. ``partial`` holds the value a partial parse recovered
    when the strict one failed at end of input (``truncated`` is then true).
    """

    ok: bool
    value: Any = None
    error: str = ""
    truncated: bool = False
    partial: Any = None
    too_deep: bool = False
    duplicate_key: str | None = None


def parse(data: bytes) -> Parsed:
    """Strict parse of UTF-8 ``data``; never raises for malformed input."""
    try:
        value = jiter.from_json(data, catch_duplicate_keys=True, allow_inf_nan=False)
    except ValueError as exc:
        return _diagnose(data, str(exc))
    return Parsed(ok=True, value=value)


def _diagnose(data: bytes, error: str) -> Parsed:
    if "recursion limit" in error:
        return Parsed(ok=False, error=error, too_deep=True)
    dup = _DUPLICATE.search(error)
    if dup is not None:
        return Parsed(ok=False, error=error, duplicate_key=dup.group(1))
    if not error.startswith("EOF while parsing"):
        return Parsed(ok=False, error=error)
    try:
        partial = jiter.from_json(data, partial_mode="trailing-strings", allow_inf_nan=False)
    except ValueError:
        return Parsed(ok=False, error=error)
    return Parsed(ok=False, error=error, truncated=True, partial=partial)


def depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays/objects nest deeper than ``limit``, without any recursion.

    Strings are blanked out, the brackets that remain are peeled one level at a time
    (innermost pairs first), and the text is too deep if anything is left after
    ``limit`` rounds. Every step is a C-level string operation, so it is linear.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace("[]", "").replace("{}", "")
    return bool(brackets)


def may_overflow(text: str) -> bool:
    """Whether a number in ``text`` might be too large for a float (parsed as inf)."""
    return _HUGE_NUMBER.search(text) is not None


def overflowed_paths(value: Any) -> list[str]:
    """Paths of the numbers that parsed to infinity: JSON cannot carry them faithfully."""
    found: list[str] = []
    for path, item in walk(value):
        if isinstance(item, float) and math.isinf(item):
            found.append(path)
    return found


def walk(value: Any) -> list[tuple[str, Any]]:
    """Every ``(path, value)`` in the tree, iteratively, containers included."""
    out: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        out.append((path, item))
        if isinstance(item, dict):
            stack.extend((join(path, k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(item))
    return out


def join(parent: str, key: str | int) -> str:
    """The path of ``key`` under ``parent``: ``a.b``, ``a[3]`` or ``a["odd key"]``.

    Keys that are not plain identifiers are JSON-quoted with ASCII escapes, so a path
    never carries a control or bidi character even when the key does.
    """
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _IDENT.fullmatch(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key)}]"


_STEP = re.compile(r'\.?([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]|\[("(?:[^"\\]|\\.)*")\]')


def split(path: str) -> list[str | int] | None:
    """The steps of a path made by :func:`join`; ``None`` when it is not one."""
    steps: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None or (m.group(1) is not None and pos > 0 and path[pos] != "."):
            return None
        name, index, quoted = m.groups()
        if name is not None:
            steps.append(name)
        elif index is not None:
            steps.append(int(index))
        else:
            steps.append(json.loads(quoted))
        pos = m.end()
    return steps


def child(node: Any, step: str | int) -> tuple[bool, Any]:
    """``(True, node[step])`` when that element exists, else ``(False, None)``."""
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        return True, node[step]
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        return True, node[step]
    return False, None


def lookup(value: Any, steps: list[str | int]) -> tuple[bool, Any]:
    """``(True, node)`` at ``steps`` under ``value``, or ``(False, None)`` if absent."""
    node = value
    for step in steps:
        found, node = child(node, step)
        if not found:
            return False, None
    return True, node
