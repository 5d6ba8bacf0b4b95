"""Bytes to a parsed JSON value, strictly (once, by jiter), with a diagnosis when that
fails; a cut-off text's partial value is kept for display only. The other checks on the
raw bytes are C-level passes, cheap next to the parse.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

import jiter

from handoff_gate.gates.vocab.fieldpaths import Trail, path_of, steps_of

#: Deepest nesting of arrays and objects accepted. Real handoffs stay below ten.
MAX_DEPTH = 64

_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_DIGITS = bytes.maketrans(b"0123456789E", b"0000000000e")
_BIG_EXPONENT = re.compile(rb"0e\+?000")
_LONG_MANTISSA = b"0" * 300
_DUPLICATE = re.compile(r'Detected duplicate key "(.*)" at line')


class Parsed(NamedTuple):
    """``value`` when ``ok``, else why not; ``partial`` when ``truncated``. A named tuple:
    built in a third of a frozen dataclass's time, which shows on every small payload."""

    ok: bool
    value: Any = None
    error: str = ""
    truncated: bool = False
    partial: Any = None
    too_deep: bool = False
    duplicate_key: str | None = None


def parse(data: bytes) -> Parsed:
    try:
        # Only keys go through jiter's string cache: payload values are mostly unique,
        # and caching them measured slower at both 2 KB and 5 MB.
        value = jiter.from_json(
            data, catch_duplicate_keys=True, allow_inf_nan=False, cache_mode="keys"
        )
    except ValueError as exc:
        return _diagnose(data, str(exc))
    return Parsed(True, value)  # positional: keywords cost half a microsecond more


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


def skeleton(data: bytes) -> bytes:
    """The brackets and string quotes of valid JSON ``data``, in order (escaped ones
    removed first); its length also tells how many nodes the text holds."""
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return data.translate(None, _NOT_STRUCTURE)


def too_short_to_nest(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Spares most small payloads (a tool call's arguments) the depth check."""
    return len(data) <= 2 * limit + 1


def depth_exceeds(structure: bytes, limit: int = MAX_DEPTH) -> bool:
    """No Python-level loop over the text: string content is dropped and the brackets
    are peeled one level per round, innermost pairs first."""
    if len(structure) - structure.count(b'"') <= limit:
        return False
    brackets = structure.replace(b'""', b"")
    if b'"' in brackets:  # a string holds brackets: pair the quotes exactly
        brackets = b"".join(structure.split(b'"')[::2])
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
    return bool(brackets)


def digit_view(data: bytes) -> bytes:
    """Every digit as ``0``, ``E`` as ``e``, spaces and dashes removed (so grouped card
    numbers count): long numbers and big exponents become substring searches."""
    return data.translate(_DIGITS, b" -")


def may_overflow(digits: bytes) -> bool:
    """Whether a number might be too large for a float (jiter parses it as inf)."""
    return _LONG_MANTISSA in digits or _BIG_EXPONENT.search(digits) is not None


def overflowed_paths(value: Any) -> list[str]:
    """Paths of the numbers that parsed to infinity: JSON cannot carry them faithfully."""
    found: list[str] = []
    stack: list[tuple[Trail, Any]] = [(None, value)]
    while stack:
        trail, item = stack.pop()
        if isinstance(item, float) and math.isinf(item):
            found.append(path_of(steps_of(trail)))
        elif isinstance(item, dict):
            stack.extend(((trail, k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend(((trail, i), v) for i, v in enumerate(item))
    return found


def same_json(a: Any, b: Any) -> bool:
    """Like ``==``, but ``true`` is not ``1``; the walk runs only when ``==`` said equal."""
    if a != b:
        return False
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if type(x) is not type(y):
                return False
        elif isinstance(x, dict) and isinstance(y, dict):
            stack.extend((v, y[k]) for k, v in x.items())
        elif isinstance(x, list) and isinstance(y, list):
            stack.extend(zip(x, y, strict=True))
    return True
