"""Recognise secrets in text: payment card numbers and common credential shapes.

A long text is searched for each kind's literal marker first, the full pattern only
where one is. Card numbers need a known issuer prefix and a valid Luhn checksum, so
order numbers and ids rarely look like one.
"""

from __future__ import annotations

import functools
import re

from handoff_gate.gates.vocab.safe_text import mask

CARD = "card number"

#: Per kind: its marker, and one character every marker match contains (looking for
#: one character is a memchr, several times faster than a regex pass over the text).
_MARKED = (
    ("private key", "PRIVATE KEY", "Y", r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----"),
    ("AWS access key", "A[KS]IA", "I", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "GitHub token",
        "g(?:h[pousr]_|ithub_pat_)",
        "_",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("Slack token", "xox", "x", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("Stripe live key", "k_live_", "v", r"\b[rs]k_live_[A-Za-z0-9]{16,}"),
    ("JWT", "eyJ", "J", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
_GATED = tuple((kind, char, re.compile(marker).search) for kind, marker, char, _ in _MARKED)
ALL_KINDS = frozenset({kind for kind, *_ in _MARKED} | {CARD})
_ONLY_CARDS = frozenset({CARD})
_NO_KINDS: frozenset[str] = frozenset()

_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
#: The shortest card number's digits, in the digit view.
_CARD_RUN = b"0" * 13
#: Texts longer than this look for a 13-digit run before running the card pattern.
_GATE_CARDS_FROM = 256
#: What else to blank after a private key header: the key body and its footer.
_PEM_BODY = r"[A-Za-z0-9+/=\s\\]*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?"

#: Issuer prefixes (IIN ranges) of the card networks, by prefix length.
_ISSUERS: dict[int, frozenset[str]] = {
    1: frozenset({"4"}),
    2: frozenset({"34", "37", "36", "38", "39", "62", "65", *map(str, range(51, 56))}),
    3: frozenset({*map(str, range(300, 306)), *map(str, range(644, 650))}),
    4: frozenset({"6011", *map(str, range(2221, 2721)), *map(str, range(3528, 3590))}),
}
#: Each digit doubled, with the digits of the result summed (Luhn's step).
_DOUBLED = str.maketrans("0123456789", "0246813579")


@functools.cache
def _kinds() -> tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...]:
    """Each kind's marker and full pattern, compiled on first use: ``kinds_in`` (all the
    hook's fast path asks) needs only the markers, and compiling the rest cost every
    hook call ~2 ms."""
    return tuple((kind, re.compile(marker), re.compile(full)) for kind, marker, _, full in _MARKED)


@functools.cache
def _card() -> re.Pattern[str]:
    """A card number's shape (compiled on first use, as ``_kinds``)."""
    return re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])")


def is_card(candidate: str) -> bool:
    """13–19 digits, at most one kind of separator, a known issuer prefix, valid Luhn."""
    if " " in candidate and "-" in candidate:
        return False
    digits = candidate.replace(" ", "").replace("-", "")
    if not 13 <= len(digits) <= 19:
        return False
    if not any(digits[:n] in prefixes for n, prefixes in _ISSUERS.items()):
        return False
    odd = sum(map(int, digits[-1::-2]))
    even = sum(map(int, digits[-2::-2].translate(_DOUBLED)))
    return (odd + even) % 10 == 0


def kinds_in(text: str, digits: bytes | None = None) -> frozenset[str]:
    """A cheap superset of the kinds in ``text``; ``digits``: its ``parse.digit_view``."""
    found: list[str] = []
    for kind, char, search in _GATED:  # a loop, not a comprehension: no frame per call
        if char in text and search(text):
            found.append(kind)
    if _digit_run(text, digits):
        found.append(CARD)
    return frozenset(found) if found else _NO_KINDS


def _digit_run(text: str, digits: bytes | None = None) -> bool:
    if digits is None:
        digits = text.encode("utf-8", "surrogatepass").translate(_DIGITS, b" -")
    return _CARD_RUN in digits


def spans(text: str, kinds: frozenset[str] = ALL_KINDS) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    if kinds != _ONLY_CARDS:
        for kind, marker, pattern in _kinds():
            if kind in kinds and marker.search(text):
                found.extend((m.start(), m.end(), kind) for m in pattern.finditer(text))
    if (
        CARD in kinds
        and (len(text) < _GATE_CARDS_FROM or _digit_run(text))
        and _card().search(text) is not None
    ):
        found.extend(
            (m.start(), m.end(), CARD) for m in _card().finditer(text) if is_card(m.group())
        )
    if len(found) > 1:
        found.sort()
    return found


def may_hold(text: str, kinds: frozenset[str]) -> bool:
    """A quick first look at a short text: can it hold a secret of these kinds at all?"""
    if CARD in kinds and _card().search(text) is not None:
        return True
    return kinds != _ONLY_CARDS and any(
        kind in kinds and marker.search(text) for kind, marker, _ in _kinds()
    )


def secrets_in(text: str, kinds: frozenset[str] = ALL_KINDS) -> list[tuple[str, str]]:
    return [(kind, text[start:end]) for start, end, kind in spans(text, kinds)]


def mask_secrets(text: str) -> str:
    """``text`` with every secret (and a private key's body) replaced by its mask."""
    out: list[str] = []
    pos = 0
    for start, end, kind in spans(text):
        if start < pos:
            continue
        stop = end
        if kind == "private key":
            body = re.compile(_PEM_BODY).match(text, end)  # compiled once, then re's cache
            stop = body.end() if body else end
        out.append(text[pos:start])
        out.append(mask(text[start:end]))
        pos = stop
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)
