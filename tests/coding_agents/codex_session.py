"""The real Codex CLI, headless and offline, gated by ``handoff-gate hook codex``.

A :class:`Project` is a project folder and a ``CODEX_HOME`` in a test's temporary folder:
a ``config.toml`` whose model provider points at the fake Responses server
(``fake_responses``), with the approval and sandbox settings under which Codex runs
every command without asking (``approval_policy = "never"``, ``danger-full-access``). So
the hook is the only thing between the model and the shell: a hook that fails open shows
as the command running, which the tests check on disk. Codex's PATH is the system's:
the gate is reached by the absolute path ``hook install`` writes, or not at all.

The hook comes from ``handoff-gate hook install codex`` run in the project, as a user
runs it; it records the trust Codex requires of a hook through ``codex app-server``.
The tests ask Codex itself whether it trusts a hook (:func:`hooks`: ``hooks/list``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cli_helpers import cli, cli_process, script_cli

HERE = Path(__file__).resolve().parent
#: The pinned Codex CLI (tests/coding_agents/package.json): its npm launcher.
CODEX = HERE / "node_modules" / ".bin" / "codex"
#: The gate this checkout installs, by absolute path (never found on PATH).
GATE = Path(sys.executable).parent / "handoff-gate"
#: The PATH Codex gets: the system's, so neither the venv nor a user's bin is on it.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
BOUND = 60.0
#: The dummy key the provider entry names; the fake never checks it.
KEY_VAR = "HANDOFF_GATE_FAKE_OPENAI_KEY"


def codex_bin() -> Path:
    """The Codex launcher, or a failure saying how to install it (never a skip)."""
    if not CODEX.exists():
        stamp = HERE.relative_to(HERE.parents[1]) / "node_modules" / ".installed"
        raise AssertionError(f"Codex CLI is missing at {CODEX}: make {stamp}")
    return CODEX


@dataclass(frozen=True)
class Project:
    """A Codex home, the project it runs in, and the gate's run, under ``root``."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "codex-home"

    @property
    def config(self) -> Path:
        return self.home / "config.toml"

    @property
    def work(self) -> Path:
        return self.root / "project"

    @property
    def settings(self) -> Path:
        """The project's own Codex settings, where ``hook install`` writes by default."""
        return self.work / ".codex" / "config.toml"

    @property
    def run(self) -> Path:
        return self.root / "runs" / "codex"

    def env(self) -> dict[str, str]:
        """Codex's environment: its home, the dummy key, the system PATH only."""
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TZ", "TMPDIR")}
        path = f"{codex_bin().parent}:{SYSTEM_PATH}"
        return (
            keep
            | {"HOME": str(self.root), "CODEX_HOME": str(self.home), "PATH": path}
            | {KEY_VAR: "sk-fake"}
        )


def new_project(root: Path, base_url: str) -> Project:
    """A project whose Codex talks to ``base_url`` and runs commands without asking."""
    project = Project(root)
    project.home.mkdir(parents=True)
    project.work.mkdir()
    # The user trusts the project, as opening codex there once does: Codex reads a
    # project's .codex/config.toml (where hook install writes) only then.
    project.config.write_text(
        'model = "fake-model"\n'
        'model_provider = "fake"\n'
        'approval_policy = "never"\n'
        'sandbox_mode = "danger-full-access"\n'
        "\n"
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f"base_url = {json.dumps(base_url)}\n"
        'wire_api = "responses"\n'
        f'env_key = "{KEY_VAR}"\n'
        "stream_max_retries = 0\n"
        "request_max_retries = 0\n"
        "\n"
        f"[projects.{json.dumps(str(project.work))}]\n"
        'trust_level = "trusted"\n'
    )
    return project


class AppServer:
    """``codex app-server`` over stdio: JSON-RPC requests, one line each way."""

    def __init__(self, project: Project) -> None:
        self.proc = subprocess.Popen(
            [str(codex_bin()), "app-server"], env=project.env(), cwd=project.work, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.next_id = 0
        self.request("initialize", {"clientInfo": {"name": "handoff-gate-tests", "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        stdin: IO[str] | None = self.proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        for line in stdout:
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"codex app-server {method}: {message['error']}")
                return message["result"]
        raise AssertionError(f"codex app-server ended before answering {method}")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=BOUND)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def hooks(project: Project) -> list[dict[str, Any]]:
    """The hooks Codex sees for the project, with their trust (``hooks/list``)."""
    server = AppServer(project)
    try:
        listed = server.request("hooks/list", {"cwds": [str(project.work)]})
    finally:
        server.close()
    found: list[dict[str, Any]] = [h for entry in listed["data"] for h in entry["hooks"]]
    return found


def trust_as_the_user(project: Project) -> None:
    """Trust every hook Codex lists at its current hash, as a user does in Codex's
    ``/hooks`` screen: ``config/batchWrite`` of ``hooks.state."<key>".trusted_hash``
    into the user's ``config.toml`` (Codex's own protocol, not the gate's code)."""
    server = AppServer(project)
    try:
        listed = server.request("hooks/list", {"cwds": [str(project.work)]})
        edits = [
            {
                "keyPath": "hooks.state." + json.dumps(hook["key"]),
                "mergeStrategy": "upsert",
                "value": {"trusted_hash": hook["currentHash"]},
            }
            for entry in listed["data"]
            for hook in entry["hooks"]
        ]
        server.request("config/batchWrite", {"edits": edits, "filePath": str(project.config)})
    finally:
        server.close()


def hook_setup(
    project: Project, action: str, *args: str, gate: Path = GATE, codex_on_path: bool = True
) -> subprocess.CompletedProcess[str]:
    """``handoff-gate hook install|doctor codex …`` as the user runs it in the project
    (the project's own ``.codex/config.toml``), with Codex's ``codex`` on PATH or not."""
    env = project.env()
    if not codex_on_path:
        env["PATH"] = SYSTEM_PATH
    words = ["hook", action, "codex", *args]
    if gate == GATE:  # in-process; Codex and the hook it runs are real processes
        return script_cli(GATE, *words, cwd=project.work, env=env)
    return subprocess.run(
        [str(gate), *words], cwd=project.work, env=env,
        capture_output=True, text=True, timeout=BOUND, check=False,
    )  # fmt: skip


def install_hook(project: Project, *extra: str, gate: Path = GATE) -> None:
    """The gate as Codex's hook, installed and trusted by ``hook install`` (which ends
    with ``hook doctor``: exit 0). ``extra``: its options (``--timeout S``)."""
    done = hook_setup(project, "install", str(project.run), *extra, gate=gate)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ok: {project.settings}" in done.stdout


@dataclass
class Finished:
    """A Codex run that ended: its exit code and its ``--json`` events."""

    code: int
    events: list[dict[str, Any]]
    stderr: str

    def said(self) -> list[str]:
        """What the model said to the user (``agent_message`` items)."""
        items = [e["item"] for e in self.events if e.get("type") == "item.completed"]
        return [str(i.get("text")) for i in items if i.get("type") == "agent_message"]


def _waiters(run: Path) -> list[str]:
    """The run's registered waits, ``ID.PID`` each (a killed hook's stays behind)."""
    folder = run / "waiters"
    return sorted(w.name for w in folder.glob("[0-9]*.*")) if folder.is_dir() else []


class CodexRun:
    """``codex exec --json`` running in the project, in its own process group, and the
    hooks it starts: only waits registered after it started are its own."""

    def __init__(self, project: Project, prompt: str) -> None:
        self.project = project
        self.earlier = set(_waiters(project.run))
        self.proc = subprocess.Popen(
            [str(codex_bin()), "exec", "--json", "--skip-git-repo-check", prompt],
            cwd=project.work, env=project.env(), text=True, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip

    def new_waits(self) -> list[tuple[str, int]]:
        """(handoff id, waiting pid) of each hook of this run that waits now."""
        found = [w.rsplit(".", 1) for w in _waiters(self.project.run) if w not in self.earlier]
        return [(handoff_id, int(pid)) for handoff_id, pid in found]

    def waiting(self) -> tuple[str, int]:
        """The handoff a hook of this run waits on and its pid, once registered; a
        failure if Codex ends first."""
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            found = self.new_waits()
            if found:
                return found[0]
            if self.proc.poll() is not None:
                raise AssertionError(f"Codex ended (exit {self.proc.returncode}) before a wait")
            time.sleep(0.05)
        raise AssertionError(f"no hook started waiting in {self.project.run}")

    def finish(self) -> Finished:
        try:
            out, err = self.proc.communicate(timeout=BOUND)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        return Finished(self.proc.returncode, events, err)

    def kill(self) -> None:
        """Codex's whole group: a hook Codex gave up on may outlive it."""
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.returncode is None:
            self.proc.communicate()


@contextmanager
def running(project: Project, prompt: str) -> Iterator[CodexRun]:
    """Codex running; on the way out its group is killed, whatever is left of it."""
    codex = CodexRun(project, prompt)
    try:
        yield codex
    finally:
        codex.kill()


def finish_run(project: Project, prompt: str) -> Finished:
    """A whole Codex run in which nobody decides anything."""
    with running(project, prompt) as codex:
        return codex.finish()


def gate(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``handoff-gate`` command as a reviewer runs it, through ``main`` in this
    process: Codex and its hook are the processes under test; the reviewer's side only
    reads and writes the run."""
    return cli(*args)


def decide(run: Path, handoff_id: str, *args: str) -> None:
    """A reviewer's decision with ``handoff-gate decide``; it must be taken."""
    done = gate("decide", str(run), handoff_id, *args)
    assert done.returncode == 0, done.stderr


@contextmanager
def approving_everything(codex: CodexRun) -> Iterator[dict[str, int]]:
    """A reviewer in another process who approves every call a hook of ``codex`` waits
    on, at once, while it runs; yields each id tried and ``decide``'s exit code."""
    tried: dict[str, int] = {}
    stop = threading.Event()

    def review() -> None:
        while not stop.is_set() and codex.proc.poll() is None:
            for handoff_id, _ in codex.new_waits():
                if handoff_id not in tried:
                    run = str(codex.project.run)
                    # A process of its own: main() swaps this process's streams, which
                    # a thread beside the test must not do.
                    done = cli_process("decide", run, handoff_id, "approve", "--reviewer", "alice")
                    tried[handoff_id] = done.returncode
            stop.wait(0.05)

    reviewer = threading.Thread(target=review, daemon=True)
    reviewer.start()
    try:
        yield tried
    finally:
        stop.set()
        reviewer.join(BOUND)
