"""Running the ``handoff-gate`` command for the CLI tests: in this process through
``main(argv)`` (:func:`cli`), or as a real child process (:func:`cli_process`, :data:`GATE`).

A child interpreter costs ~200 ms of imports for every step; ``main`` in-process ~10 ms.
So a test drives the CLI in-process unless what it asserts needs a process boundary: a
signal, a blocking ``wait`` beside the test, a hook run by ``sh``, what a fresh process
imports or how it exits. Those use :func:`cli_process` or :data:`GATE` by name.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from handoff_gate.cli import main
from handoff_gate.cli.main import command_named
from handoff_gate.schemas import example_path
from handoff_gate.schemas.planning import Plan

PLAN_BYTES = example_path("plan/v1").read_bytes()
BOUND = 60
GATE = [sys.executable, "-m", "handoff_gate.cli"]
#: Commands that own their process: the hook's watchdog writes its answer to the file
#: descriptors and ends the process at its deadline, which in-process would end pytest.
PROCESS_COMMANDS = frozenset({"hook"})
#: ``hook`` actions that only read and write settings files: no watchdog, no deadline, so
#: they run in-process like any other command (:func:`owns_process`).
SETUP_ACTIONS = frozenset({"install", "doctor"})
#: The names a contract module file is run under (``gates.contracts.registry``).
_USER_MODULES = "handoff_gate_user_schemas_"


def cli(
    *args: str,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``handoff-gate ARGS`` run by ``main`` in this process, with the result a child
    process would give: exit code, and stdout and stderr decoded as ``text=True`` does.
    ``env`` is then the whole environment and ``cwd`` the working folder, as for a child.
    A command that owns its process (:func:`owns_process`) runs as a child all the same."""
    if owns_process(args):
        return cli_process(*args, stdin=stdin, cwd=cwd, env=env)
    with _captured(stdin, env, cwd) as (out, err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = _exit_code(exc, err)
    return subprocess.CompletedProcess(
        [*GATE, *args], code, _as_text(out.getvalue()), _as_text(err.getvalue())
    )


def script_cli(
    script: Path,
    *args: str,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """:func:`cli` with ``sys.argv`` as the console script ``script`` gives its process:
    ``hook install`` writes the path in ``argv[0]`` into the hook it installs."""
    argv = sys.argv
    sys.argv = [str(script), *args]
    try:
        return cli(*args, stdin=stdin, env=env, cwd=cwd)
    finally:
        sys.argv = argv


def owns_process(args: Sequence[str]) -> bool:
    """Whether ``handoff-gate ARGS`` must run as a child process: a command of
    :data:`PROCESS_COMMANDS`, except its setup actions (``hook install``, ``hook doctor``),
    which end the way every command does, by returning from ``main``."""
    if command_named(args) not in PROCESS_COMMANDS:
        return False
    words = [word for word in args if not word.startswith("-")]
    if "--store" in args[: args.index(words[0])]:
        words = words[1:]  # the store's URL came first
    return len(words) < 2 or words[1] not in SETUP_ACTIONS


def cli_process(
    *args: str,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``handoff-gate ARGS`` in a child interpreter: for what needs a process boundary."""
    return subprocess.run(
        [*GATE, *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=BOUND,
        cwd=cwd,
        env=dict(env) if env is not None else None,
    )


@contextlib.contextmanager
def _captured(
    stdin: bytes | None, env: Mapping[str, str] | None, cwd: Path | None
) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """This process's streams swapped for buffers (text and ``.buffer`` both, as a pipe
    has), and its environment, folder and contract modules put back afterwards: ``main``
    sets variables for itself (pydantic's plugins) that must not leak into later tests."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = sys.stdin, sys.stdout, sys.stderr
    environ = dict(os.environ)
    folder = Path.cwd()
    modules = set(sys.modules)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    try:
        yield out, err
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
            stream.detach()  # the buffers stay readable
        sys.stdin, sys.stdout, sys.stderr = streams
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environ)
        for name in set(sys.modules) - modules:
            if name.startswith(_USER_MODULES):
                del sys.modules[name]


def _exit_code(exc: SystemExit, err: io.BytesIO) -> int:
    """What the interpreter makes of a ``SystemExit``: None is 0, a message is printed and 1."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    err.write(f"{exc.code}\n".encode())
    return 1


def _as_text(data: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` decodes a pipe: newlines made universal."""
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")


def python_stdout(script: str, *args: str) -> str:
    """What a fresh interpreter running ``script`` (with ``args`` as its argv) prints; it
    must exit 0 (its stderr is the failure message otherwise). For checks of what a
    process imports or sets."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=BOUND
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def submit(run: Path, payload: bytes = PLAN_BYTES, phase: str = "plan") -> str:
    done = cli("submit", str(run), "--phase", phase, "--schema", "plan/v1", "-", stdin=payload)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def lenient_plan_schema() -> dict[str, Any]:
    """plan/v1's JSON Schema without its ``additionalProperties: false``: a contract
    that says nothing of other keys, so one that arrives is dropped (a warning), where
    the built-in plan/v1, which closes the object, blocks it."""
    schema: dict[str, Any] = Plan.model_json_schema()
    del schema["additionalProperties"]
    return schema


def submit_lenient(run: Path, payload: bytes) -> str:
    """A plan handoff against :func:`lenient_plan_schema`, stored in the run."""
    contract = run.parent / f"{run.name}-lenient-plan.schema.json"
    contract.write_text(json.dumps(lenient_plan_schema()))
    done = cli(
        "submit", str(run), "--phase", "plan", "--schema", "lenient_plan/v1",
        "--json-schema", str(contract), "-", stdin=payload,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def start_wait(run: Path, handoff_id: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*GATE, "wait", str(run), handoff_id, "--timeout", str(BOUND), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
