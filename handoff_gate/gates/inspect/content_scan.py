"""Find secrets and unsafe characters anywhere in a payload, keys included. A JSON
``\\u`` escape can spell any character without it appearing in the raw text, so those
escapes are decoded once and the checks repeated on the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from handoff_gate.gates.inspect.secret_patterns import mask_secrets, may_hold, secrets_in
from handoff_gate.gates.vocab.fieldpaths import Trail, steps_of
from handoff_gate.gates.vocab.safe_text import mask, token, unsafe_chars

_U_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
#: A number below this has fewer digits than any card number.
_SHORTEST_CARD = 10**12


@dataclass(frozen=True, slots=True)
class Hit:
    """Where the scan found something (``key``: in the key itself), and a safe message."""

    trail: Trail
    key: bool
    message: str


def decode_u_escapes(text: str) -> tuple[str, bool]:
    """``text`` with its ``\\u`` escapes (four hex digits each) decoded, and whether one
    spells an unsafe char (a surrogate counts). Other escapes cannot complete a secret:
    left as they are."""
    unsafe = False

    def decode(m: re.Match[str]) -> str:
        nonlocal unsafe
        char = chr(int(m.group(1), 16))
        unsafe = unsafe or (char != "\n" and char != "\t" and not char.isprintable())
        return char

    # An escaped backslash becomes NUL first, so "\\\\u0041" is not read as an escape;
    # NUL is part of no secret pattern.
    return _U_ESCAPE.sub(decode, text.replace("\\\\", "\0")), unsafe


def scan(value: Any, kinds: frozenset[str], *, unsafe: bool) -> tuple[list[Hit], list[Hit]]:
    """``(secret hits, unsafe hits)`` in document order for every string, key and int."""
    secret_hits: list[Hit] = []
    unsafe_hits: list[Hit] = []

    def check(text: str, trail: Trail, key: bool) -> None:
        what = "the key" if key else "the value"
        if kinds and may_hold(text, kinds) and (found := secrets_in(text, kinds)):
            shown = ", ".join(f"{kind} {mask(match)}" for kind, match in found)
            secret_hits.append(Hit(trail, key, f"{what} looks like a secret: {shown}"))
        if unsafe and (chars := unsafe_chars(text)):
            shown = "".join(map(token, chars))
            unsafe_hits.append(Hit(trail, key, f"{what} contains invisible characters: {shown}"))

    stack: list[tuple[Trail, Any]] = [(None, value)]
    while stack:
        trail, item = stack.pop()
        if isinstance(item, str):
            check(item, trail, False)
        elif isinstance(item, dict):
            for k in item:
                check(k, (trail, k), True)
            stack.extend(reversed([((trail, k), child) for k, child in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([((trail, i), child) for i, child in enumerate(item)]))
        elif kinds and isinstance(item, int) and abs(item) >= _SHORTEST_CARD:
            found = secrets_in(str(item), kinds)
            if found:
                shown = ", ".join(f"{kind} {mask(match)}" for kind, match in found)
                secret_hits.append(Hit(trail, False, f"the number looks like a secret: {shown}"))
    return secret_hits, unsafe_hits


def mask_at(value: Any, hits: Sequence[Hit]) -> Any:
    """Other branches are shared. Deeper hits go first, and a value before its own key,
    so every path still leads somewhere when it is followed."""
    box = [value]
    copied: set[int] = set()
    for hit in sorted(hits, key=lambda h: (-len(steps_of(h.trail)), h.key)):
        steps = steps_of(hit.trail)
        if not steps:
            box[0] = _masked(box[0])
            continue
        parent: Any = box
        for step in [0, *steps[:-1]]:
            node = parent[step]
            if id(node) not in copied:
                node = dict(node) if isinstance(node, dict) else list(node)
                copied.add(id(node))
                parent[step] = node
            parent = node
        last = steps[-1]
        if hit.key and isinstance(parent, dict):
            items = list(parent.items())
            parent.clear()
            parent.update((mask_secrets(k) if k == last else k, v) for k, v in items)
        else:
            parent[last] = _masked(parent[last])
    return box[0]


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return mask_secrets(str(value))
    return value
