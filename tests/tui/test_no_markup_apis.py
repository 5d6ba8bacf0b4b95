"""The TUI source never reaches for an API that parses payload text as markup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TUI = Path(__file__).parents[2] / "tui"
FORBIDDEN = {
    "add_json": re.compile(r"\.add_json\("),
    "Text.from_markup": re.compile(r"from_markup\("),
    "markup=True": re.compile(r"markup\s*=\s*True"),
    "Content.from_markup": re.compile(r"Content\.from_markup"),
    "rich.markup.render": re.compile(r"markup\.render\("),
}


@pytest.mark.parametrize("name", sorted(FORBIDDEN))
def test_markup_parsing_api_is_not_used(name: str) -> None:
    offenders = [
        str(path.relative_to(TUI))
        for path in sorted(TUI.rglob("*.py"))
        if FORBIDDEN[name].search(path.read_text())
    ]
    assert offenders == [], f"{name} used in {offenders}"
