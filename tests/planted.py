"""What an agent can put where a record of a run goes, so that it cannot be read as one.

Each planter takes the record's path. The symlink points out of the run, at a file
beside it in the test's own temp folder, never at a system path: a reader that
followed it would read that file, and the tests check that none does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from handoff_gate.gates.vocab.limits import MAX_DECISION_BYTES

Planter = Callable[[Path], None]


def fifo(path: Path) -> None:
    os.mkfifo(path)


def symlink(path: Path) -> None:
    run = next(p for p in path.parents if (p / "handoffs").is_dir())
    outside = run.parent / f"outside-{run.name}.json"
    outside.write_text("{}\n")
    path.symlink_to(outside)


def directory(path: Path) -> None:
    (path / "inner").mkdir(parents=True)


def oversize(path: Path) -> None:
    path.write_bytes(b"{" + b" " * MAX_DECISION_BYTES + b"}")


#: The planters every record kind is tried with, by name.
UNREADABLE: dict[str, Planter] = {
    "fifo": fifo,
    "symlink": symlink,
    "directory": directory,
    "oversize": oversize,
}
