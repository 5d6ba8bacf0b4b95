"""Issue 19, item 6: one bad record harms only itself, and no traceback reaches the terminal.

A FIFO, a symlink, a directory or an oversize file where a decision belongs makes that
handoff ``unusable`` with its reason; every other handoff and run lists, shows, decides
and waits as before, and run names carrying terminal escapes are printed as tokens.
An unexpected error is one sanitised line and exit 2.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import cli, submit
from other_account import PIPELINE_UID, gate_as, shared_folder
from planted import UNREADABLE

from handoff_gate.gates.vocab.safe_text import os_reason

#: A run name an agent chose: an OSC title sequence and a bare ESC.
HOSTILE = "run\x1b]0;owned\x07\x1b[2J"


def _no_escape(*texts: str) -> None:
    for text in texts:
        assert "\x1b" not in text and "\x07" not in text
        assert "Traceback" not in text


@pytest.mark.parametrize("kind", sorted(UNREADABLE))
def test_junk_decision_makes_only_its_handoff_unusable(tmp_path: Path, kind: str) -> None:
    bad_run, good_run = tmp_path / HOSTILE, tmp_path / "good"
    bad, other = submit(bad_run), submit(bad_run)
    untouched = submit(good_run)
    UNREADABLE[kind](bad_run / "decisions" / f"{bad}.json")

    listed = cli("list", str(tmp_path), "--json")
    assert listed.returncode == 0, listed.stderr
    _no_escape(listed.stdout, listed.stderr)
    rows = {(r["run"], r["id"]): r for r in json.loads(listed.stdout)}
    bad_row = next(r for (run, hid), r in rows.items() if hid == bad and run != "good")
    assert bad_row["state"] == "unusable" and bad_row["problem"]
    states = sorted(r["state"] for r in rows.values())
    assert states == ["pending", "pending", "unusable"]

    plain = cli("list", str(tmp_path), "--no-header")
    assert plain.returncode == 0
    _no_escape(plain.stdout, plain.stderr)
    assert len(plain.stdout.splitlines()) == 3
    assert "run\u27e8ESC\u27e9]0;owned\u27e8BEL\u27e9" in plain.stdout  # tokens, not escapes

    shown = cli("show", str(bad_run), bad)
    assert shown.returncode == 0, shown.stderr
    _no_escape(shown.stdout, shown.stderr)
    assert "decision: UNUSABLE" in shown.stdout

    refused = cli("decide", str(bad_run), bad, "approve")
    assert refused.returncode == (2 if kind == "symlink" else 1)  # out of the run: unsafe
    _no_escape(refused.stdout, refused.stderr)
    waited = cli("wait", str(bad_run), bad, "--timeout", "0")
    assert waited.returncode == 2
    _no_escape(waited.stdout, waited.stderr)

    for run, hid in ((bad_run, other), (good_run, untouched)):
        assert cli("show", str(run), hid).returncode == 0
        decided = cli("decide", str(run), hid, "approve", "--reviewer", "ana")
        assert decided.returncode == 0, decided.stderr
        delivered = cli("wait", str(run), hid, "--timeout", "5")
        assert delivered.returncode == 0, delivered.stderr
        assert json.loads(delivered.stdout)["problem_statement"]


def test_a_run_nobody_may_read_does_not_hide_the_others() -> None:
    with shared_folder() as root:
        readable, closed = root / "readable", root / HOSTILE
        submit(readable)
        submit(closed)
        for path in (readable, *readable.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        closed.chmod(0o700)
        done = gate_as(PIPELINE_UID, PIPELINE_UID, "list", str(root), "--no-header")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["readable"]
    _no_escape(done.stdout, done.stderr)
    assert "cannot read the run" in done.stderr and "permission denied" in done.stderr


def test_an_unexpected_error_is_one_sanitised_line_and_exit_2() -> None:
    with shared_folder() as root:
        run = root / HOSTILE
        hid = submit(run)
        run.chmod(0o700)  # the account below cannot look inside: an error nothing expects
        done = gate_as(PIPELINE_UID, PIPELINE_UID, "show", str(run), hid)
        debug = gate_as(
            PIPELINE_UID,
            PIPELINE_UID,
            "show",
            str(run),
            hid,
            env={**os.environ, "HANDOFF_GATE_TRACEBACK": "1"},
        )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("handoff-gate show: internal error: ")
    _no_escape(done.stderr)
    assert debug.returncode == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.splitlines()[-1] == lines[0]


@pytest.mark.parametrize("kind", ["file", "fifo", "symlink"])
def test_junk_where_an_edit_folder_goes_is_set_aside_and_the_edit_kept(
    tmp_path: Path, kind: str
) -> None:
    """Issue 31: junk planted at ``edits/ID`` (where a reviewer's edit folder goes) kept
    every edit of that handoff out. It is set aside, as junk in a decision slot is."""
    run = tmp_path / "run"
    hid = submit(run)
    (run / "edits").mkdir()
    junk = run / "edits" / hid
    if kind == "file":
        junk.write_text("not a folder")
    else:
        UNREADABLE[kind](junk)
    plan = json.loads((run / "handoffs" / f"{hid}.json").read_text())["raw"]
    edited = {**json.loads(plan), "risks": ["Refunds are booked a day late"]}
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps(edited))
    decided = cli("decide", str(run), hid, "approve", "--edit", str(fixed))
    assert decided.returncode == 0, decided.stderr
    assert junk.is_dir() and not junk.is_symlink()
    assert [p.name for p in (run / "edits").iterdir() if p.name.endswith(".junk")]
    waited = cli("wait", str(run), hid, "--timeout", "0")
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout)["risks"] == ["Refunds are booked a day late"]


def test_what_went_wrong_is_a_sentence_not_an_errno_and_a_full_path() -> None:
    """Issue 31: reviewers saw ``[Errno 13] Permission denied: '/full/path'``; the
    standing's problems, a contract or record that cannot be read and a handoff that
    cannot be inspected now say it as ``os_reason`` words it."""
    denied = PermissionError(13, "Permission denied", "/srv/runs/job-1/decisions/0001-plan")
    assert os_reason(denied) == "permission denied (0001-plan)"
    assert os_reason(NotADirectoryError(20, "Not a directory", "/a/b")) == "not a directory (b)"
    assert os_reason(ValueError("two\nlines\x1b[2J")) == "two lines\u27e8ESC\u27e9[2J"
