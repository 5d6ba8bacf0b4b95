"""Every ``sh`` and ``python`` block of README.md, docs/walkthrough.md,
docs/security.md and docs/integration.md runs as written.

The rule the pages follow (README.md states it where its blocks start):

- A block fenced ``sh`` or ``python`` runs verbatim. The blocks of one page run in
  order in one empty folder, as a reader following the page would: ``sh`` with
  ``sh -e`` (POSIX sh, not bash), ``python`` with the interpreter that has
  handoff-gate installed, and ``handoff-gate`` on the ``PATH``. Each must exit 0.
- A block that waits for a decision (it runs ``handoff-gate wait`` or ``hg.wait``)
  gets a reviewer: once the gate's own sign of a blocked wait appears (a waiter record
  in the run's ``waiters/``), the page's next runnable block runs, as the person in the
  other terminal would run it, and the waiting block must then end.
- A block fenced ``sh manual`` needs a person at a terminal (the TUI, the demo) or a
  checkout (make targets, the screenshot script), so it is not run; each of its lines
  is checked instead: ``handoff-gate ARGS`` must parse (``ARGS --help`` prints the
  command's usage, asked of ``main`` in-process), ``make TARGET`` must be a target
  (``make -n``), and ``.venv/bin/python SCRIPT`` must name a script of the repository
  that compiles.
- A block fenced ``python manual`` is a recipe that needs a model or a reader's own
  objects (an agent, a checkpointer), so it is not run; it must compile (top-level
  ``await`` allowed) and every name it imports must exist in the installed packages,
  so a renamed API fails here. ``contracts`` is the reader's own module
  (docs/integration.md, "Keep contracts apart from pipeline code").
- ``json`` and ``toml`` blocks must parse; ``text`` blocks are shown, not checked.
- Any other fence (none, or another info string) fails: no block escapes by omission.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from cli_helpers import cli

REPO = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/walkthrough.md", "docs/security.md", "docs/integration.md"]
#: ``sh`` is the machine's POSIX shell (dash on Debian), not bash: a reader's ``/bin/sh``
#: has no ``<<<``, arrays or ``pipefail``, so a block that needs them fails here first.
RUN = {"sh": ["sh", "-e", "-c"], "python": [sys.executable, "-c"]}
MANUAL = "sh manual"
RECIPE = "python manual"
#: Blocks that are data: each must parse.
DATA: dict[str, Callable[[str], object]] = {"json": json.loads, "toml": tomllib.loads, "text": str}
#: The reader's own modules a recipe imports.
READERS_OWN = {"contracts"}
#: A guard against a block that never ends, not a measure of anything.
BOUND = 120.0
WAITS = re.compile(r"handoff-gate wait |hg\.wait\(")
#: What each page's blocks, taken together, must have said: submit made the run, the
#: waiting block saw the reviewer's reject, and the signed approval counted.
EXPECTED = {
    "README.md": [
        "new run ",
        "not approved (exit 1): handoff-gate show runs/job-17 0001-plan says why",
        "0001-plan approved by alice",
        # replay put the reviewer's reject that a plan rule would approve first
        "would differ, most dangerous first:\n\nRUN ",
        "a person rejected it; a rule would approve it",
    ],
    "docs/walkthrough.md": [],
    # the API's first block approved and delivered the plan; the tool call was stored
    "docs/integration.md": ["0001-plan approved", "0001-tool-call"],
    # the quickstart's unsigned decide was refused, the wait delivered, and OpenSSH alone
    # verified alice's decision from the documented statement
    "docs/security.md": [
        "only signed decisions count",
        "delivered approved.json",
        'Good "handoff-gate" signature for alice',
    ],
}


class Block(NamedTuple):
    info: str
    text: str
    line: int


class Ran(NamedTuple):
    block: Block
    output: str


def blocks(page: str) -> list[Block]:
    """The fenced blocks of ``page``, with their info strings and first line numbers."""
    found: list[Block] = []
    lines = (REPO / page).read_text().splitlines()
    opened: tuple[str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.startswith("```"):
            if opened is not None:
                body.append(line)
            continue
        if opened is None:
            opened, body = (line[3:].strip(), number), []
        else:
            found.append(Block(opened[0], "\n".join(body) + "\n", opened[1]))
            opened = None
    assert opened is None, f"{page}:{opened[1]}: a block is never closed"
    return found


def environment(home: Path) -> dict[str, str]:
    """A reader's shell: handoff-gate on the PATH, none of the gate's own variables set
    (the pages assume the defaults), and a home of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANDOFF_GATE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(home)
    return env


def start(block: Block, folder: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*RUN[block.info], block.text],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finished(page: str, block: Block, proc: subprocess.Popen[str]) -> Ran:
    output, _ = proc.communicate(timeout=BOUND)
    assert proc.returncode == 0, f"{page}:{block.line} exited {proc.returncode}:\n{output}"
    return Ran(block, output)


def blocked_wait(folder: Path) -> bool:
    """Whether a wait in ``folder`` is blocked: it has registered itself as a waiter."""
    return any(not p.name.startswith(".") for p in folder.glob("**/waiters/*"))


def run_page(page: str, folder: Path, env: dict[str, str]) -> list[Ran]:
    """Run the page's runnable blocks in order, each waiting block with its reviewer."""
    todo = [b for b in blocks(page) if b.info in RUN]
    ran: list[Ran] = []
    while todo:
        block = todo.pop(0)
        proc = start(block, folder, env)
        deadline = time.monotonic() + BOUND
        while proc.poll() is None and WAITS.search(block.text):
            if blocked_wait(folder):
                assert todo, f"{page}:{block.line} waits, and no block follows to decide"
                reviewer = todo.pop(0)
                ran.append(finished(page, reviewer, start(reviewer, folder, env)))
                break
            assert time.monotonic() < deadline, f"{page}:{block.line} never blocked nor ended"
            time.sleep(0.05)
        ran.append(finished(page, block, proc))
    return ran


@pytest.mark.parametrize("page", PAGES)
def test_every_block_is_runnable_or_marked_manual(page: str) -> None:
    for block in blocks(page):
        assert block.info in RUN or block.info in (MANUAL, RECIPE, *DATA), (
            f"{page}:{block.line}: fence {block.info!r} is neither runnable "
            f"({', '.join(RUN)}) nor {MANUAL!r}, {RECIPE!r} or data ({', '.join(DATA)})"
        )


@pytest.mark.parametrize("page", PAGES)
def test_runnable_blocks_run_as_written_in_an_empty_folder(page: str, tmp_path: Path) -> None:
    folder, home = tmp_path / "reader", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    ran = run_page(page, folder, environment(home))
    said = "".join(r.output for r in ran)
    for fragment in EXPECTED[page]:
        assert fragment in said, f"{page}: expected {fragment!r} in:\n{said}"


def _check_manual_line(words: list[str], folder: Path, env: dict[str, str], where: str) -> None:
    if words[0] == "handoff-gate":
        # Whether ARGS parse is main's answer in any process: in this one, rather than a
        # child interpreter per line (the sh blocks run the console script itself).
        done = cli(*words[1:], "--help", cwd=folder, env=env)
        assert done.returncode == 0, f"{where}: {done.stderr}"
        assert done.stdout.startswith(f"usage: handoff-gate {words[1]}"), where
    elif words[0] == "make":
        done = subprocess.run(
            ["make", "-n", *words[1:]], cwd=REPO, capture_output=True, text=True, timeout=BOUND
        )
        assert done.returncode == 0, f"{where}: {done.stderr}"
    elif words[0] == ".venv/bin/python" and len(words) == 2:
        script = REPO / words[1]
        assert script.is_file(), f"{where}: no script {words[1]}"
        compile(script.read_text(), str(script), "exec")
    else:
        pytest.fail(f"{where}: a manual line must be handoff-gate, make or .venv/bin/python")


@pytest.mark.parametrize("page", PAGES)
def test_manual_blocks_name_commands_that_exist(page: str, tmp_path: Path) -> None:
    env = environment(tmp_path)
    for block in blocks(page):
        if block.info != MANUAL:
            continue
        lines = block.text.replace("\\\n", " ").splitlines()  # a continued line is one
        for offset, line in enumerate(lines, 1):
            words = shlex.split(line, comments=True)
            if words:
                where = f"{page}:{block.line + offset}"
                _check_manual_line(words, tmp_path, env, where)


@pytest.mark.parametrize("page", PAGES)
def test_data_blocks_parse(page: str) -> None:
    for block in blocks(page):
        if block.info in DATA:
            DATA[block.info](block.text)


@pytest.mark.parametrize("page", PAGES)
def test_recipes_compile_and_import_names_that_exist(page: str) -> None:
    for block in blocks(page):
        if block.info != RECIPE:
            continue
        where = f"{page}:{block.line}"
        flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        code = compile(block.text, where, "exec", flags)
        for node in ast.walk(code):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    _imports(alias.name, None)
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                for alias in node.names:
                    _imports(node.module, alias.name)


def _imports(module: str, name: str | None) -> None:
    """``module`` (and ``name`` in it, as an attribute or a submodule) can be imported."""
    if module.split(".")[0] in READERS_OWN:
        return
    found = importlib.import_module(module)
    if name is not None and not hasattr(found, name):
        importlib.import_module(f"{module}.{name}")  # raises when it is neither
