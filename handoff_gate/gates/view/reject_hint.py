"""Which reject category a report's findings point to, offered to a reviewer as the default.

The mapping is policy (what a truncated reply or a leaked secret counts as), so it lives
in the core, where any front end that rejects can offer the same one (today the TUI's
reject dialog).
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
    """The category the findings point to, most specific first; ``other`` when none does.

    Truncation wins over everything (a cut reply explains its missing fields), then
    anything unsafe, then gaps, then wrong content.
    """
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
