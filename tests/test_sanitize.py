"""What a reviewer sees of untrusted text: visible tokens, explicit elision, masked secrets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from handoff_gate.gates.sanitize import elide, has_unsafe, mask, preview, visible


def test_escape_sequences_and_controls_become_named_tokens() -> None:
    assert visible("\x1b[2J\x1b]0;pwned\x07") == "⟨ESC⟩[2J⟨ESC⟩]0;pwned⟨BEL⟩"
    assert visible("a\x00b\rc\x7f") == "a⟨NUL⟩b⟨CR⟩c⟨DEL⟩"
    assert visible("C1 \x9b31m") == "C1 ⟨U+009B⟩31m"


def test_bidi_zero_width_and_tag_characters_become_code_point_tokens() -> None:
    assert visible("file\u202etxt.exe") == "file⟨U+202E⟩txt.exe"
    assert visible("a\u2066b\u2069") == "a⟨U+2066⟩b⟨U+2069⟩"
    assert visible("pay\u200bpal") == "pay⟨U+200B⟩pal"
    assert visible("x\U000e0041") == "x⟨U+E0041⟩"
    assert visible("line\u2028sep") == "line⟨U+2028⟩sep"


def test_layout_and_ordinary_text_are_kept() -> None:
    text = "first line\n\tindented — naïve café ☕ 日本語 [bold]not markup[/bold]"
    assert visible(text) == text


@settings(max_examples=200)
@given(st.text())
def test_visible_output_never_holds_an_unsafe_character(text: str) -> None:
    assert not has_unsafe(visible(text))


def test_elide_says_how_much_was_cut() -> None:
    assert elide("abcdef", 10) == "abcdef"
    assert elide("abcdef", 6) == "abcdef"
    assert elide("abcdefghij", 4) == "abcd…(+6 chars)"


def test_mask_shows_at_most_six_and_four_characters() -> None:
    masked = mask("4111111111111111")
    assert masked == "4111…1111"
    assert "11111111" not in masked
    assert mask("abc") == "…"
    assert mask("AKIAIOSFODNN7EXAMPLE") == "AKIAI…MPLE"


def test_preview_is_one_sanitised_line() -> None:
    value = {"a": "x\ny", "b": [1, None, True], "c": "\x1b[31m"}
    assert preview(value, 200) == '{"a": "x\\ny", "b": [1, null, true], "c": "⟨ESC⟩[31m"}'
    assert preview("v" * 500, 20) == '"' + "v" * 18 + '"…(+482 chars)'
    nested = preview({"k": "v" * 500}, 20)
    assert nested == '{"k": "vvvvvvvvvvvvv…'
    assert "\n" not in preview(["a\nb"] * 3, 50)


def test_preview_of_a_huge_value_stays_short() -> None:
    huge = {"items": [{"id": i, "name": "n" * 100} for i in range(100_000)]}
    assert len(preview(huge, 80)) < 120
