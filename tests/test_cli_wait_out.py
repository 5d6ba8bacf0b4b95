"""``wait --out`` against an agent that swaps paths while the wait blocks.

The agent has a shell in the same folders as the pipeline. Whatever it swaps for a
symlink after the wait started (the output folder while the wait blocks, the output file
right after the payload lands) must never redirect the write or the mode change to the
symlink's target.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from cli_helpers import BOUND, cli, start_wait, submit

from handoff_gate.cli.outfile import checked_target, write_payload
from handoff_gate.gates.store.waiters import live_waiters

#: The agent's racer: once OUT is replaced by the payload's rename, swap it for a
#: symlink to VICTIM, as fast as a loop of lstat calls can notice.
RACER = """
import os, sys
out, victim, link = sys.argv[1:4]
first = os.lstat(out).st_ino
print("ready", flush=True)
for _ in range(50_000_000):
    try:
        if os.lstat(out).st_ino != first:
            break
    except FileNotFoundError:
        pass
os.symlink(victim, link)
os.replace(link, out)
"""


def _blocked(run: Path, hid: str, waiter: subprocess.Popen[str]) -> None:
    """Return once the wait has registered itself as blocked on the handoff."""
    deadline = time.monotonic() + BOUND  # a guard against a hang, not a measure
    while not live_waiters(run, hid):
        assert waiter.poll() is None, waiter.communicate()
        assert time.monotonic() < deadline, "the wait never blocked"
        time.sleep(0.02)


def test_an_output_folder_swapped_for_a_symlink_while_waiting_is_not_written_through(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    hid = submit(run)
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    waiter = start_wait(run, hid, "--out", str(out / "config.json"))
    try:
        _blocked(run, hid, waiter)
        out.rename(tmp_path / "out.moved")
        out.symlink_to(victim)
        assert cli("decide", str(run), hid, "approve").returncode == 0
        _, err = waiter.communicate(timeout=BOUND)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert list(victim.iterdir()) == [], "the payload was written through the symlink"
    assert waiter.returncode == 2, err
    assert "moved or replaced while waiting" in err and "Traceback" not in err
    assert list((tmp_path / "out.moved").iterdir()) == []


def test_an_output_file_swapped_for_a_symlink_after_the_write_keeps_its_target_mode(
    tmp_path: Path,
) -> None:
    """The existing file's mode is kept; the agent swaps the file for a symlink to a
    world-writable victim right after the rename, hoping the mode lands on the victim."""
    for attempt in range(20):  # on the path-based write, about 1 in 3 tries lands
        folder = tmp_path / f"try{attempt}"
        folder.mkdir()
        out, victim = folder / "approved.json", folder / "victim"
        out.write_text("old\n")
        out.chmod(0o600)
        victim.write_text("victim\n")
        victim.chmod(0o666)
        racer = subprocess.Popen(
            [sys.executable, "-c", RACER, str(out), str(victim), str(folder / "link")],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert racer.stdout is not None and racer.stdout.readline() == "ready\n"
            with checked_target(str(out)) as target:
                write_payload(target, '{"approved": true}\n')
            racer.wait(timeout=BOUND)
        finally:
            if racer.poll() is None:
                racer.kill()
                racer.wait()
        assert stat.S_IMODE(victim.stat().st_mode) == 0o666, f"attempt {attempt}"
        assert victim.read_text() == "victim\n"
        assert os.path.islink(out)  # the racer did swap it, after the write
