"""The audit log: typed events, a hash chain that exposes tampering, no payload text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import racers

from handoff_gate.gates.api import submit
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.audit.log import Event
from handoff_gate.gates.store.filesystem import AUDIT_FILE, FilesystemStore
from handoff_gate.gates.store.log_chain import GENESIS


def _lines(run: Path) -> list[str]:
    return (run / AUDIT_FILE).read_text().splitlines()


def _append_many(run: str, count: int) -> None:
    for n in range(count):
        audit.append(
            Path(run),
            Event.WAIT_RETURNED,
            store=FilesystemStore(),
            handoff="0001-a",
            outcome=f"n{n}",
        )


def test_events_chain_from_genesis(tmp_path: Path) -> None:
    first = audit.append(
        tmp_path, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff="0001-a"
    )
    second = audit.append(
        tmp_path, Event.DECISION_WRITTEN, store=FilesystemStore(), handoff="0001-a"
    )
    assert first["prev"] == GENESIS
    assert second["prev"] != GENESIS
    assert [e["event"] for e in audit.read_events(tmp_path, FilesystemStore())] == [
        "handoff_submitted",
        "decision_written",
    ]
    assert audit.verify_chain(tmp_path, FilesystemStore()) == []


def test_an_edited_line_breaks_the_chain_right_after_it(tmp_path: Path) -> None:
    for n in range(4):
        audit.append(
            tmp_path,
            Event.DECISION_WRITTEN,
            store=FilesystemStore(),
            handoff=f"000{n + 1}-a",
            action="reject",
        )
    lines = _lines(tmp_path)
    lines[1] = lines[1].replace("reject", "approve")
    (tmp_path / AUDIT_FILE).write_text("\n".join(lines) + "\n")
    assert audit.verify_chain(tmp_path, FilesystemStore()) == [
        "line 3: prev does not match the line before it"
    ]


def test_a_deleted_line_is_detected(tmp_path: Path) -> None:
    for n in range(3):
        audit.append(
            tmp_path, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff=f"000{n + 1}-a"
        )
    lines = _lines(tmp_path)
    del lines[0]
    (tmp_path / AUDIT_FILE).write_text("\n".join(lines) + "\n")
    assert audit.verify_chain(tmp_path, FilesystemStore()) == [
        "line 1: prev does not match the line before it"
    ]


def test_unknown_events_and_garbage_are_reported(tmp_path: Path) -> None:
    audit.append(tmp_path, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff="0001-a")
    log = tmp_path / AUDIT_FILE
    log.write_text(log.read_text().replace("handoff_submitted", "handoff_approved"))
    with log.open("a") as handle:
        handle.write("not json\n")
    problems = audit.verify_chain(tmp_path, FilesystemStore())
    assert problems == ["line 1: unknown event 'handoff_approved'", "line 2: not a JSON object"]


def test_a_torn_last_line_is_closed_before_the_next_append(tmp_path: Path) -> None:
    audit.append(tmp_path, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff="0001-a")
    with (tmp_path / AUDIT_FILE).open("a") as handle:
        handle.write('{"event": "decision_wr')
    audit.append(tmp_path, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff="0002-a")
    assert len(_lines(tmp_path)) == 3
    assert audit.verify_chain(tmp_path, FilesystemStore()) == ["line 2: not a JSON object"]
    assert audit.read_events(tmp_path, FilesystemStore())[-1]["handoff"] == "0002-a"


def test_concurrent_writers_keep_one_linear_chain(tmp_path: Path) -> None:
    ctx = racers.context()
    workers = [ctx.Process(target=_append_many, args=(str(tmp_path), 25)) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    assert len(_lines(tmp_path)) == 100
    assert audit.verify_chain(tmp_path, FilesystemStore()) == []


def test_payload_text_never_reaches_the_log(tmp_path: Path) -> None:
    token = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    payload = json.dumps({"brief": f"use key {token}", "note": "\x1b[31mred"}).encode()
    submit(tmp_path, payload, phase="research", schema_id="research_brief/v1")
    text = (tmp_path / AUDIT_FILE).read_text()
    assert "handoff_submitted" in text
    assert token not in text
    assert "use key" not in text
    assert text.isascii()


def test_a_log_symlinked_elsewhere_is_never_appended_to(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / AUDIT_FILE).symlink_to(elsewhere)
    with pytest.raises(OSError):
        audit.append(run, Event.HANDOFF_SUBMITTED, store=FilesystemStore(), handoff="0001-a")
    assert elsewhere.read_text() == "keep\n"
