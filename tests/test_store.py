"""The run directory: ids, ordering, exact payload storage and path safety."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff_gate.gates.api import decide, inspect_in_run, submit
from handoff_gate.gates.audit.decision_record import Decision
from handoff_gate.gates.audit.log import now_iso
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.standing import report_in_run
from handoff_gate.gates.standing.report_in_run import previous_payload
from handoff_gate.gates.store import durable
from handoff_gate.gates.store.durable import OversizeError, atomic_write, exclusive_create, inside
from handoff_gate.gates.store.filesystem import (
    FilesystemStore,
    find_runs,
    handoff_path,
    list_handoffs,
    read_handoff_bytes,
)
from handoff_gate.gates.store.select import StoreURLError
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.findings import Code, Verdict
from handoff_gate.gates.vocab.ids import UnsafePathError
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.schemas import example_path


def _envelope(path: Path) -> Envelope:
    return Envelope.model_validate_json(path.read_bytes())


def test_submit_creates_the_run_and_numbers_handoffs_in_order(tmp_path: Path) -> None:
    run = tmp_path / "run-a"
    first = submit(run, b'{"x": 1}', phase="plan", schema_id="plan/v1")
    second = submit(run, b"{}", phase="design", schema_id="design/v1", from_role="planner")
    assert (first.id, second.id) == ("0001-plan", "0002-design")
    assert [r.id for r in list_handoffs(run)] == ["0001-plan", "0002-design"]
    envelope = _envelope(handoff_path(run, second.id))
    assert envelope.run == "run-a"
    assert envelope.from_role == "planner"
    assert envelope.schema_id == "design/v1"
    assert envelope.created.endswith("Z")


def test_submit_keeps_the_exact_text_and_producer_signals(tmp_path: Path) -> None:
    text = '{"brief": "caf\u00e9 \\u0041",  "citations": []}\n'
    ref = submit(
        tmp_path,
        text.encode(),
        phase="research",
        schema_id="research_brief/v1",
        finish_reason="length",
        output_tokens=12,
    )
    envelope = _envelope(handoff_path(Path(ref.run), ref.id))
    assert envelope.raw == text
    assert envelope.producer.finish_reason == "length"
    assert envelope.producer.output_tokens == 12
    assert not envelope.has_payload


def test_handoff_files_are_ascii_so_cat_cannot_drive_the_terminal(tmp_path: Path) -> None:
    ref = submit(
        tmp_path,
        '{"a": "\x1b[2J\u202e"}'.encode(),
        phase="p",
        schema_id="x/v1",
        allow_unknown_schema=True,
    )
    data = handoff_path(Path(ref.run), ref.id).read_bytes()
    assert data.isascii()
    assert b"\x1b" not in data
    assert _envelope(handoff_path(Path(ref.run), ref.id)).raw == '{"a": "\x1b[2J\u202e"}'


def test_non_utf8_bytes_are_kept_as_base64(tmp_path: Path) -> None:
    payload = b'{"a": "\xff\xfe"}'
    ref = submit(tmp_path, payload, phase="plan", schema_id="plan/v1")
    envelope = _envelope(handoff_path(Path(ref.run), ref.id))
    assert envelope.raw is None
    assert envelope.raw_base64 is not None
    assert base64.b64decode(envelope.raw_base64) == payload


def test_upstream_payload_is_recorded_only_when_given(tmp_path: Path) -> None:
    given = submit(
        tmp_path,
        b"null",
        phase="a",
        schema_id="x/v1",
        allow_unknown_schema=True,
        upstream_payload=None,
    )
    absent = submit(tmp_path, b"null", phase="a", schema_id="x/v1", allow_unknown_schema=True)
    assert _envelope(handoff_path(tmp_path, given.id)).has_payload
    assert not _envelope(handoff_path(tmp_path, absent.id)).has_payload


@pytest.mark.parametrize("phase", ["", "Plan", "../x", "a b", "x" * 41])
def test_a_bad_phase_is_refused_and_nothing_is_written(tmp_path: Path, phase: str) -> None:
    with pytest.raises(ValueError, match="phase"):
        submit(tmp_path / "run", b"{}", phase=phase, schema_id="plan/v1")
    assert list_handoffs(tmp_path / "run") == []


def test_a_reserved_but_unwritten_number_is_skipped(tmp_path: Path) -> None:
    submit(tmp_path, b"{}", phase="a", schema_id="x/v1", allow_unknown_schema=True)
    (tmp_path / "handoffs" / ".seq" / "0002").touch()
    assert (
        submit(tmp_path, b"{}", phase="a", schema_id="x/v1", allow_unknown_schema=True).id
        == "0003-a"
    )


def test_listing_skips_temp_files_junk_and_symlinks_and_sorts_numerically(tmp_path: Path) -> None:
    folder = tmp_path / "handoffs"
    folder.mkdir()
    for name in ["10000-big.json", "9999-small.json", "0002-b.json"]:
        (folder / name).write_text("{}")
    for junk in [".0003-c.json.1.ab.tmp", "notes.txt", "0004-UPPER.json", "12-short.json"]:
        (folder / junk).write_text("{}")
    (folder / "0005-link.json").symlink_to(folder / "0002-b.json")
    (folder / "0006-dir.json").mkdir()
    ids = [r.id for r in list_handoffs(tmp_path)]
    assert ids == ["0002-b", "9999-small", "10000-big"]


def test_find_runs_returns_the_run_itself_or_its_child_runs(tmp_path: Path) -> None:
    for name in ["b", "a"]:
        (tmp_path / name / "handoffs").mkdir(parents=True)
    (tmp_path / "not-a-run").mkdir()
    assert find_runs(tmp_path) == [tmp_path / "a", tmp_path / "b"]
    assert find_runs(tmp_path / "a") == [tmp_path / "a"]
    assert find_runs(tmp_path / "missing") == []


@pytest.mark.parametrize("bad", ["../0001-x", "0001-x/../../etc", "1-x", "0001-X", "0001-x\n"])
def test_ids_that_could_escape_are_rejected(tmp_path: Path, bad: str) -> None:
    (tmp_path / "handoffs").mkdir()
    with pytest.raises(UnsafePathError):
        read_handoff_bytes(tmp_path, bad)


def test_a_symlink_pointing_outside_the_run_is_not_followed(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "handoffs").mkdir(parents=True)
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    (run / "handoffs" / "0001-x.json").symlink_to(secret)
    with pytest.raises(UnsafePathError):
        read_handoff_bytes(run, "0001-x")
    (run / "handoffs").rename(run / "old")
    (run / "handoffs").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError):
        read_handoff_bytes(run, "0001-x")


def test_path_parts_that_climb_out_are_refused_even_below_a_missing_folder(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for parts in [("missing", "..", "..", "etc"), ("..",), ("a/../../b",)]:
        with pytest.raises(UnsafePathError):
            inside(run, *parts)
    assert inside(run, "missing", "0001-x.json") == run / "missing" / "0001-x.json"
    (run / "inner").mkdir()
    (run / "alias").symlink_to(run / "inner")
    assert inside(run, "alias", "0001-x.json") == run / "alias" / "0001-x.json"


def test_oversize_handoffs_are_refused_before_reading(tmp_path: Path) -> None:
    ref = submit(
        tmp_path, b"{}" + b" " * 5000, phase="a", schema_id="x/v1", allow_unknown_schema=True
    )
    with pytest.raises(OSError, match="limit"):
        read_handoff_bytes(tmp_path, ref.id, max_bytes=1000)
    assert read_handoff_bytes(tmp_path, ref.id) == handoff_path(Path(ref.run), ref.id).read_bytes()


def _approved(run: Path, handoff_id: str) -> None:
    """An unsigned approval of the handoff's current bytes, filed as ``decide`` files one
    (``decide`` itself refuses these contract-less payloads)."""
    store = FilesystemStore()
    record = Decision(
        handoff=handoff_id,
        run=run.name,
        action="approve",
        reviewer="ana",
        decided_at=now_iso(),
        sha256=store.handoff_sha256(str(run), handoff_id),
        verdict=Verdict.APPROVABLE,
    )
    data = record.model_dump_json().encode()
    store.create_decision(str(run), handoff_id, None, data, {"event": "decision_written"})


def test_previous_payload_is_the_latest_earlier_approved_one_of_the_same_contract(
    tmp_path: Path,
) -> None:
    for n in (1, 2):
        _approved(
            tmp_path, submit(tmp_path, b'{"n": %d}' % n, phase="baton", schema_id="baton/v1").id
        )
    _approved(tmp_path, submit(tmp_path, b'{"n": 9}', phase="plan", schema_id="plan/v1").id)
    _approved(tmp_path, submit(tmp_path, b'{"n": 3', phase="baton", schema_id="baton/v1").id)
    submit(tmp_path, b'{"n": 7}', phase="baton", schema_id="baton/v1")  # undecided: passed over
    current = submit(tmp_path, b'{"n": 4}', phase="baton", schema_id="baton/v1")
    _approved(tmp_path, submit(tmp_path, b'{"n": 5}', phase="baton", schema_id="baton/v1").id)
    assert previous_payload(tmp_path, current.id, "baton/v1", None, FilesystemStore()) == {"n": 2}
    assert previous_payload(tmp_path, "0001-baton", "baton/v1", None, FilesystemStore()) is None


def test_inspect_in_run_blocks_a_missing_or_oversize_file_without_raising(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "handoffs").mkdir()
    missing = inspect_in_run(tmp_path, "0007-gone", {})
    assert missing.verdict is Verdict.BLOCKED
    assert [f.code for f in missing.findings] == [Code.BAD_ENVELOPE]
    unsafe = inspect_in_run(tmp_path, "../../etc/passwd", {})
    assert unsafe.verdict is Verdict.BLOCKED
    ref = submit(
        tmp_path, b"{}" + b" " * 4096, phase="a", schema_id="x/v1", allow_unknown_schema=True
    )
    monkeypatch.setattr(report_in_run, "MAX_HANDOFF_BYTES", 1024)
    oversize = inspect_in_run(tmp_path, ref.id, {})
    assert [f.code for f in oversize.findings] == [Code.OVERSIZE]


def test_a_file_that_grew_after_its_size_was_taken_is_read_whole_but_never_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "grows.json"
    data = os.urandom(200_000)
    path.write_bytes(data)
    real_fstat = os.fstat

    def stale_fstat(fd: int) -> os.stat_result:
        fields = list(real_fstat(fd))
        fields[6] = 100  # st_size as it was before the writer appended
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", stale_fstat)
    assert durable.read_bounded(path, 300_000) == data
    assert durable.read_bounded(path, 200_000) == data
    with pytest.raises(OversizeError):
        durable.read_bounded(path, 150_000)


def test_the_run_reads_handoffs_up_to_the_size_inspection_accepts() -> None:
    from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES as DEFAULT_MAX_BYTES

    assert MAX_HANDOFF_BYTES == DEFAULT_MAX_BYTES


def test_exclusive_create_never_overwrites_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "d.json"
    exclusive_create(target, b"first")
    with pytest.raises(FileExistsError):
        exclusive_create(target, b"second")
    assert target.read_bytes() == b"first"
    atomic_write(tmp_path / "e.json", b"one")
    atomic_write(tmp_path / "e.json", b"two")
    assert (tmp_path / "e.json").read_bytes() == b"two"
    assert sorted(os.listdir(tmp_path)) == ["d.json", "e.json"]


def test_envelope_written_by_submit_is_plain_json_a_person_can_read(tmp_path: Path) -> None:
    ref = submit(tmp_path, b'{"a": 1}', phase="plan", schema_id="plan/v1")
    text = handoff_path(Path(ref.run), ref.id).read_text()
    assert text.count("\n") > 5
    assert json.loads(text)["id"] == "0001-plan"


def _baton(name: str) -> dict[str, Any]:
    baton: dict[str, Any] = json.loads(example_path(name).read_bytes())
    return baton


def test_append_only_compares_with_the_last_approved_baton_or_patch(
    tmp_path: Path,
) -> None:
    registry = load_registry("")
    baton = _baton("baton/v1")
    first = submit(tmp_path, json.dumps(baton).encode(), phase="baton", schema_id="baton/v1")
    decide(tmp_path, first.id, "approve", registry=registry)
    submit(tmp_path, example_path("plan/v1").read_bytes(), phase="plan", schema_id="plan/v1")
    quiet = {**_baton("baton_patch/v1"), "decision_log": None}
    submit(tmp_path, json.dumps(quiet).encode(), phase="patch", schema_id="baton_patch/v1")
    shrunk = {**_baton("baton_patch/v1"), "decision_log": baton["decision_log"][:1]}
    cut = submit(tmp_path, json.dumps(shrunk).encode(), phase="patch", schema_id="baton_patch/v1")

    assert (
        previous_payload(tmp_path, cut.id, "baton_patch/v1", registry, FilesystemStore()) == baton
    )
    report = inspect_in_run(tmp_path, cut.id, registry)
    assert Code.APPEND_ONLY in {f.code for f in report.blocking}

    decide(tmp_path, cut.id, "reject", reason="drops a decision", registry=registry)
    grown = {**_baton("baton_patch/v1"), "decision_log": [*baton["decision_log"], _entry()]}
    ok = submit(tmp_path, json.dumps(grown).encode(), phase="patch", schema_id="baton_patch/v1")
    assert previous_payload(tmp_path, ok.id, "baton_patch/v1", registry, FilesystemStore()) == baton
    report = inspect_in_run(tmp_path, ok.id, registry)
    assert Code.APPEND_ONLY not in {f.code for f in report.findings}
    assert previous_payload(tmp_path, "0002-plan", "plan/v1", registry, FilesystemStore()) is None


def _entry() -> dict[str, Any]:
    return {
        "step_id": "build-4",
        "timestamp": "2026-03-02T15:00:00Z",
        "decision": "Keep the old endpoint for one release",
        "rationale": "Two customers still call it from scripts.",
    }


def test_nothing_is_written_through_folders_symlinked_out_of_the_run(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    (run / "handoffs").symlink_to(outside)
    with pytest.raises(UnsafePathError):
        submit(run, b"{}", phase="plan", schema_id="plan/v1")
    other = tmp_path / "other"
    ref = submit(other, example_path("plan/v1").read_bytes(), phase="plan", schema_id="plan/v1")
    (other / "decisions").rmdir()
    (other / "decisions").symlink_to(outside)
    with pytest.raises(UnsafePathError):
        decide(other, ref.id, "approve", registry=load_registry(""))
    assert list(outside.iterdir()) == []


PAYLOADS = st.binary(max_size=300) | st.text(max_size=200).map(str.encode)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=PAYLOADS)
def test_any_payload_bytes_survive_submit_exactly(tmp_path: Path, payload: bytes) -> None:
    ref = submit(tmp_path, payload, phase="fuzz", schema_id="plan/v1")
    envelope = _envelope(handoff_path(Path(ref.run), ref.id))
    if envelope.raw is not None:
        assert envelope.raw.encode() == payload
    else:
        assert envelope.raw_base64 is not None
        assert base64.b64decode(envelope.raw_base64) == payload
    assert handoff_path(Path(ref.run), ref.id).read_bytes().isascii()


def test_a_handoff_that_could_not_be_logged_is_still_returned_once(tmp_path: Path) -> None:
    """Failing after the handoff is stored would make the pipeline's retry store it twice."""
    first = submit(tmp_path, b"{}", phase="plan", schema_id="plan/v1")
    (tmp_path / "audit.jsonl").unlink()
    (tmp_path / "audit.jsonl").mkdir()  # the log cannot be appended to any more
    told: list[str] = []
    second = submit(tmp_path, b"{}", phase="plan", schema_id="plan/v1", on_warning=told.append)
    assert (first.id, second.id) == ("0001-plan", "0002-plan")
    assert handoff_path(tmp_path, second.id).is_file()
    assert len(told) == 1 and "not logged" in told[0]


@pytest.mark.parametrize("spec", ["mysql://me:s3cret@db/runs", "POSTGRESQL://me:s3cret@db/x"])
def test_an_unknown_store_scheme_is_one_line_naming_the_known_ones(spec: str) -> None:
    """Every way a store is named (``--store``, a ``Gate``) goes through one table, and a
    URL it has no entry for is refused in one line that never repeats the password."""
    scheme = spec.split(":", 1)[0]
    says = f"the store must be empty or a URL of postgresql://, postgres://, not a {scheme}:// URL"
    done = cli("--store", spec, "list")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"handoff-gate list: {says}\n"
    with pytest.raises(StoreURLError) as refused:
        Gate(spec)
    assert str(refused.value) == says
