"""An ``audit.jsonl`` planted by the pipeline's account: a FIFO, a huge sparse file, a
torn last line that grows, a lock someone keeps. Each must fail at once with one line,
stay in bounded memory, or cost an append a bounded read, never hang or crawl."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import GATE, cli, submit

from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.store.filesystem import AUDIT_FILE, FilesystemStore
from handoff_gate.gates.store.lock_bound import LOCK_TIMEOUT_ENV
from handoff_gate.gates.vocab.limits import MAX_LOG_LINE

#: Long enough for a slow machine; a command that hangs fails the test at this bound.
BOUND = 30
POLICY = 'allowed_signers = "allowed_signers"\n\n[[rule]]\nphase = "plan"\napprovers = ["alice"]\n'


def _gate(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli(*args, env={**os.environ, **(env or {})})


def _one_line(err: str) -> str:
    """The one line a failure prints (after ``wait``'s warning that no policy is in force)."""
    lines = [line for line in err.splitlines() if not line.startswith("handoff-gate: no --policy")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path]:
    """A key for alice and a policy that makes her the plan's approver."""
    trust = tmp_path / "trust"
    trust.mkdir()
    key = trust / "alice"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (trust / "allowed_signers").write_text(f"alice {public}\n")
    (trust / "policy.toml").write_text(POLICY)
    return key, trust / "policy.toml"


def _fifo_log(run: Path) -> None:
    log = run / AUDIT_FILE
    log.unlink()
    os.mkfifo(log)


def test_a_fifo_log_fails_signed_decide_audit_and_verify_at_once(
    tmp_path: Path, signed: tuple[Path, Path]
) -> None:
    key, policy = signed
    run = tmp_path / "run"
    hid = submit(run)
    _fifo_log(run)
    decided = _gate("decide", str(run), hid, "approve", "--key", str(key), "--policy", str(policy))
    assert decided.returncode == 2
    assert "is a FIFO" in _one_line(decided.stderr)
    assert not (run / "decisions" / hid).exists()
    for extra in ((), ("--json",), ("--verify",)):
        done = _gate("audit", str(run), *extra)
        assert done.returncode == 2, (extra, done.stdout)
        assert "is a FIFO" in _one_line(done.stderr)


def test_a_fifo_log_fails_a_wait_instead_of_delivering(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    assert _gate("decide", str(run), hid, "approve").returncode == 0
    _fifo_log(run)
    waited = _gate("wait", str(run), hid, "--timeout", "5")
    assert waited.returncode == 2
    assert waited.stdout == ""
    assert "is a FIFO" in _one_line(waited.stderr)


@pytest.mark.parametrize("kind", ["symlink", "directory"])
def test_a_log_that_is_no_file_is_one_line(tmp_path: Path, kind: str) -> None:
    run = tmp_path / "run"
    submit(run)
    log = run / AUDIT_FILE
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_bytes(log.read_bytes())
    log.unlink()
    log.symlink_to(elsewhere) if kind == "symlink" else log.mkdir()
    done = _gate("audit", str(run), "--verify")
    assert done.returncode == 2
    assert ("symbolic link" if kind == "symlink" else "a directory") in _one_line(done.stderr)


#: Runs the command given as its arguments, its output into the file named first, and
#: prints the command's exit code and peak RSS (KiB). A small launcher, because a peak
#: RSS survives fork and exec: a child of the test process itself starts with the test
#: process's pages (hundreds of MB late in a full suite) as its high-water mark.
_MEASURE = """
import os, subprocess, sys
with open(sys.argv[1], "wb") as sink:
    child = subprocess.Popen(sys.argv[2:], stdout=sink, stderr=subprocess.STDOUT)
_, status, usage = os.wait4(child.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def _verify_rusage(run: Path) -> tuple[int, str, int]:
    """``audit RUN --verify`` in a grandchild: its exit code, output and peak RSS in KiB
    (``_MEASURE``)."""
    out = run.parent / "verify.out"
    try:
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, str(out), *GATE, "audit", str(run), "--verify"],
            capture_output=True,
            text=True,
            timeout=BOUND * 4,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("audit --verify of a sparse log did not finish")
    code, peak = (int(word) for word in done.stdout.split())
    return code, out.read_text(), peak


def test_verify_of_a_300_mb_sparse_log_streams_in_bounded_memory(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    log = run / AUDIT_FILE
    first = log.stat().st_size
    os.truncate(log, 300 * 1024 * 1024)
    code, out, peak_kib = _verify_rusage(run)
    assert code == 1, out
    size = 300 * 1024 * 1024 - first
    assert f"line 2: {size} bytes, over the {MAX_LOG_LINE}-byte line cap" in out.splitlines()
    assert f"handoff {hid}" not in out  # the valid first line still counts
    assert peak_kib < 250 * 1024, f"peak RSS {peak_kib} KiB"


def _bytes_read() -> int:
    """This process's ``rchar``: every byte its read calls returned, pread included."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def test_a_long_torn_last_line_is_not_read_back_by_appends(tmp_path: Path) -> None:
    store = FilesystemStore()
    store.append_event(str(tmp_path), {"event": "handoff_submitted", "handoff": "0001-a"})
    with (tmp_path / AUDIT_FILE).open("ab") as log:
        log.write(b"x" * (16 * MAX_LOG_LINE))
    before = _bytes_read()
    store.append_event(str(tmp_path), {"event": "handoff_submitted", "handoff": "0002-a"})
    read = _bytes_read() - before
    assert read <= MAX_LOG_LINE + 8 * 1024, f"the append read {read} bytes"
    problems = audit.verify_chain(str(tmp_path), store)
    assert problems == [
        f"line 2: {16 * MAX_LOG_LINE} bytes, over the {MAX_LOG_LINE}-byte line cap",
        "line 3: prev does not match the line before it",
    ]
    assert [e["handoff"] for e in audit.read_events(str(tmp_path), store)] == ["0001-a", "0002-a"]
    before = _bytes_read()
    store.append_event(str(tmp_path), {"event": "handoff_submitted", "handoff": "0003-a"})
    assert _bytes_read() - before <= 8 * 1024
    assert audit.verify_chain(str(tmp_path), store) == problems


@pytest.fixture
def held_log(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A run with a handoff approved, whose log another process keeps locked."""
    run = tmp_path / "run"
    hid = submit(run)
    assert _gate("decide", str(run), hid, "approve").returncode == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys\n"
            "fd = os.open(sys.argv[1], os.O_RDWR)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
            str(run / AUDIT_FILE),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield run, hid
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(BOUND)


def test_a_held_log_lock_ends_a_wait_with_exit_2(held_log: tuple[Path, str]) -> None:
    run, hid = held_log
    waited = _gate("wait", str(run), hid, "--timeout", "5", env={LOCK_TIMEOUT_ENV: "0.2"})
    assert waited.returncode == 2
    assert waited.stdout == ""
    err = _one_line(waited.stderr)
    assert "audit.jsonl is locked by another process (held by pid" in err
    assert f"{LOCK_TIMEOUT_ENV} sets how long to wait" in err


def test_a_held_log_lock_still_records_a_decision_and_says_it_is_unlogged(
    tmp_path: Path, held_log: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decision file is published before the log is locked, so a lock kept by the
    pipeline's account cannot stop a veto from counting; decide says what was not logged."""
    run, _ = held_log
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "0.2")  # the submit, too, gives up on the log soon
    hid = submit(run)
    done = _gate("decide", str(run), hid, "reject", "--reason", "no", env={LOCK_TIMEOUT_ENV: "0.2"})
    assert done.returncode == 0
    assert done.stdout.startswith(f"{hid} rejected by ")
    assert "stands but was not logged" in _one_line(done.stderr)
    assert "is locked by another process" in done.stderr
    assert (run / "decisions" / f"{hid}.json").is_file()


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan", "inf", "1e9"])
def test_a_bad_lock_bound_refuses_before_writing(tmp_path: Path, value: str) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    done = _gate("decide", str(run), hid, "approve", env={LOCK_TIMEOUT_ENV: value})
    assert done.returncode == 2
    assert f"{LOCK_TIMEOUT_ENV} must be a number of seconds" in _one_line(done.stderr)
    assert not (run / "decisions" / f"{hid}.json").exists()


def test_a_line_whose_event_is_not_a_string_is_reported_not_raised(tmp_path: Path) -> None:
    run = tmp_path / "run"
    submit(run)
    with (run / AUDIT_FILE).open("a") as log:
        log.write('{"event": ["decision_written"], "prev": "0"}\n')
    done = _gate("audit", str(run), "--verify")
    assert done.returncode == 1, done.stderr
    assert "line 2: unknown event ['decision_written']" in done.stdout
