"""Acting as another OS account, the way an agent with a shell of its own would.

The suite runs as root; ``setpriv`` drops to a numeric uid and gid that need no entry in
``/etc/passwd``, so nothing on the machine is changed. Such an account cannot enter
pytest's own temp folders (mode 0700), so ``shared_folder`` makes one it may traverse.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_helpers import BOUND, GATE, PLAN_BYTES

#: The agent's account, and the reviewers' group and account (unused ids, no names).
PIPELINE_UID = 64997
REVIEWERS_GID = 64999
REVIEWER_UID = 64998


def as_account(uid: int, gid: int) -> list[str]:
    """The command prefix that runs the rest as ``uid:gid`` with no other groups."""
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]


def needs_root() -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("acting as another account needs root and setpriv")


@contextmanager
def shared_folder() -> Iterator[Path]:
    """A new temp folder every account may traverse, removed afterwards."""
    needs_root()
    folder = Path(tempfile.mkdtemp(prefix="hg-accounts-"))
    try:
        folder.chmod(0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def gate_as(
    uid: int, gid: int, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``handoff-gate ARGS`` run as ``uid:gid``, from a folder every account may enter."""
    return subprocess.run(
        [*as_account(uid, gid), *GATE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=BOUND,
        cwd="/",
        env=env,
    )


def as_pipeline(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return gate_as(PIPELINE_UID, PIPELINE_UID, *args, stdin=stdin)


def submit_as_pipeline(run: Path) -> str:
    """Submit the example plan to ``run`` as the pipeline's account; its handoff id."""
    made = as_pipeline(
        "submit", str(run), "--phase", "plan", "--schema", "plan/v1", "-",
        stdin=PLAN_BYTES.decode(),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()
