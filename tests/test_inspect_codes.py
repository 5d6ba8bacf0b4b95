"""One test per finding code: an input that must trigger it, and a close one that must not."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from inspect_contracts import DROP, REGISTRY, VALID_STRICT, dumps, strict_with

from handoff_gate.gates.inspect.handoff_file import inspect_file, inspect_handoff
from handoff_gate.gates.inspect.stages import InspectOptions, inspect
from handoff_gate.gates.vocab.findings import Code, Severity
from handoff_gate.gates.vocab.report import Report

VALID = dumps(VALID_STRICT)


def check(data: bytes, schema: str | None = "strict/v1", **kw: Any) -> Report:
    return inspect(data, schema, REGISTRY, InspectOptions(**kw))


def codes(report: Report) -> set[Code]:
    return {f.code for f in report.findings}


def only(report: Report, code: Code) -> list[tuple[str, Severity, str]]:
    return [(f.path, f.severity, f.message) for f in report.findings if f.code is code]


def envelope(**fields: Any) -> bytes:
    base = {
        "format": "handoff-gate/1",
        "id": "0001-plan",
        "run": "run-1",
        "seq": 1,
        "phase": "plan",
        "schema": "strict/v1",
        "created": "2026-01-01T00:00:00Z",
    }
    return json.dumps({**base, **fields}).encode()


def test_valid_payload_is_approvable_and_delivers_the_contract_fields() -> None:
    report = check(VALID)
    assert report.findings == ()
    assert report.approvable
    assert report.delivered == VALID_STRICT


def test_empty_input() -> None:
    assert only(check(b""), Code.EMPTY_INPUT)[0][1] is Severity.BLOCK
    assert codes(check(b" \n\t")) == {Code.EMPTY_INPUT}
    assert Code.EMPTY_INPUT not in codes(check(VALID))


def test_oversize_is_blocked_unread() -> None:
    report = check(VALID, max_bytes=len(VALID) - 1)
    assert codes(report) == {Code.OVERSIZE}
    assert report.payload is None
    assert Code.OVERSIZE not in codes(check(VALID, max_bytes=len(VALID)))


def test_oversize_file_is_blocked_from_its_size_unread(tmp_path: Path) -> None:
    path = tmp_path / "payload.json"
    with path.open("wb") as handle:
        handle.truncate(40 * 1024 * 1024)  # sparse: 40 MiB that were never written
    big = inspect_file(path, REGISTRY, schema_id="strict/v1")
    assert codes(big) == {Code.OVERSIZE}
    assert big.size == 40 * 1024 * 1024
    assert big.sha256 == ""  # nothing was read, so nothing was hashed
    path.write_bytes(VALID)
    assert inspect_file(path, REGISTRY, schema_id="strict/v1").approvable
    assert codes(inspect_file(tmp_path / "absent.json", REGISTRY, schema_id="strict/v1")) == {
        Code.EMPTY_INPUT
    }
    assert codes(inspect_file(tmp_path / "absent.json", REGISTRY)) == {Code.BAD_ENVELOPE}
    assert codes(inspect_file(str(tmp_path / "nul\0.json"), REGISTRY)) == {Code.BAD_ENVELOPE}


def test_not_utf8() -> None:
    report = check(b'{"title": "caf\xe9"}')
    assert codes(report) == {Code.NOT_UTF8}
    assert "offset 14" in report.findings[0].message
    assert Code.NOT_UTF8 not in codes(check('{"title": "café"}'.encode()))


def test_not_json_covers_nan_prose_and_trailing_text() -> None:
    for bad in (
        b'{"start": NaN, "end": 1}',
        b'{"start": Infinity, "end": 1}',
        b'Here is the window: {"start": 1, "end": 2}',
        b'```json\n{"start": 1, "end": 2}\n```',
        b'{"start": 1, "end": 2} I hope this helps',
        b'{"start": 1e999, "end": 2}',
    ):
        report = check(bad, "window/v1")
        assert Code.NOT_JSON in codes(report), bad
        assert report.delivered is None or not report.approvable
    assert check(b'{"start": 1, "end": 2}', "window/v1").approvable


def test_not_json_says_why_in_words_a_reviewer_can_act_on() -> None:
    bom = check("\ufeff{}".encode(), "window/v1")
    assert "byte-order mark" in bom.findings[0].message
    cut_prose = check(b"The window starts at one", "window/v1")
    assert codes(cut_prose) == {Code.NOT_JSON}


def test_prose_around_json_is_never_extracted() -> None:
    report = check(b'Sure! {"start": 1, "end": 2}', "window/v1")
    assert report.payload is None
    assert report.delivered is None
    assert "not extracted" in report.findings[0].message


def test_refusal_in_prose_a_bare_string_or_the_producer_signal() -> None:
    text = "I'm sorry, but I can't help with that request."
    report = check(text.encode())
    assert codes(report) == {Code.REFUSAL}
    assert text in report.findings[0].message
    question = "Could you clarify which service should own the timeout?"
    assert codes(check(json.dumps(question).encode())) == {Code.REFUSAL}
    assert Code.REFUSAL in codes(check(VALID, refusal="content policy"))
    assert Code.REFUSAL not in codes(check(b"The plan is ready but the JSON was lost."))
    assert Code.REFUSAL not in codes(check(json.dumps("fix the login timeout").encode()))
    assert Code.REFUSAL not in codes(check(VALID, refusal=""))


def test_truncated_text_keeps_the_partial_value_for_display_only() -> None:
    cut = VALID[: len(VALID) - 25]
    report = check(cut)
    assert codes(report) == {Code.TRUNCATED}
    assert report.payload_is_partial
    assert report.payload["title"] == VALID_STRICT["title"]
    assert report.delivered is None
    assert Code.TRUNCATED not in codes(check(VALID))


def test_truncated_when_the_producer_stopped_at_its_length_limit() -> None:
    report = check(VALID, finish_reason="max_tokens")
    assert Code.TRUNCATED in codes(report)
    assert not report.approvable
    assert check(VALID, finish_reason="stop").approvable
    assert Code.TRUNCATED in codes(check(VALID, finish_reason="MAX_TOKENS"))


def test_duplicate_key() -> None:
    report = check(b'{"start": 1, "start": 5, "end": 9}', "window/v1")
    assert codes(report) == {Code.DUPLICATE_KEY}
    assert '"start"' in report.findings[0].message
    assert check(b'{"start": 1, "end": 9}', "window/v1").approvable


def test_not_object() -> None:
    for value in (b"[1, 2]", b"42", b"null", b"true", b'"fix the login"'):
        assert codes(check(value)) == {Code.NOT_OBJECT}, value
    assert Code.NOT_OBJECT not in codes(check(VALID))


def test_too_deep_without_recursion_error() -> None:
    for depth in (70, 100_000):
        deep = b'{"notes": ' + b"[" * depth + b"]" * depth + b"}"
        assert Code.TOO_DEEP in codes(check(deep)), depth
    nested_ok = b'{"start": 1, "end": 2, "x": ' + b"[" * 60 + b"]" * 60 + b"}"
    assert Code.TOO_DEEP not in codes(check(nested_ok, "window/v1"))


def test_depth_counts_brackets_in_structure_not_inside_strings() -> None:
    brackets = json.dumps({"start": 1, "end": 2, "s": "[" * 200 + "{" * 200}).encode()
    assert Code.TOO_DEEP not in codes(check(brackets, "window/v1"))


def test_depth_is_not_fooled_by_escaped_quotes_or_backslashes() -> None:
    tricky = {"start": 1, "end": 2, "s": 'a \\" [[[ \\', "t": '\\" {{{'}
    assert Code.TOO_DEEP not in codes(check(json.dumps(tricky).encode(), "window/v1"))
    deep = {"start": 1, "end": 2, "s": '\\"', "x": json.loads("[" * 70 + "]" * 70)}
    assert Code.TOO_DEEP in codes(check(json.dumps(deep).encode(), "window/v1"))
    deep["s"] = "]]]] unbalanced in a string"
    assert Code.TOO_DEEP in codes(check(json.dumps(deep).encode(), "window/v1"))


def test_unknown_schema() -> None:
    assert codes(check(VALID, "nope/v9")) == {Code.UNKNOWN_SCHEMA}
    assert codes(check(VALID, None)) == {Code.UNKNOWN_SCHEMA}
    assert Code.UNKNOWN_SCHEMA not in codes(check(VALID))


def test_missing_field_names_the_nested_path() -> None:
    steps = [{"name": "reproduce", "owner": "ana"}, {"name": "patch"}]
    report = check(strict_with(steps=steps, notes=DROP))
    assert {p for p, _, _ in only(report, Code.MISSING_FIELD)} == {"steps[1].owner", "notes"}
    assert Code.MISSING_FIELD not in codes(check(VALID))


def test_invalid_field() -> None:
    report = check(strict_with(kind="refactor", steps=[{"name": 3, "owner": "ana"}]))
    assert {p for p, _, _ in only(report, Code.INVALID_FIELD)} == {"kind", "steps[0].name"}
    assert all(sev is Severity.BLOCK for _, sev, _ in only(report, Code.INVALID_FIELD))
    assert Code.INVALID_FIELD not in codes(check(strict_with(kind="feature")))


def test_no_fields() -> None:
    assert Code.NO_FIELDS in codes(check(b'{"summary": "done"}'))
    lenient = check(b"{}", "lenient/v1")
    assert Code.NO_FIELDS in codes(lenient)
    assert not lenient.approvable
    assert Code.NO_FIELDS not in codes(check(b'{"title": "x"}', "lenient/v1"))


def test_secret_is_found_anywhere_and_never_stored_in_full() -> None:
    card = "4111 1111 1111 1111"
    aws = "AKIAIOSFODNN7EXAMPLE"
    payload = strict_with(notes=[f"paid with {card}"], extra={aws: "key as a key"})
    report = check(payload)
    assert {p for p, _, _ in only(report, Code.SECRET)} == {"notes[0]", 'extra["AKIAI…MPLE"]'}
    stored = json.dumps(report.to_json()) + report.raw_text + json.dumps(report.payload)
    assert card not in stored
    assert aws not in stored
    assert report.delivered is None


def test_secret_in_a_cut_off_or_prose_reply_is_masked_too() -> None:
    card = "4111111111111111"
    cut = strict_with(notes=[f"card {card}", "and a few more words"])[:-15]
    report = check(cut)
    assert {Code.TRUNCATED, Code.SECRET} <= codes(report)
    assert only(report, Code.SECRET)[0][0] == "notes[0]"
    assert card not in json.dumps(report.payload) + report.raw_text
    prose = check(f"Sorry, I cannot share the card {card}.".encode())
    assert {Code.REFUSAL, Code.SECRET} <= codes(prose)
    assert card not in json.dumps(prose.to_json()) + prose.raw_text


def test_secret_in_a_handoff_is_masked_in_the_envelope_too() -> None:
    card = "4111111111111111"
    payload = {**VALID_STRICT, "notes": [card]}
    report = inspect_handoff(envelope(raw=json.dumps(payload), payload=payload), REGISTRY)
    assert Code.SECRET in codes(report)
    assert report.envelope is not None
    assert card not in report.envelope.model_dump_json()


def test_secret_shapes_and_their_look_alikes() -> None:
    secrets = [
        "5500-0000-0000-0004",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA",
        "ghp_" + "a1B2" * 9,
        "github_pat_" + "A1b2_" * 6,
        "xoxb-1234567890-abcdefghij",
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    ]
    for secret in secrets:
        assert Code.SECRET in codes(check(strict_with(notes=[secret]))), secret
    look_alikes = [
        "order 4111 1111 1111 1112",  # fails Luhn
        "ticket 1234567812345670",  # passes Luhn, no issuer prefix
        "4111 1111-1111 1111",  # two kinds of separator
        "ghp_short",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    ]
    for text in look_alikes:
        assert Code.SECRET not in codes(check(strict_with(notes=[text]))), text


def test_secret_hidden_behind_json_escapes_or_in_a_number() -> None:
    escaped = strict_with(notes=["x"]).replace(b'"x"', b'"\\u0034111111111111111"')
    report = check(escaped)
    assert only(report, Code.SECRET)[0][0] == "notes[0]"
    assert "111111111111" not in report.raw_text
    after_backslash = strict_with(notes=["\\u4111111111111111", "caf\u00e9"])
    assert b"\\\\u4111" in after_backslash
    assert only(check(after_backslash), Code.SECRET)[0][0] == "notes[0]"
    spelled = strict_with(notes=["x"]).replace(b'"x"', b'"a\\u001b[2J"')
    assert only(check(spelled), Code.UNSAFE_TEXT)[0][0] == "notes[0]"
    astral = strict_with(notes=["x"]).replace(b'"x"', b'"tag\\udb40\\udc41"')
    assert only(check(astral), Code.UNSAFE_TEXT)[0][0] == "notes[0]"
    plain = strict_with(notes=["x"]).replace(b'"x"', b'"caf\\u00e9 \\u0041"')
    assert check(plain).approvable
    assert check(strict_with(notes=["\\u001b is how JSON spells ESC"])).approvable
    as_number = dumps({"start": 4111111111111111, "end": 4111111111111112})
    report = check(as_number, "window/v1")
    assert [p for p, _, _ in only(report, Code.SECRET)] == ["start"]


def test_empty_field_blocks_when_the_contract_rejects_it() -> None:
    report = check(strict_with(title="   "))
    assert only(report, Code.EMPTY_FIELD) == [
        ("title", Severity.BLOCK, only(report, Code.EMPTY_FIELD)[0][2])
    ]
    assert Code.INVALID_FIELD not in codes(report)
    assert Code.EMPTY_FIELD not in codes(check(strict_with(title="x")))


def test_an_empty_object_where_fields_are_required_blocks() -> None:
    report = check(strict_with(steps=[{}]))
    assert ("steps[0]", Severity.BLOCK) in {(p, s) for p, s, _ in only(report, Code.EMPTY_FIELD)}
    assert {p for p, _, _ in only(report, Code.MISSING_FIELD)} == {
        "steps[0].name",
        "steps[0].owner",
    }


def test_empty_field_warns_when_the_contract_accepts_it() -> None:
    report = check(strict_with(notes=[]))
    assert only(report, Code.EMPTY_FIELD)[0][:2] == ("notes", Severity.WARN)
    assert report.approvable
    lenient = check(b'{"title": "t", "owner": null, "tags": []}', "lenient/v1")
    assert {p for p, _, _ in only(lenient, Code.EMPTY_FIELD)} == {"owner", "tags"}


def test_empty_fields_are_found_beside_a_very_long_text() -> None:
    long = "word " * 20_000
    sparse = check(strict_with(title=long, notes=[], steps=[{"name": " ", "owner": "x"}]))
    assert {(p, s) for p, s, _ in only(sparse, Code.EMPTY_FIELD)} == {
        ("notes", Severity.WARN),
        ("steps[0].name", Severity.BLOCK),
    }
    lenient = check(dumps({"title": long, "owner": "  "}), "lenient/v1")
    assert only(lenient, Code.EMPTY_FIELD)[0][:2] == ("owner", Severity.WARN)


def test_defaulted_field_shows_the_default_used() -> None:
    report = check(b'{"title": "t"}', "lenient/v1")
    defaulted = only(report, Code.DEFAULTED_FIELD)
    assert [(p, s) for p, s, _ in defaulted] == [("tags", Severity.WARN), ("owner", Severity.WARN)]
    assert "[]" in defaulted[0][2]
    assert "null" in defaulted[1][2]
    assert report.approvable
    assert report.delivered == {"title": "t", "tags": [], "owner": None}
    explicit = check(b'{"title": "t", "tags": ["a"], "owner": "me"}', "lenient/v1")
    assert Code.DEFAULTED_FIELD not in codes(explicit)
    nested = check(b'{"members": [{"name": "ana"}], "by_role": {"ops": {}}}', "team/v1")
    assert [p for p, _, _ in only(nested, Code.DEFAULTED_FIELD)] == [
        "lead",
        "members[0].email",
        "by_role.ops.name",
        "by_role.ops.email",
    ]


def test_an_unknown_key_blocks_under_a_closed_contract_and_is_dropped_otherwise() -> None:
    steps = [{"name": "reproduce", "owner": "ana", "eta": "1d"}]
    report = check(strict_with(steps=steps, reviewer="zoe"))
    assert {(p, s) for p, s, _ in only(report, Code.UNKNOWN_KEY)} == {
        ("reviewer", Severity.BLOCK),
        ("steps[0].eta", Severity.BLOCK),
    }
    assert not report.approvable and report.delivered is None
    assert report.payload["reviewer"] == "zoe"
    lenient = check(b'{"title": "t", "extra": 1}', "lenient/v1")
    assert only(lenient, Code.UNKNOWN_KEY)[0][0] == "extra"
    assert lenient.delivered is not None and "extra" not in lenient.delivered
    assert Code.UNKNOWN_KEY not in codes(check(VALID))


def test_aliased_keys_are_the_contract_and_are_delivered_as_such() -> None:
    report = check(b'{"from": "ana", "reply-to": "bo"}', "aliased/v1")
    assert report.delivered == {"from": "ana", "reply-to": "bo"}
    assert REGISTRY["aliased/v1"].model_validate(report.delivered)
    by_name = check(b'{"sender": "ana", "reply-to": "bo"}', "aliased/v1")
    assert {(f.code, f.path) for f in by_name.findings} >= {
        (Code.UNKNOWN_KEY, "sender"),
        (Code.MISSING_FIELD, "from"),
    }


def test_unsafe_text_in_values_and_keys() -> None:
    for text in (
        "\x1b[31mred",
        "c1\x9b31m",
        "abc\u202eevil",
        "zero\u200bwidth",
        "tag\U000e0041",
        "bell\x07",
        "del\x7f",
    ):
        report = check(strict_with(notes=[text]))
        assert only(report, Code.UNSAFE_TEXT)[0][0] == "notes[0]", repr(text)
    keyed = check(strict_with(**{"note\u202e": 1}))
    assert only(keyed, Code.UNSAFE_TEXT)[0][0] == '["note\\u202e"]'
    plain = check(strict_with(notes=["a\nb", "tab\there", "naïve café ☕"]))
    assert Code.UNSAFE_TEXT not in codes(plain)


def test_modified_upstream() -> None:
    same = check(VALID, upstream_payload=json.loads(VALID))
    assert Code.MODIFIED_UPSTREAM not in codes(same)
    repaired = {**VALID_STRICT, "notes": ["seen on staging", "closed by an extractor"]}
    assert Code.MODIFIED_UPSTREAM in codes(check(VALID, upstream_payload=repaired))
    flags = check(
        b'{"start": 1, "end": 2}', "window/v1", upstream_payload={"start": True, "end": 2}
    )
    assert Code.MODIFIED_UPSTREAM in codes(flags)
    cut = check(VALID[:-10], upstream_payload=VALID_STRICT)
    assert {Code.TRUNCATED, Code.MODIFIED_UPSTREAM} <= codes(cut)


def test_cross_field_runs_even_when_fields_fail() -> None:
    report = check(b'{"start": 9, "end": 2}', "window/v1")
    assert only(report, Code.CROSS_FIELD) == [("end", Severity.BLOCK, "ends before it starts")]
    broken_fields = check(b'{"start": 9, "end": 2, "label": 3}', "window/v1")
    assert Code.CROSS_FIELD in codes(broken_fields)
    assert Code.CROSS_FIELD not in codes(check(b'{"start": 2, "end": 9}', "window/v1"))


def test_append_only_compares_with_the_previous_handoff() -> None:
    previous = {"entries": ["a", "b"]}
    extended = check(b'{"entries": ["a", "b", "c"]}', "log/v1", previous=previous)
    assert extended.approvable
    rewritten = check(b'{"entries": ["a", "B", "c"]}', "log/v1", previous=previous)
    assert only(rewritten, Code.APPEND_ONLY)[0][:2] == ("entries", Severity.BLOCK)
    shortened = check(b'{"entries": ["a"]}', "log/v1", previous=previous)
    assert Code.APPEND_ONLY in codes(shortened)
    assert check(b'{"entries": ["x"]}', "log/v1").approvable


def test_bad_envelope_is_a_report_not_an_exception() -> None:
    good = envelope(raw=VALID.decode())
    assert inspect_handoff(good, REGISTRY).approvable
    both = envelope(raw=VALID.decode(), raw_base64=base64.b64encode(VALID).decode())
    for bad in (
        good[: len(good) // 2],
        b"",
        b"[]",
        envelope(seq=0),
        envelope(raw_base64="%"),
        both,
    ):
        report = inspect_handoff(bad, REGISTRY)
        assert codes(report) == {Code.BAD_ENVELOPE}, bad[:40]
        assert len(report.sha256) == 64


def test_handoff_subject_raw_base64_and_payload() -> None:
    raw = envelope(raw_base64=base64.b64encode(VALID).decode())
    assert inspect_handoff(raw, REGISTRY).delivered == VALID_STRICT
    parsed = inspect_handoff(envelope(payload=VALID_STRICT), REGISTRY)
    assert parsed.approvable
    assert parsed.envelope is not None
    both = inspect_handoff(envelope(raw=VALID.decode(), payload={"title": "x"}), REGISTRY)
    assert Code.MODIFIED_UPSTREAM in codes(both)
    stopped = envelope(raw=VALID.decode(), producer={"finish_reason": "length"})
    assert Code.TRUNCATED in codes(inspect_handoff(stopped, REGISTRY))


def test_internal_error_from_a_contract_hook_blocks() -> None:
    report = check(b'{"value": 1}', "broken/v1")
    assert only(report, Code.INTERNAL_ERROR)[0][1] is Severity.BLOCK
    assert "this hook has a bug" in report.findings[0].message


def test_internal_error_from_anything_unexpected_is_caught() -> None:
    class Exploding(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise ZeroDivisionError("registry broke")

    report = inspect(VALID, "strict/v1", Exploding())
    assert codes(report) == {Code.INTERNAL_ERROR}
    assert len(report.sha256) == 64
    assert Code.INTERNAL_ERROR not in codes(check(VALID))
