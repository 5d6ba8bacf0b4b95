"""Which reject category a report's findings point to, offered as the default: policy,
so it lives in the core, where every front end that rejects offers the same one.
"""

from __future__ import annotations

from handoff_gate.gates.vocab.actions import Category
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.gates.vocab.report import Report

_UNSAFE = frozenset(
    {Code.SECRET, Code.UNSAFE_TEXT, Code.UNKNOWN_KEY, Code.OPEN_KEY, Code.UNNAMED_KEY}
)
_INCOMPLETE = frozenset(
    {Code.MISSING_FIELD, Code.EMPTY_FIELD, Code.NO_FIELDS, Code.DEFAULTED_FIELD}
)
_WRONG = frozenset({Code.INVALID_FIELD, Code.CROSS_FIELD, Code.APPEND_ONLY, Code.REFUSAL})


def suggest_category(report: Report | None) -> Category:
    """Truncation wins (a cut reply explains its missing fields), then anything unsafe,
    then gaps, then wrong content; ``other`` when none."""
    codes = {f.code for f in report.findings} if report is not None else set()
    if Code.TRUNCATED in codes:
        return Category.TRUNCATED
    if codes & _UNSAFE:
        return Category.UNSAFE
    if codes & _INCOMPLETE:
        return Category.INCOMPLETE
    if codes & _WRONG:
        return Category.WRONG
    return Category.OTHER
