"""The real Codex CLI, headless and offline, gated by ``handoff-gate hook codex``.

Each test gets its own project folder and ``CODEX_HOME`` under ``tmp_path``: a
``config.toml`` whose model provider points at the shared fake Responses server
(``fake_responses``), with the approval and sandbox settings under which Codex runs
every command without asking (``approval_policy = "never"``, ``danger-full-access``). So
the hook is the only thing between the model and the shell: a hook that fails open shows
as the command running, which the tests check on disk.

Codex runs a configured command hook only once it is trusted: ``hooks/list`` on
``codex app-server`` gives each hook's ``key`` and ``currentHash``, and a
``config/batchWrite`` upserting ``hooks.state."<key>".trusted_hash = currentHash`` into
``config.toml`` is what its ``/hooks`` screen records (:func:`trust_hooks`).
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
    """One test's Codex: its home, the project it runs in, the gate's run, a marker."""

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
    def run(self) -> Path:
        return self.root / "runs" / "codex"

    def marker(self, name: str = "marker") -> Path:
        """A file the model's command writes: on disk only if the command ran."""
        return self.root / name

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


def trust_hooks(project: Project) -> None:
    """Record every listed hook's current hash as trusted, as Codex's ``/hooks`` does."""
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


def install_hook(
    project: Project,
    *extra: str,
    gate: Path = GATE,
    codex_timeout: int = 600,
    trust: bool = True,
) -> None:
    """The gate as Codex's PreToolUse hook for every tool, by absolute path, failing
    closed (``|| exit 2``), and trusted. ``extra``: the hook's own options."""
    command = " ".join([f"'{gate}'", "hook", "codex", f"'{project.run}'", *extra, "|| exit 2"])
    with project.config.open("a") as config:
        config.write(
            "\n[[hooks.PreToolUse]]\n"
            'matcher = ".*"\n'
            "\n[[hooks.PreToolUse.hooks]]\n"
            'type = "command"\n'
            f"command = {json.dumps(command)}\n"
            f"timeout = {codex_timeout}\n"
        )
    if trust:
        trust_hooks(project)


@dataclass
class Finished:
    """A Codex run that ended: its exit code and its ``--json`` events."""

    code: int
    events: list[dict[str, Any]]
    stderr: str

    def commands(self) -> list[dict[str, Any]]:
        """The command executions Codex reports as completed."""
        return [
            e["item"]
            for e in self.events
            if e.get("type") == "item.completed" and e["item"].get("type") == "command_execution"
        ]


def start(project: Project, prompt: str = "Do what the task needs.") -> subprocess.Popen[str]:
    """``codex exec --json`` in the project, in its own process group."""
    return subprocess.Popen(
        [str(codex_bin()), "exec", "--json", "--skip-git-repo-check", prompt],
        cwd=project.work, env=project.env(), text=True, start_new_session=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def finish(codex: subprocess.Popen[str]) -> Finished:
    try:
        out, err = codex.communicate(timeout=BOUND)
    except subprocess.TimeoutExpired:
        os.killpg(codex.pid, signal.SIGKILL)
        codex.communicate()
        raise
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return Finished(codex.returncode, events, err)


@contextmanager
def running(
    project: Project, prompt: str = "Do what the task needs."
) -> Iterator[subprocess.Popen[str]]:
    """Codex running; on the way out it is finished, or its whole group killed."""
    codex = start(project, prompt)
    try:
        yield codex
    finally:
        # The group too: a hook Codex gave up on may outlive it.
        with suppress(ProcessLookupError):
            os.killpg(codex.pid, signal.SIGKILL)
        if codex.returncode is None:
            codex.communicate()


def waiting(run: Path, codex: subprocess.Popen[str]) -> tuple[str, int]:
    """The handoff a hook is waiting on and the waiting process's pid, once registered
    (``waiters/ID.PID``); a failure if Codex ends first."""
    deadline = time.monotonic() + BOUND
    folder = run / "waiters"
    while time.monotonic() < deadline:
        found = sorted(folder.glob("[0-9]*.*")) if folder.is_dir() else []
        if found:
            handoff_id, pid = found[0].name.rsplit(".", 1)
            return handoff_id, int(pid)
        if codex.poll() is not None:
            raise AssertionError(f"Codex ended (exit {codex.returncode}) before a hook waited")
        time.sleep(0.05)
    raise AssertionError(f"no hook started waiting in {run}")


def gate(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``handoff-gate`` command in another process, as a reviewer runs it."""
    return subprocess.run(
        [str(GATE), *args], capture_output=True, text=True, timeout=BOUND, check=False
    )


def finish_run(project: Project, prompt: str = "Do what the task needs.") -> Finished:
    """A whole Codex run in which nobody decides anything."""
    with running(project, prompt) as codex:
        return finish(codex)


@contextmanager
def approving_everything(run: Path, codex: subprocess.Popen[str]) -> Iterator[list[str]]:
    """A reviewer in another process who approves every call a hook waits on, at once,
    while Codex runs; yields the ids approved so far."""
    approved: list[str] = []
    stop = threading.Event()

    def review() -> None:
        while not stop.is_set() and codex.poll() is None:
            folder = run / "waiters"
            for waiter in sorted(folder.glob("[0-9]*.*")) if folder.is_dir() else []:
                handoff_id = waiter.name.rsplit(".", 1)[0]
                if handoff_id not in approved:
                    gate("decide", str(run), handoff_id, "approve", "--reviewer", "alice")
                    approved.append(handoff_id)
            stop.wait(0.05)

    reviewer = threading.Thread(target=review, daemon=True)
    reviewer.start()
    try:
        yield approved
    finally:
        stop.set()
        reviewer.join(BOUND)
