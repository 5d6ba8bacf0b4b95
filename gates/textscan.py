"""Find secrets and unsafe characters anywhere in a payload, keys included.

Most payloads hold neither, so the whole text is checked first with a few C-level
operations, and the tree is walked (to name exact paths) only when that check trips.
A JSON ``\\u`` escape can spell any character without it appearing in the raw text, and
``\\b``/``\\f``/``\\r`` escapes decode to control characters, so their presence always
sends the scan to the decoded strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gates.parsing import join
from gates.sanitize import mask, token, unsafe_chars

#: Each token kind: its name, a literal marker every match contains (a search that
#: starts with a literal is fast), and the full pattern run only when the marker is there.
_KINDS = tuple(
    (kind, re.compile(marker), re.compile(pattern))
    for kind, marker, pattern in (
        ("private key", "PRIVATE KEY", r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----"),
        ("AWS access key", "A[KS]IA", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        (
            "GitHub token",
            "g(?:h[pousr]_|ithub_pat_)",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        ("Slack token", "xox", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("Stripe live key", "k_live_", r"\b[rs]k_live_[A-Za-z0-9]{16,}"),
        ("JWT", "eyJ", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    )
)
_CARD = re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])")
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
#: What to blank in the raw text after a private key header: the key body.
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=\s\\]*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?")
_DECODING_ESCAPE = re.compile(r"\\[bfru]")

#: Issuer prefixes (IIN ranges) of the card networks people actually paste.
_ISSUERS = (
    ("4", 4, 4),
    ("34", 34, 34),
    ("37", 37, 37),
    ("51-55", 51, 55),
    ("2221-2720", 2221, 2720),
    ("300-305", 300, 305),
    ("36", 36, 36),
    ("38-39", 38, 39),
    ("6011", 6011, 6011),
    ("644-649", 644, 649),
    ("65", 65, 65),
    ("3528-3589", 3528, 3589),
    ("62", 62, 62),
)


@dataclass(frozen=True, slots=True)
class Hit:
    """One finding of the scan: where, and a message safe to store (secrets masked)."""

    path: str
    message: str


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies (and 90% of others fail)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def is_card(candidate: str) -> bool:
    """13–19 digits, at most one kind of separator, a known issuer prefix, valid Luhn."""
    separators = {c for c in candidate if not c.isdigit()}
    if len(separators) > 1:
        return False
    digits = candidate.replace(" ", "").replace("-", "")
    if not 13 <= len(digits) <= 19:
        return False
    issuer = any(lo <= int(digits[: len(str(lo))]) <= hi for _, lo, hi in _ISSUERS)
    return issuer and luhn_ok(digits)


def _spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every secret in ``text``, in order."""
    spans: list[tuple[int, int, str]] = []
    for kind, marker, pattern in _KINDS:
        if marker.search(text):
            spans.extend((m.start(), m.end(), kind) for m in pattern.finditer(text))
    if b"0" * 13 in text.encode("utf-8", "surrogatepass").translate(_DIGITS, b" -"):
        spans.extend(
            (m.start(), m.end(), "card number") for m in _CARD.finditer(text) if is_card(m.group())
        )
    spans.sort()
    return spans


def secrets_in(text: str) -> list[tuple[str, str]]:
    """``(kind, matched text)`` for every secret in ``text``; cards must pass :func:`is_card`."""
    return [(kind, text[start:end]) for start, end, kind in _spans(text)]


def mask_secrets(text: str) -> str:
    """``text`` with every secret (and a private key's body) replaced by its mask."""
    out: list[str] = []
    pos = 0
    for start, end, kind in _spans(text):
        if start < pos:
            continue
        stop = end
        if kind == "private key":
            body = _PEM_BODY.match(text, end)
            stop = body.end() if body else end
        out.append(text[pos:start])
        out.append(mask(text[start:end]))
        pos = stop
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def text_may_hold_secret(text: str, digits: bytes) -> bool:
    """Cheap test on the raw text: can any secret be in it (``\\u`` escapes aside)?

    Each token kind has a literal marker, and a card number needs 13 digits once its
    spaces or dashes are gone (``digits`` is :func:`gates.parsing.digit_view` of the
    text). Literal-prefix searches are far cheaper than the full pattern, which runs
    only when one of them hits.
    """
    if any(marker.search(text) for _, marker, _ in _KINDS):
        return True
    return b"0" * 13 in digits


def text_may_hold_unsafe(text: str, data: bytes) -> bool:
    """Whether a decoded string of the raw JSON text can contain an unsafe character.

    Raw controls are invalid inside JSON strings, and raw tabs, line feeds and carriage
    returns outside them are layout, so once the text has parsed only DEL, non-ASCII
    characters and escapes can produce an unsafe character.
    """
    if b"\\" in data and _DECODING_ESCAPE.search(text):
        return True
    if data.isascii():
        return "\x7f" in text
    return not text.replace("\n", "").replace("\r", "").replace("\t", "").isprintable()


def _secret_message(found: list[tuple[str, str]], where: str) -> str:
    shown = ", ".join(f"{kind} {mask(text)}" for kind, text in found)
    return f"{where} looks like a secret: {shown}"


def _unsafe_message(chars: list[str], where: str) -> str:
    return f"{where} contains invisible or control characters: {''.join(map(token, chars))}"


def scan(value: Any, *, secrets: bool, unsafe: bool) -> tuple[list[Hit], list[Hit]]:
    """Walk the parsed value; return ``(secret hits, unsafe hits)`` with exact paths."""
    secret_hits: list[Hit] = []
    unsafe_hits: list[Hit] = []

    def check(text: str, path: str, what: str) -> None:
        if secrets and (found := secrets_in(text)):
            secret_hits.append(Hit(path, _secret_message(found, what)))
        if unsafe and (chars := unsafe_chars(text)):
            unsafe_hits.append(Hit(path, _unsafe_message(chars, what)))

    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            check(item, path, "the value")
        elif isinstance(item, dict):
            for key, child in item.items():
                child_path = join(path, key)
                check(key, child_path, "the key")
                stack.append((child_path, child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
        elif secrets and isinstance(item, int) and not isinstance(item, bool):
            found = secrets_in(str(item))
            if found:
                secret_hits.append(Hit(path, _secret_message(found, "the number")))
    return secret_hits, unsafe_hits


def mask_tree(value: Any) -> Any:
    """A copy of ``value`` in which every secret string, key or number is masked.

    Only used once a secret was found, so a blocked report keeps no secret in full.
    """
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {mask_secrets(k): mask_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_tree(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
        masked = mask_secrets(text)
        return value if masked == text else masked
    return value


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
#: A reply that opens by declining. Anchored at the start: a plan that *mentions*
#: "I cannot" deep inside is not a refusal.
_REFUSAL_OPENING = re.compile(
    r"^\W*(?:(?:i'm|i am) (?:sorry|afraid|unable|not able)\b|i apologi[sz]e\b|sorry\b"
    r"|i (?:can't|cannot|can not|won't|will not|must decline|am not comfortable)\b"
    r"|unfortunately,? i\b|as an ai\b)",
    re.IGNORECASE,
)
#: Declining anywhere in a short prose reply: "…, but I can't help with that."
_REFUSAL_PHRASE = re.compile(
    r"\bi (?:can't|cannot|can not|won't|will not|am unable to|'m unable to) "
    r"(?:help|assist|comply|provide|complete|fulfil|fulfill|do that|continue)\b",
    re.IGNORECASE,
)
#: Asking back instead of answering.
_QUESTION_PHRASE = re.compile(
    r"\b(?:could|can|would) you (?:please )?(?:clarify|specify|confirm|provide|share|tell me)\b"
    r"|\bplease (?:clarify|specify|confirm)\b|\b(?:do|would) you (?:want|like) me to\b"
    r"|\bbefore i (?:proceed|continue|start)\b|\bi need (?:more|additional) "
    r"(?:information|details|context)\b|\bwhich (?:one|option|of these)\b",
    re.IGNORECASE,
)
#: Only the start of a long text is read: a refusal or a question comes first.
_HEAD = 600


def reads_as_refusal(text: str) -> bool:
    """Whether prose (not JSON) declines the task or asks a clarifying question.

    Deliberately narrow: an explicit refusal at the start, a "can't help/provide"
    phrase or a request for clarification near the start, or a short reply that is
    a question. Anything else that is not JSON stays ``not_json``.
    """
    head = text.strip()[:_HEAD].translate(_APOSTROPHES)
    if not head:
        return False
    if _REFUSAL_OPENING.search(head) or _REFUSAL_PHRASE.search(head):
        return True
    if "?" in head and _QUESTION_PHRASE.search(head):
        return True
    return len(text.strip()) <= 300 and head.endswith("?") and "{" not in head


_EMPTY_MARKERS = tuple(re.compile(m) for m in ('""', "null", r"\[\s*\]", r"\{\s*\}"))
_BLANK_STRING = re.compile(r'"(?:\s|\\[nrtbf]|\\u[0-9a-fA-F]{4})+"')
_BLANK_ASCII = re.compile(r'" +"')


def empty_shapes(text: str, data: bytes) -> tuple[bool, bool]:
    """Which empty values the JSON text can hold: ``(any empty value, blank strings)``.

    A false "yes" only costs a closer look; a false "no" would hide an empty field.
    Without escapes or non-ASCII text, a blank string can only be spaces.
    """
    if b"\\" in data or not data.isascii():
        blanks = _BLANK_STRING.search(text) is not None
    else:
        blanks = _BLANK_ASCII.search(text) is not None
    return blanks or any(marker.search(text) for marker in _EMPTY_MARKERS), blanks
