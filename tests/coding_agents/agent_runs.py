"""Running the real Claude Code and Gemini CLI headless, offline, with the gate as their hook.

Each agent is the npm package pinned in ``tests/coding_agents/package-lock.json``
(``make tests/coding_agents/node_modules/.installed``), pointed at a fake model server
(``fake_models``), with a HOME of the test's own and a PATH that does not hold
``handoff-gate``: the agent's shell has not activated the gate's venv, so the hook must
reach the gate by the absolute path its settings name, which ``handoff-gate hook
install`` writes (:func:`install_hook`), as a user would set it up. Each runs in the permission
mode in which it would run the tool without asking (Claude Code's bypass mode, Gemini's
``--yolo``), so a hook that fails open shows as the tool running.

A test drives one run with :func:`drive`: the agent starts, the fake model asks for one
tool call, the hook submits it and waits, and the test's reviewer (a callable given the
:class:`Session`) acts on the waiting handoff from outside, through the CLI.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from cli_helpers import cli, script_cli
from fake_models import AnthropicFake, FakeModel, GeminiFake, ToolCall

PACKAGES = Path(__file__).resolve().parent / "node_modules"
INSTALL = "make tests/coding_agents/node_modules/.installed"
#: The gate's console script in the test's venv: what ``hook install`` is run as.
GATE = Path(sys.executable).parent / "handoff-gate"
_NODE = shutil.which("node")
#: The agents' PATH: node (Gemini CLI and the Inspector are node scripts) and the shell's
#: folders, not the venv (nor any other ``handoff-gate``: :func:`gate_path_free`).
AGENT_PATH = os.pathsep.join(
    dict.fromkeys([*([str(Path(_NODE).parent)] if _NODE else []), "/usr/bin", "/bin"])
)
#: Upper bound on one agent run, on a loaded machine; a run is seconds.
BOUND = 90.0


@dataclass
class Session:
    """One test's folders: the project the agent works in, its HOME, the run the hook
    submits to, and ``marker``, the file the model's command creates if it runs."""

    root: Path
    agent: Agent
    fake: FakeModel | None = None

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def run(self) -> Path:
        """``runs/AGENT`` in the project, as docs/integration.md installs it."""
        return self.project / "runs" / self.agent.name

    def marker(self, name: str = "marker") -> Path:
        return self.root / name

    def touch(self, name: str = "marker") -> str:
        """The shell command that creates the marker ``name``."""
        return f"touch {self.marker(name)}"


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    #: What the model received after its call (the tool's output or the denial).
    results: list[str]

    def told(self) -> str:
        assert len(self.results) == 1, f"the model was told {self.results!r}\n{self.stderr}"
        return self.results[0]


class Agent(ABC):
    """One coding agent: how to configure, start and talk to it."""

    name: ClassVar[str]
    binary: ClassVar[str]

    @abstractmethod
    def settings_file(self, session: Session) -> Path:
        """The project-level settings file the agent reads its hooks from."""

    @abstractmethod
    def prepare_home(self, session: Session) -> None:
        """Whatever the agent needs in its HOME to start headless and offline."""

    @abstractmethod
    def fake(self, call: ToolCall) -> FakeModel:
        """A fake model server speaking this agent's model API."""

    @abstractmethod
    def shell(self, command: str) -> ToolCall:
        """The model's call of the agent's shell tool."""

    @abstractmethod
    def argv(self, prompt: str) -> list[str]: ...

    @abstractmethod
    def model_env(self, fake: FakeModel) -> dict[str, str]: ...

    def executable(self) -> Path:
        path = PACKAGES / ".bin" / self.binary
        if not path.exists():
            raise AssertionError(f"{path} is missing: run `{INSTALL}` (the pinned agents)")
        return path


class ClaudeCode(Agent):
    name = "claude-code"
    binary = "claude"

    def settings_file(self, session: Session) -> Path:
        return session.project / ".claude" / "settings.json"

    def prepare_home(self, session: Session) -> None:
        session.home.mkdir(parents=True, exist_ok=True)

    def fake(self, call: ToolCall) -> FakeModel:
        return AnthropicFake(call)

    def shell(self, command: str) -> ToolCall:
        return ToolCall("Bash", {"command": command, "description": "Create the marker file"})

    def argv(self, prompt: str) -> list[str]:
        return [
            str(self.executable()), "-p", prompt, "--output-format", "json",
            "--permission-mode", "bypassPermissions",
        ]  # fmt: skip

    def model_env(self, fake: FakeModel) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
            # bypass mode as root needs it; the tests run as root in CI containers
            "IS_SANDBOX": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }


class GeminiCli(Agent):
    name = "gemini"
    binary = "gemini"

    def settings_file(self, session: Session) -> Path:
        return session.project / ".gemini" / "settings.json"

    def prepare_home(self, session: Session) -> None:
        folder = session.home / ".gemini"
        folder.mkdir(parents=True, exist_ok=True)
        auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        (folder / "settings.json").write_text(json.dumps(auth))
        trusted = {str(session.project): "TRUST_FOLDER"}
        (folder / "trustedFolders.json").write_text(json.dumps(trusted))

    def fake(self, call: ToolCall) -> FakeModel:
        return GeminiFake(call)

    def shell(self, command: str) -> ToolCall:
        return ToolCall(
            "run_shell_command", {"command": command, "description": "Create the marker file"}
        )

    def argv(self, prompt: str) -> list[str]:
        return [str(self.executable()), "-p", prompt, "--output-format", "json", "--yolo"]

    def model_env(self, fake: FakeModel) -> dict[str, str]:
        return {
            "GOOGLE_GEMINI_BASE_URL": fake.url,
            "GEMINI_API_KEY": "test-not-a-key",
            # it would start node a second time for a larger heap: a third of each run
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }


AGENTS: dict[str, Agent] = {agent.name: agent for agent in (ClaudeCode(), GeminiCli())}


def install_hook(session: Session, timeout: float, gate: Path = GATE) -> Path:
    """The agent's project settings with the gate as its hook, as docs/integration.md
    sets it up: ``GATE hook install AGENT runs/AGENT --timeout S`` run in the project,
    which writes the project's own settings file and ends with ``hook doctor``."""
    agent = session.agent
    run = str(session.run.relative_to(session.project))
    words = ["hook", "install", agent.name, run, "--timeout", f"{timeout:g}"]
    if gate == GATE:  # in-process: the hook it writes runs as a real process all the same
        done = script_cli(GATE, *words, cwd=session.project, env=user_env(session))
    else:
        done = subprocess.run(
            [str(gate), *words], cwd=session.project, env=user_env(session),
            capture_output=True, text=True, timeout=BOUND, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    settings = agent.settings_file(session)
    assert settings.is_file(), done.stdout
    return settings


def doctor(session: Session) -> subprocess.CompletedProcess[str]:
    """``handoff-gate hook doctor AGENT`` in the project, as docs/integration.md runs it
    (through ``main`` in this process: it reads files and starts the gate it checks)."""
    return script_cli(
        GATE, "hook", "doctor", session.agent.name, cwd=session.project, env=user_env(session)
    )


def user_env(session: Session) -> dict[str, str]:
    """The user's environment for ``hook install``/``doctor``: the agent's HOME, whose
    files (Gemini's trusted folders) tell whether the agent will read the settings."""
    return {**os.environ, "HOME": str(session.home)}


Reviewer = Callable[[Session, subprocess.Popen[bytes]], None]


def drive(session: Session, call: ToolCall, reviewer: Reviewer | None = None) -> Outcome:
    """One headless agent run in which the model makes ``call``; ``reviewer`` acts
    while it runs. The agent's whole process group is killed when the run ends."""
    agent = session.agent
    fake = agent.fake(call)
    session.fake = fake
    fake.start()
    out, err = session.root / "agent.out", session.root / "agent.err"
    env = {
        "PATH": AGENT_PATH, "HOME": str(session.home), "LANG": "C.UTF-8", "TERM": "dumb",
        "NO_COLOR": "1", **agent.model_env(fake),
    }  # fmt: skip
    try:
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(
                agent.argv("Run the command that creates the marker file."),
                cwd=session.project, env=env, stdin=subprocess.DEVNULL,
                stdout=stdout, stderr=stderr, start_new_session=True,
            )  # fmt: skip
            try:
                if reviewer is not None:
                    reviewer(session, process)
                process.wait(timeout=BOUND)
            finally:
                _kill_group(process)
    finally:
        fake.close()
    return Outcome(
        process.returncode, out.read_text(errors="replace"), err.read_text(errors="replace"),
        list(fake.results),
    )  # fmt: skip


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """The agent, its hooks and their shells: nothing the run started outlives it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=BOUND)


def waiting(session: Session, process: subprocess.Popen[bytes]) -> tuple[str, int]:
    """The handoff the hook waits on and the waiting gate's pid; fails if the agent
    ends first."""
    return registered(session.run, process, session.root / "agent.err")


def registered(
    run: Path, process: subprocess.Popen[bytes], err: Path, poll: float = 0.05
) -> tuple[str, int]:
    """The handoff a gate waits on in ``run`` and its pid, once the wait is registered
    (``waiters/ID.PID``, looked for every ``poll`` s); fails, with ``err``'s text, if
    ``process`` ends first."""
    folder = run / "waiters"
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        found = sorted(folder.glob("[0-9]*.*")) if folder.is_dir() else []
        if found:
            handoff_id, pid = found[0].name.rsplit(".", 1)
            return handoff_id, int(pid)
        if process.poll() is not None:
            text = err.read_text(errors="replace") if err.exists() else ""
            raise AssertionError(f"{process.args!r} ended before the gate waited:\n{text}")
        time.sleep(poll)
    raise AssertionError(f"nothing started waiting in {run}")


def gate(*args: str) -> subprocess.CompletedProcess[str]:
    """The gate's CLI as a reviewer runs it, through ``main`` in this process: the agent
    and its hook are the processes under test, the reviewer's side only reads and writes
    the run (its own child interpreter cost ~200 ms a step)."""
    return cli(*args)


def decide(*args: str) -> Reviewer:
    """A reviewer who runs ``handoff-gate decide RUN ID ARGS…`` once the hook waits."""

    def review(session: Session, process: subprocess.Popen[bytes]) -> None:
        handoff_id, _ = waiting(session, process)
        done = gate("decide", str(session.run), handoff_id, *args, "--reviewer", "alice")
        assert done.returncode == 0, done.stderr

    return review


def gate_path_free() -> None:
    """The agents' PATH must not find a gate: the hook has to name it by path."""
    found = shutil.which("handoff-gate", path=AGENT_PATH)
    assert found is None, f"{found} is on the agents' PATH; the tests need it absent"
