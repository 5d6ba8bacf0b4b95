"""The CLI's true end-to-end check: each command family once as a real process.

The other CLI tests run ``main(argv)`` in-process (``cli_helpers.cli``), which is ~20x
cheaper than a child interpreter. This test is what keeps that honest: one pipeline's
steps, every command family among them, run by the console entry point in child
processes in one folder and by ``main`` in-process in another, must give the same exit
codes and the same output (paths, clock readings and the digests of
files that hold them aside).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from cli_helpers import PLAN_BYTES, cli, cli_process

#: One pipeline's steps in a fresh folder: (argv, stdin).
STEPS: list[tuple[tuple[str, ...], bytes | None]] = [
    (("submit", "run", "--phase", "plan", "--schema", "plan/v1", "-"), PLAN_BYTES),
    (("check", "run/handoffs/0001-plan.json"), None),
    (("check", "-", "--schema", "plan/v1", "--json"), b'{"summary": 1}'),
    (("list", "run"), None),
    (("show", "run", "0001-plan"), None),
    (("wait", "run", "0001-plan", "--timeout", "0"), None),
    (("decide", "run", "0001-plan", "approve", "--reviewer", "ana"), None),
    (("wait", "run", "0001-plan", "--timeout", "0"), None),
    (("submit", "run", "--phase", "plan", "--schema", "plan/v1", "-"), PLAN_BYTES),
    (("withdraw", "run", "0002-plan", "--reason", "superseded"), None),
    (("list", "run", "--json"), None),
    (("audit", "run", "--verify"), None),
    (("contracts", "list", "run"), None),
    (("schemas",), None),
    (("schemas", "--json-schema", "plan/v1"), None),
    (("decide", "run", "0009-plan", "approve"), None),
    (("chek", "run"), None),
    (("--version",), None),
]

#: A clock reading as the records and reports print it.
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
#: A digest: a handoff file's holds its clock reading and folder.
_DIGEST = re.compile(r"\b[0-9a-f]{64}\b")
#: A duration or age as ``list`` and ``show`` print it (``3s``, ``12 ms``).
_AGE = re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s|m|h|d)\b")


def _same(done: subprocess.CompletedProcess[str], folder: Path) -> tuple[int, str, str]:
    def plain(text: str) -> str:
        text = _TIME.sub("TIME", text.replace(str(folder), "FOLDER"))
        return _AGE.sub("AGE", _DIGEST.sub("DIGEST", text))

    return done.returncode, plain(done.stdout), plain(done.stderr)


def test_every_command_family_gives_the_same_result_in_a_process_and_in_process(
    tmp_path: Path,
) -> None:
    processes, in_process = tmp_path / "processes", tmp_path / "in-process"
    processes.mkdir()
    in_process.mkdir()
    for args, stdin in STEPS:
        real = _same(cli_process(*args, stdin=stdin, cwd=processes), processes)
        here = _same(cli(*args, stdin=stdin, cwd=in_process), in_process)
        assert here == real, args
    codes = [_same(cli(*args, stdin=stdin, cwd=in_process), in_process)[0] for args, stdin in STEPS]
    assert 0 in codes and 1 in codes and 2 in codes  # success, refusal and usage all met
