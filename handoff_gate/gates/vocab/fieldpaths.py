"""Field paths such as ``files[1].path``: the one way inspection names a place in a payload.

Findings carry paths, the field view expands them, scripts match on them, so they
are built in one place and can be split back into steps. A path never carries a
control or bidi character, even when a key does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from handoff_gate.gates.vocab.safe_text import has_unsafe, is_unsafe_char

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def join(parent: str, key: str | int) -> str:
    """The path of ``key`` under ``parent``: ``a.b``, ``a[3]`` or ``a["odd key"]`` (unsafe
    characters as ``\\u`` escapes)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _IDENT.fullmatch(key):
        return f"{parent}.{key}" if parent else key
    quoted = json.dumps(key, ensure_ascii=False)
    if has_unsafe(quoted):
        quoted = "".join(json.dumps(c)[1:-1] if is_unsafe_char(c) else c for c in quoted)
    return f"{parent}[{quoted}]"


#: A path built as a linked list (parent trail, step): O(1) to extend while walking,
#: turned into a path string only when something is reported there.
Trail = tuple["Trail", str | int] | None


def steps_of(trail: Trail) -> list[str | int]:
    """The steps of a trail, root first."""
    steps: list[str | int] = []
    while trail is not None:
        trail, step = trail
        steps.append(step)
    steps.reverse()
    return steps


def path_of(steps: Sequence[str | int]) -> str:
    """The path string of a sequence of steps (see :func:`join`)."""
    path = ""
    for step in steps:
        path = join(path, step)
    return path


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


def pointer_step(step: str) -> str:
    """``step`` as one step of a JSON Pointer (RFC 6901): ``~`` as ``~0``, ``/`` as ``~1``."""
    return step.replace("~", "~0").replace("/", "~1")
