"""``handoff-gate wait`` looks before it blocks: a decided handoff is answered without
starting the watcher, and a wait that goes on to block behaves as one wait."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_helpers import cli, python_stdout, submit

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.filesystem import FilesystemStore


def _wait_watched(run: Path, handoff_id: str, *extra: str) -> tuple[int, bool, bool]:
    """Run ``wait`` in a fresh interpreter: its exit code, whether it started a
    watchfiles watch, and whether it loaded the ``--notify`` runner."""
    script = (
        "import contextlib, io, json, sys, watchfiles\n"
        "watched = []\n"
        "real = watchfiles.watch\n"
        "def spy(*args, **kwargs):\n"
        "    watched.append(args)\n"
        "    yield from real(*args, **kwargs)\n"
        "watchfiles.watch = spy\n"
        "from handoff_gate.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['wait', {str(run)!r}, {handoff_id!r}, *{list(extra)!r}])\n"
        "print(json.dumps([code, bool(watched), 'handoff_gate.cli.notify' in sys.modules]))\n"
    )
    code, watched, notify = json.loads(python_stdout(script))
    return code, watched, notify


def test_a_decided_handoff_is_answered_without_the_watcher(tmp_path: Path) -> None:
    hid = submit(tmp_path)
    assert cli("decide", str(tmp_path), hid, "approve").returncode == 0
    assert _wait_watched(tmp_path, hid, "--timeout", "5", "--notify", "true") == (0, False, False)
    assert audit.read_events(tmp_path, FilesystemStore())[-1]["outcome"] == "approved"


def test_an_undecided_handoff_is_watched_and_announced(tmp_path: Path) -> None:
    """The other side of the split: what the decided case skips is what blocking uses."""
    hid = submit(tmp_path)
    assert _wait_watched(tmp_path, hid, "--timeout", "0.5", "--notify", "true") == (3, True, True)
    assert audit.read_events(tmp_path, FilesystemStore())[-1]["outcome"] == "timeout"


def test_a_refused_record_is_reported_once_when_the_wait_goes_on_to_block(
    tmp_path: Path,
) -> None:
    """The first look and the blocking wait are one wait: a record it ignores is said
    and audited once, not once per part."""
    decided, waited = submit(tmp_path), submit(tmp_path)
    assert cli("decide", str(tmp_path), decided, "approve").returncode == 0
    decisions = tmp_path / "decisions"
    shutil.copy(decisions / f"{decided}.json", decisions / f"{waited}.json")
    done = cli("wait", str(tmp_path), waited, "--timeout", "0.3")
    assert done.returncode == 3, done.stderr
    refusals = [line for line in done.stderr.splitlines() if f"names {decided!r}" in line]
    assert len(refusals) == 1, done.stderr
    events = [
        e for e in audit.read_events(tmp_path, FilesystemStore()) if e.get("handoff") == waited
    ]
    assert [e["event"] for e in events] == [
        "handoff_submitted",
        "decision_refused",
        "wait_returned",
    ]
    assert events[-1]["outcome"] == "timeout"


def test_wait_run_inside_a_callers_process_gives_ctrl_c_back(tmp_path: Path) -> None:
    """``main(['wait', ...])`` handles Ctrl-C only while it waits: afterwards the caller's
    handlers are back, and from a worker thread (where none can be set) it still works."""
    hid = submit(tmp_path)
    script = (
        "import contextlib, io, signal, threading\n"
        "from handoff_gate.cli import main\n"
        "def mine(signum, frame):\n"
        "    pass\n"
        "signal.signal(signal.SIGINT, mine)\n"
        f"args = ['wait', {str(tmp_path)!r}, {hid!r}, '--timeout', '0']\n"
        "codes = []\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "    codes.append(main(args))\n"
        "    worker = threading.Thread(target=lambda: codes.append(main(args)))\n"
        "    worker.start()\n"
        "    worker.join()\n"
        "print(codes, signal.getsignal(signal.SIGINT) is mine,\n"
        "      signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)\n"
    )
    out = python_stdout(script)
    assert out.split() == ["[3,", "3]", "True", "True"]
