"""Acting as another OS account, the way an agent with a shell of its own would.

The suite runs as root; ``setpriv`` drops to a numeric uid and gid that need no entry in
``/etc/passwd``, so nothing on the machine is changed. Such an account cannot enter
pytest's own temp folders (mode 0700), so ``shared_folder`` makes one it may traverse;
nor, when the checkout sits in a private folder (a home folder of mode 0700), the
checkout's own interpreter and packages, so ``account_python`` gives it a copy it can
read, made of hard links (a copy where the temp folder is on another device).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_helpers import BOUND, PLAN_BYTES

import handoff_gate

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


@functools.cache
def account_python() -> str:
    """An interpreter with this checkout's package and its dependencies that the other
    accounts can run: the checkout's own when they can read it, else a readable copy
    made once per process and removed when it exits."""
    needs_root()
    probe = subprocess.run(
        [*as_account(PIPELINE_UID, PIPELINE_UID), sys.executable, "-c", "import handoff_gate.cli"],
        capture_output=True, timeout=BOUND, cwd="/",
    )  # fmt: skip
    if probe.returncode == 0:
        return sys.executable
    return _readable_copy()


def _readable_copy() -> str:
    root = Path(tempfile.mkdtemp(prefix="hg-accounts-python-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    root.chmod(0o755)
    made = root / "venv"
    venv.create(made, with_pip=False, symlinks=True)
    site = Path(sysconfig.get_paths(vars={"base": str(made), "platbase": str(made)})["purelib"])
    shutil.rmtree(site)
    editable = shutil.ignore_patterns("__editable__*")
    shutil.copytree(sysconfig.get_paths()["purelib"], site, ignore=editable, copy_function=_link)
    source = root / "src" / "handoff_gate"
    shutil.copytree(Path(handoff_gate.__file__).parent, source, copy_function=_link)
    (site / "hg-accounts-source.pth").write_text(f"{source.parent}\n")
    for folder in (root, *root.rglob("*")):
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o755)
    return str(made / "bin" / "python")


def _link(source: str, target: str) -> None:
    """A hard link keeps the file's own (readable) mode without copying its bytes."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def gate_command() -> list[str]:
    """``handoff-gate`` as the other accounts run it."""
    return [account_python(), "-m", "handoff_gate.cli"]


def gate_as(
    uid: int, gid: int, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``handoff-gate ARGS`` run as ``uid:gid``, from a folder every account may enter."""
    return subprocess.run(
        [*as_account(uid, gid), *gate_command(), *args],
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
