"""``check --json-schema`` on the Dex feature-loop samples, and its usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli

from handoff_gate.cli.main import main

DEX = Path(__file__).resolve().parent.parent / "sample_runs" / "dex-contracts"
SCHEMA = {
    "manifest": "manifest.schema.json",
    "gap": "gap_analysis.schema.json",
    "verify": "verify.schema.json",
    "learnings": "learnings.schema.json",
}
#: payload -> the (code, path, severity) findings ``check --json`` must report, in order.
EXPECTED: dict[str, list[tuple[str, str, str]]] = {
    "manifest-ok": [("defaulted_field", "features[0].depends_on", "warn")],
    "manifest-bad": [
        ("invalid_field", "extracted_at", "block"),
        ("unknown_key", "features[0].priority", "block"),
        ("empty_field", "features[1].description", "block"),
        ("invalid_field", "features[1].depends_on", "block"),
        ("defaulted_field", "features[0].depends_on", "warn"),
    ],
    "gap-ok": [],
    "gap-bad": [
        ("invalid_field", "decision", "block"),
        ("unknown_key", "note_to_builder", "block"),
        ("missing_field", "reason", "block"),
    ],
    "verify-ok": [],
    "verify-bad": [
        ("invalid_field", "passed", "block"),
        ("invalid_field", "failures[0].severity", "block"),
        ("empty_field", "summary", "block"),
    ],
    "learnings-ok": [("empty_field", "learnings[1].context", "warn")],
    "learnings-bad": [
        ("invalid_field", "learnings[0].category", "block"),
        ("invalid_field", "learnings[0].insight", "block"),
    ],
}


def test_every_sample_payload_is_listed() -> None:
    assert sorted(p.stem for p in (DEX / "payloads").glob("*.json")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_payload_against_its_schema(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    schema = DEX / SCHEMA[name.split("-")[0]]
    payload = DEX / "payloads" / f"{name}.json"
    code = main(["check", str(payload), "--json-schema", str(schema), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if name.endswith("-ok") else 1)
    findings = [(f["code"], f["path"], f["severity"]) for f in report["findings"]]
    assert findings == EXPECTED[name]
    assert report["schema"].startswith("sha256:")


def test_the_command_as_a_pipeline_runs_it() -> None:
    done = cli(
        "check",
        str(DEX / "payloads" / "verify-bad.json"),
        "--json-schema",
        str(DEX / SCHEMA["verify"]),
        "--schema",
        "verify/v1",
    )
    assert done.returncode == 1, done.stderr
    assert "BLOCKED  schema verify/v1" in done.stdout
    assert 'failures[0].severity  "critical" is not one of "blocking" or "minor"' in done.stdout


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        (
            {"type": "object", "properties": {"a": {"$ref": "https://example.org/a.json"}}},
            "it refers to https://example.org/a.json, outside the document; nothing is fetched",
        ),
        (
            {"type": "object", "properties": {"a": {"minLength": -1}}},
            "not a valid JSON Schema at /properties/a/minLength",
        ),
    ],
)
def test_a_schema_the_gate_cannot_use_exits_2_on_one_line(
    tmp_path: Path, schema: dict[str, object], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(schema))
    payload = tmp_path / "p.json"
    payload.write_text("{}")
    assert main(["check", str(payload), "--json-schema", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


@pytest.mark.parametrize("which", ["schema", "payload"])
def test_missing_files_exit_2(
    tmp_path: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    schema, payload = DEX / SCHEMA["gap"], DEX / "payloads" / "gap-ok.json"
    missing = tmp_path / "nope.json"
    args = [str(payload if which == "schema" else missing), "--json-schema"]
    args.append(str(missing if which == "schema" else schema))
    assert main(["check", *args]) == 2
    assert "no such file" in capsys.readouterr().err
