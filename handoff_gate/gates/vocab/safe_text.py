"""Turn untrusted payload text into something safe to put on a terminal or in a log.

Payload strings can carry terminal escapes, bidi overrides and invisible characters
that hide or reorder what a reviewer reads. ``visible`` replaces each of them with a
readable token, so the reviewer sees that it is there instead of what it does. Line
feeds and tabs are kept as they are: they are ordinary layout, and the multi-line raw
view needs them. ``preview`` is the one-line form, where they become ``\\n``/``\\t``.

Nothing here produces markup; callers that render with Rich or Textual must still pass
the result as plain text.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Unicode categories that never belong in displayed text (controls, format
#: characters such as bidi and zero-width, private use, unassigned, separators that
#: break lines, and lone surrogates that cannot be encoded at all).
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})

_NAMES = {
    0x00: "NUL",
    0x07: "BEL",
    0x08: "BS",
    0x09: "TAB",
    0x0A: "LF",
    0x0B: "VT",
    0x0C: "FF",
    0x0D: "CR",
    0x1B: "ESC",
    0x7F: "DEL",
}

#: Characters that are printable but still rendered as tokens in a one-line preview.
_ALLOWED = "\t\n"
#: A JSON escape that decodes to a control character (``\\u`` escapes aside).
_CONTROL_ESCAPE = re.compile(r"\\[bfr]")


@lru_cache(maxsize=4096)
def is_unsafe_char(char: str) -> bool:
    """Whether one character must be shown as a token (``\\t`` and ``\\n`` are not)."""
    return char not in _ALLOWED and unicodedata.category(char) in UNSAFE_CATEGORIES


def _printable(text: str) -> bool:
    """Fast test: ``str.isprintable`` rejects a superset of the unsafe characters."""
    return text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable()


def has_unsafe(text: str) -> bool:
    """Whether ``text`` holds at least one unsafe character."""
    return not _printable(text) and any(is_unsafe_char(c) for c in set(text))


def unsafe_chars(text: str) -> list[str]:
    """The distinct unsafe characters of ``text``, in order of first appearance."""
    if _printable(text):
        return []
    return [c for c in dict.fromkeys(text) if is_unsafe_char(c)]


def text_may_hold_unsafe(text: str, data: bytes) -> bool:
    """Whether a decoded string of the raw JSON text can contain an unsafe character.

    Raw controls are invalid inside JSON strings, and raw tabs, line feeds and carriage
    returns outside them are layout, so once the text has parsed only DEL, non-ASCII
    characters and escapes can produce an unsafe character (for ``\\u`` escapes, see
    :func:`inspect.content_scan.decode_u_escapes`).
    """
    if b"\\" in data and _CONTROL_ESCAPE.search(text):
        return True
    if data.isascii():
        return "\x7f" in text
    return not text.replace("\n", "").replace("\r", "").replace("\t", "").isprintable()


def token(char: str) -> str:
    """The visible stand-in for one unsafe character: ``⟨ESC⟩``, ``⟨U+202E⟩``."""
    code = ord(char)
    return f"⟨{_NAMES.get(code, f'U+{code:04X}')}⟩"


def visible(text: str) -> str:
    """``text`` with every unsafe character replaced by its token; ``\\t``/``\\n`` kept."""
    bad = unsafe_chars(text)
    if not bad:
        return text
    pattern = re.compile("|".join(re.escape(c) for c in bad))
    return pattern.sub(lambda m: token(m.group()), text)


def elide(text: str, limit: int) -> str:
    """At most ``limit`` characters of ``text``, then ``…(+N chars)`` saying what was cut."""
    limit = max(limit, 0)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit} chars)"


def mask(secret: str) -> str:
    """A secret reduced to a recognisable hint: at most its first 6 and last 4
    characters, and a quarter of a short value at each end, never most of it."""
    n = len(secret)
    head = min(6, n // 4)
    tail = min(4, n // 4)
    end = secret[n - tail :] if tail else ""
    return f"{secret[:head]}…{end}"


def preview(value: Any, limit: int) -> str:
    """A one-line, sanitised, JSON-like rendering of ``value``, about ``limit`` long: a
    huge value never costs more than its first screenful."""
    limit = max(limit, 1)
    if isinstance(value, str):
        shown = max(limit - 2, 0)
        if len(value) <= shown:
            return _one_line(value)
        return f"{_one_line(value[:shown])}…(+{len(value) - shown} chars)"
    parts: list[str] = []
    _render(value, parts, limit + 1)
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit] + "…"


def _render(value: Any, out: list[str], budget: int) -> int:
    """Append a rendering of ``value`` to ``out``; stop once ``budget`` chars are used."""
    if budget <= 0:
        return 0
    if isinstance(value, str):
        piece = _one_line(value[: budget + 1])
    elif isinstance(value, dict):
        return _render_items(out, budget, "{", "}", value.items(), keyed=True)
    elif isinstance(value, list | tuple):
        return _render_items(out, budget, "[", "]", ((None, v) for v in value), keyed=False)
    elif value is None or isinstance(value, bool | int | float):
        piece = json.dumps(value)
    else:
        piece = _one_line(type(value).__name__)
    out.append(piece)
    return budget - len(piece)


def _render_items(
    out: list[str], budget: int, start: str, end: str, items: Any, *, keyed: bool
) -> int:
    out.append(start)
    budget -= 1
    for i, (key, item) in enumerate(items):
        if budget <= 0:
            break
        if i:
            out.append(", ")
            budget -= 2
        if keyed:
            piece = _one_line(str(key)[: budget + 1]) + ": "
            out.append(piece)
            budget -= len(piece)
        budget = _render(item, out, budget)
    out.append(end)
    return budget - 1


def _one_line(text: str) -> str:
    """A quoted string with layout characters escaped and unsafe ones as tokens."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\t", "\\t")
    return f'"{visible(escaped)}"'


def os_reason(exc: BaseException) -> str:
    """What went wrong, as one sentence a reviewer can act on: an OS error's own words
    and the last part of the path it names (``permission denied (0001-plan.json)``),
    never ``[Errno 13]`` and a full path; any other error's message on one line."""
    if isinstance(exc, OSError) and exc.strerror:
        name = Path(os.fsdecode(exc.filename)).name if exc.filename else ""
        return visible(exc.strerror.lower() + (f" ({name})" if name else ""))
    words = " ".join(str(exc).split())
    return visible(words or type(exc).__name__)
