"""Does a non-JSON reply decline the task or ask a question back?

Deliberately narrow: a false "refusal" only changes which block finding the reviewer
sees, but the refusal banner should mean what it says.
"""

from __future__ import annotations

import re

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
#: A reply that opens by declining. Anchored at the start: a plan that *mentions*
#: "I cannot" deep inside is not a refusal.
_REFUSAL_OPENING = re.compile(
    r"^\W*(?:(?:i'm|i am) (?:sorry|afraid|unable|not able)\b|i apologi[sz]e\b|sorry\b"
    r"|i (?:can't|cannot|can not|won't|will not|must decline|am not comfortable)\b"
    r"|unfortunately,? i\b|as an ai\b)",
    re.I,
)
#: Declining anywhere in a short prose reply: "…, but I can't help with that."
_REFUSAL_PHRASE = re.compile(
    r"\bi (?:can't|cannot|can not|won't|will not|am unable to|'m unable to) "
    r"(?:help|assist|comply|provide|complete|fulfil|fulfill|do that|continue)\b",
    re.I,
)
#: Asking back instead of answering.
_QUESTION_PHRASE = re.compile(
    r"\b(?:could|can|would) you (?:please )?(?:clarify|specify|confirm|provide|share|tell me)\b"
    r"|\bplease (?:clarify|specify|confirm)\b|\b(?:do|would) you (?:want|like) me to\b"
    r"|\bbefore i (?:proceed|continue|start)\b|\bi need (?:more|additional) "
    r"(?:information|details|context)\b|\bwhich (?:one|option|of these)\b",
    re.I,
)
#: Only the start of a long text is read: a refusal or a question comes first.
_HEAD = 600


def reads_as_refusal(text: str) -> bool:
    head = text.strip()[:_HEAD].translate(_APOSTROPHES)
    if not head:
        return False
    if _REFUSAL_OPENING.search(head) or _REFUSAL_PHRASE.search(head):
        return True
    if "?" in head and _QUESTION_PHRASE.search(head):
        return True
    return len(text.strip()) <= 300 and head.endswith("?") and "{" not in head
