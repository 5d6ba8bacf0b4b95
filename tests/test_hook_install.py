"""``handoff-gate hook install`` and ``hook doctor`` (issue 40): the settings each agent
reads, written so that any failure of the gate process blocks the tool, and checked.

``install`` and ``doctor`` run through ``main`` in a project folder of its own (a copy
of the executable, where a test deletes it, as a real process); the hook commands they
write are run by ``/bin/sh`` as the agents run them, and the gate is killed or deleted
under them. The Codex trust cases need the Codex CLI (see
``codex_bin``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import python_stdout, script_cli

from handoff_gate.integrations.agent_settings import AGENTS, gated_tools
from handoff_gate.integrations.harness_names import HARNESS_NAMES
from handoff_gate.integrations.hook_command import WRAPPER, read_command

REPO = Path(__file__).resolve().parent.parent
GATE = Path(sys.executable).absolute().parent / "handoff-gate"
EVENTS = Path(__file__).parent / "hook_events"
BOUND = 60.0
SETTINGS = {agent: spec.default_file for agent, spec in AGENTS.items()}
EVENT_FILE = {
    "claude-code": "claude_code_pre_tool_use.json",
    "codex": "codex_pre_tool_use.json",
    "gemini": "gemini_before_tool.json",
}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own, whose Gemini CLI trusts every folder under ``tmp_path``
    (it ignores an untrusted project's settings) and whose Claude Code has no settings."""
    folder = tmp_path / "home"
    (folder / ".gemini").mkdir(parents=True)
    trusted = {str(tmp_path.resolve()): "TRUST_FOLDER"}
    (folder / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    return folder


def gate(cwd: Path, *args: str, exe: Path = GATE, env: dict[str, str] | None = None) -> Any:
    """``handoff-gate ARGS`` as a user runs it in the project ``cwd``: through ``main`` in
    this process, with ``argv[0]`` the executable as its console script has it (``install``
    writes that path into the hook), or as the real executable ``exe`` when it is another
    copy. The hooks install writes are run as real processes below."""
    environment = env if env is not None else no_codex_env()
    if exe != GATE:
        return subprocess.run(
            [str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=BOUND,
            env=environment,
        )  # fmt: skip
    return script_cli(exe, *args, cwd=cwd, env=environment)


def no_codex_env() -> dict[str, str]:
    """The environment without any ``codex`` on ``PATH`` (the Codex cases add one)."""
    paths = [p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "codex").exists()]
    return {**os.environ, "PATH": os.pathsep.join(paths)}


def settings(project: Path, agent: str) -> Any:
    text = (project / SETTINGS[agent]).read_text()
    if AGENTS[agent].toml:
        return tomllib.loads(text)
    return json.loads(text)


def only_handler(project: Path, agent: str) -> tuple[dict[str, Any], dict[str, Any]]:
    (group,) = settings(project, agent)["hooks"][AGENTS[agent].event]
    (handler,) = group["hooks"]
    return group, handler


def put(project: Path, agent: str, data: Any) -> None:
    path = project / SETTINGS[agent]
    path.parent.mkdir(parents=True, exist_ok=True)
    assert not AGENTS[agent].toml
    path.write_text(json.dumps(data, indent=2) + "\n")


@pytest.mark.parametrize("agent", ["claude-code", "gemini", "codex"])
def test_install_into_an_empty_project_writes_a_hook_that_fails_closed(
    tmp_path: Path, agent: str
) -> None:
    done = gate(tmp_path, "hook", "install", agent, "runs/agent")
    group, handler = only_handler(tmp_path, agent)
    call = read_command(handler["command"])
    assert call is not None and call.wrapped and call.agent == agent
    assert shlex.split(handler["command"])[:3] == ["/bin/sh", "-c", WRAPPER]
    assert call.gate == str(GATE.resolve())
    assert call.run == str(tmp_path.resolve() / "runs" / "agent")
    deadline = float(call.option("--timeout") or "nan")
    agent_seconds = handler["timeout"] * AGENTS[agent].unit
    assert agent_seconds >= deadline + 10, (deadline, agent_seconds)
    assert (deadline, agent_seconds) == ((50.0, 60.0) if agent == "gemini" else (540.0, 600.0))
    for tool in [*gated_tools(agent), "mcp__files__write"]:
        assert re.search(group["matcher"], tool), tool
    if agent == "codex":  # no codex on PATH: the trust cannot be recorded, and that is said
        assert done.returncode == 1, done.stdout
        assert "codex is not on PATH" in done.stdout and "/hooks" in done.stdout
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines()[-1].startswith("ok: ")


def test_the_matcher_leaves_reads_to_the_agent_and_gates_the_rest() -> None:
    assert {"Read", "Glob", "Grep"}.isdisjoint(gated_tools("claude-code"))
    assert {"Bash", "Write", "Edit", "WebFetch"} <= set(gated_tools("claude-code"))
    assert {"run_shell_command", "write_file", "replace"} <= set(gated_tools("gemini"))
    assert "read_file" not in gated_tools("gemini")


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_install_keeps_other_hooks_and_settings_and_twice_changes_nothing(
    tmp_path: Path, agent: str
) -> None:
    event = AGENTS[agent].event
    other = {"type": "command", "command": "echo audit >> /tmp/never-run", "timeout": 5}
    put(tmp_path, agent, {
        "model": "keep-me",
        "permissions": {"allow": ["Read"]},
        "hooks": {
            event: [{"matcher": "Read", "hooks": [other]}],
            "SessionStart": [{"hooks": [other]}],
        },
    })  # fmt: skip
    assert gate(tmp_path, "hook", "install", agent, "runs/x").returncode == 0
    path = tmp_path / SETTINGS[agent]
    first, stamp = path.read_bytes(), path.stat().st_mtime_ns
    data = json.loads(first)
    assert data["model"] == "keep-me" and data["permissions"] == {"allow": ["Read"]}
    assert data["hooks"]["SessionStart"] == [{"hooks": [other]}]
    groups = data["hooks"][event]
    assert groups[0] == {"matcher": "Read", "hooks": [other]}
    assert len(groups) == 2 and read_command(groups[1]["hooks"][0]["command"]) is not None
    again = gate(tmp_path, "hook", "install", agent, "runs/x")
    assert again.returncode == 0 and again.stdout.startswith("unchanged:")
    assert path.read_bytes() == first and path.stat().st_mtime_ns == stamp


def test_install_keeps_an_existing_files_mode_and_makes_new_ones_as_open_would(
    tmp_path: Path,
) -> None:
    put(tmp_path, "gemini", {"hooks": {}})
    (tmp_path / SETTINGS["gemini"]).chmod(0o640)
    gate(tmp_path, "hook", "install", "gemini", "runs/x")
    assert (tmp_path / SETTINGS["gemini"]).stat().st_mode & 0o777 == 0o640
    made = subprocess.run(
        ["sh", "-c", f"umask 022 && exec {shlex.quote(str(GATE))} hook install claude-code r"],
        cwd=tmp_path, capture_output=True, text=True, timeout=BOUND, env=no_codex_env(),
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    assert (tmp_path / SETTINGS["claude-code"]).stat().st_mode & 0o777 == 0o644


def test_install_replaces_the_old_bare_snippet_in_place(tmp_path: Path) -> None:
    old = {"type": "command", "command": "handoff-gate hook claude-code runs/cc", "timeout": 600}
    keep = {"type": "command", "command": "true"}
    put(tmp_path, "claude-code", {"hooks": {"PreToolUse": [
        {"matcher": "Bash|Write", "hooks": [old]},
        {"matcher": "Edit", "hooks": [keep, old]},
    ]}})  # fmt: skip
    before = gate(tmp_path, "hook", "doctor", "claude-code")
    assert before.returncode == 1
    assert "named bare" in before.stdout and "no fail-closed wrapper" in before.stdout
    assert "misses shipped tools" in before.stdout
    assert gate(tmp_path, "hook", "install", "claude-code", "runs/cc").returncode == 0
    groups = settings(tmp_path, "claude-code")["hooks"]["PreToolUse"]
    assert groups[1] == {"matcher": "Edit", "hooks": [keep]}  # the other hook stays
    assert len(groups) == 2 and read_command(groups[0]["hooks"][0]["command"]).wrapped  # type: ignore[union-attr]


def test_install_on_a_database_store_names_the_store_and_the_run_id(tmp_path: Path) -> None:
    done = gate(tmp_path, "--store", "postgresql://gate@db.internal/gate", "hook", "install",
                "claude-code", "job-1")  # fmt: skip
    assert done.returncode == 0, done.stdout
    call = read_command(only_handler(tmp_path, "claude-code")[1]["command"])
    assert call is not None and call.wrapped
    assert (call.store, call.run) == ("postgresql://gate@db.internal/gate", "job-1")


def test_codex_config_keeps_its_comments_and_tables(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    original = '# my model\nmodel = "o3"  # trailing\n\n[mcp_servers.files]\ncommand = "npx"\n'
    path.write_text(original)
    gate(tmp_path, "hook", "install", "codex", "runs/cx")
    first = path.read_text()
    assert first.startswith(original)
    assert "[[hooks.PreToolUse]]" in first and "[[hooks.PreToolUse.hooks]]" in first
    gate(tmp_path, "hook", "install", "codex", "runs/cx")
    assert path.read_text() == first


def test_settings_that_are_not_json_are_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {')
    done = gate(tmp_path, "hook", "install", "claude-code", "runs/cc")
    assert done.returncode == 2 and "nothing was written" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == '{"hooks": {'


# -- doctor --------------------------------------------------------------------


def installed(project: Path, agent: str = "claude-code") -> dict[str, Any]:
    assert gate(project, "hook", "install", agent, "runs/x").returncode == 0
    data: dict[str, Any] = settings(project, agent)
    return data


def doctor(project: Path, agent: str = "claude-code") -> Any:
    return gate(project, "hook", "doctor", agent)


def handler_of(data: dict[str, Any], agent: str = "claude-code") -> dict[str, Any]:
    handler: dict[str, Any] = data["hooks"][AGENTS[agent].event][0]["hooks"][0]
    return handler


def test_doctor_finds_the_gate_missing_from_its_configured_path(tmp_path: Path) -> None:
    data = installed(tmp_path)
    handler = handler_of(data)
    handler["command"] = handler["command"].replace(str(GATE.resolve()), "/nowhere/handoff-gate")
    put(tmp_path, "claude-code", data)
    done = doctor(tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "the gate is not found at /nowhere/handoff-gate (or is not executable)"
    ]


def test_doctor_finds_a_gate_that_is_there_but_does_not_run(tmp_path: Path) -> None:
    """A venv whose interpreter was removed: the script is found, its exec fails."""
    broken = tmp_path / "old-venv" / "bin" / "handoff-gate"
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/nonexistent/python\n")
    broken.chmod(0o755)
    data = installed(tmp_path)
    handler = handler_of(data)
    handler["command"] = handler["command"].replace(str(GATE.resolve()), str(broken))
    put(tmp_path, "claude-code", data)
    (line,) = doctor(tmp_path).stdout.splitlines()
    assert line.startswith(f"the gate at {broken} does not run")
    hook = run_hook(handler["command"], event_bytes("claude-code"), tmp_path)
    out, _ = hook.communicate(timeout=BOUND)
    assert (hook.returncode, out) == (2, b"")


def test_doctor_finds_a_bare_name_without_the_wrapper(tmp_path: Path) -> None:
    data = installed(tmp_path)
    run = tmp_path.resolve() / "runs" / "x"
    handler_of(data)["command"] = f"handoff-gate hook claude-code {run}"
    put(tmp_path, "claude-code", data)
    lines = doctor(tmp_path).stdout.splitlines()
    assert len(lines) == 2
    assert "named bare ('handoff-gate')" in lines[0] and "PATH" in lines[0]
    assert "no fail-closed wrapper" in lines[1]


@pytest.mark.parametrize(
    ("agent", "timeout"), [("claude-code", 540), ("gemini", 45000), ("gemini", None)]
)
def test_doctor_finds_an_agent_timeout_not_above_the_gates_deadline(
    tmp_path: Path, agent: str, timeout: int | None
) -> None:
    data = installed(tmp_path, agent)
    handler = handler_of(data, agent)
    if timeout is None:  # Gemini's own default, 60 s, against a gate told to wait 540 s
        del handler["timeout"]
        handler["command"] = handler["command"].replace("--timeout 50", "--timeout 540")
    else:
        handler["timeout"] = timeout
    put(tmp_path, agent, data)
    done = doctor(tmp_path, agent)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert "is not above the gate's deadline" in line and "runs the tool" in line


def test_doctor_finds_a_run_that_cannot_be_written(tmp_path: Path) -> None:
    data = installed(tmp_path)
    (tmp_path / "a-file").write_text("")
    handler = handler_of(data)
    handler["command"] = handler["command"].replace(
        str(tmp_path.resolve() / "runs" / "x"), str(tmp_path / "a-file" / "run")
    )
    put(tmp_path, "claude-code", data)
    done = doctor(tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"the run {tmp_path / 'a-file' / 'run'} is not writable here (at {tmp_path / 'a-file'})"
    ]


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_doctor_finds_a_matcher_that_misses_shipped_tools(tmp_path: Path, agent: str) -> None:
    data = installed(tmp_path, agent)
    first = gated_tools(agent)[0]
    data["hooks"][AGENTS[agent].event][0]["matcher"] = f"^({first}|mcp__.*)$"
    put(tmp_path, agent, data)
    done = doctor(tmp_path, agent)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("the matcher misses shipped tools that change things: ")
    assert line.split(": ", 1)[1].split(", ") == gated_tools(agent)[1:]


def test_doctor_finds_a_gemini_folder_gemini_does_not_trust(tmp_path: Path, home: Path) -> None:
    installed(tmp_path, "gemini")
    rules = home / ".gemini" / "trustedFolders.json"
    rules.write_text(json.dumps({
        str(tmp_path.resolve()): "TRUST_FOLDER", str(tmp_path.resolve() / "sub"): "DO_NOT_TRUST"
    }))  # fmt: skip
    project = tmp_path / "sub"
    project.mkdir()
    assert gate(project, "hook", "install", "gemini", "runs/x").returncode == 1
    (line,) = doctor(project, "gemini").stdout.splitlines()
    assert line.startswith(f"Gemini CLI ignores {project / '.gemini' / 'settings.json'}")
    rules.write_text("{}")
    assert doctor(tmp_path, "gemini").returncode == 1
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"folderTrust": {"enabled": false}}}'
    )
    assert doctor(tmp_path, "gemini").returncode == 0


def test_doctor_finds_claude_code_hooks_all_turned_off(tmp_path: Path, home: Path) -> None:
    installed(tmp_path)
    user = home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text('{"disableAllHooks": true}')
    done = doctor(tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{user} sets disableAllHooks: Claude Code runs no hook at all"
    ]


def test_doctor_finds_no_hook_at_all(tmp_path: Path) -> None:
    put(tmp_path, "claude-code", {"hooks": {"PreToolUse": []}})
    done = doctor(tmp_path)
    assert done.returncode == 1 and "has no handoff-gate hook claude-code" in done.stdout


# -- the process boundary --------------------------------------------------------


def event_bytes(agent: str) -> bytes:
    return (EVENTS / EVENT_FILE[agent]).read_bytes()


def run_hook(command: str, stdin: bytes, cwd: Path) -> subprocess.Popen[bytes]:
    """The agent running its hook: the command through ``sh``, its event on stdin."""
    hook = subprocess.Popen(
        ["sh", "-c", command], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    assert hook.stdin is not None
    with contextlib.suppress(BrokenPipeError):  # a gate that never started reads nothing
        hook.stdin.write(stdin)
    with contextlib.suppress(BrokenPipeError):
        hook.stdin.close()
    hook.stdin = None
    return hook


def descendants(pid: int) -> Iterator[int]:
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            yield int(child)
            yield from descendants(int(child))


def gate_process(hook: subprocess.Popen[bytes], run: Path) -> int:
    """The gate's pid once it has stored the call in ``run`` and waits for a decision."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        assert hook.poll() is None, hook.communicate()
        if any((run / "handoffs").glob("*.json")) if (run / "handoffs").is_dir() else False:
            for pid in descendants(hook.pid):
                # The interpreter running the gate's script, not the shell around it.
                words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if len(words) > 2 and words[1].endswith(b"/handoff-gate") and b"hook" in words:
                    return pid
        time.sleep(0.05)
    raise AssertionError("the gate never started waiting")


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_an_installed_hook_blocks_when_the_gate_is_killed(tmp_path: Path, agent: str) -> None:
    gate(tmp_path, "hook", "install", agent, "runs/x")
    _, handler = only_handler(tmp_path, agent)
    hook = run_hook(handler["command"], event_bytes(agent), tmp_path)
    try:
        os.kill(gate_process(hook, tmp_path / "runs" / "x"), signal.SIGKILL)
        out, _ = hook.communicate(timeout=BOUND)
    finally:
        if hook.poll() is None:
            os.killpg(hook.pid, signal.SIGKILL)
            hook.wait()
    assert (hook.returncode, out) == (2, b"")


def test_without_the_wrapper_a_killed_gate_is_not_a_block(tmp_path: Path) -> None:
    """Why the wrapper exists: the bare command's exit is the signal's, which Claude Code
    and Codex read as "run the tool"."""
    gate(tmp_path, "hook", "install", "claude-code", "runs/x")
    call = read_command(only_handler(tmp_path, "claude-code")[1]["command"])
    assert call is not None
    bare = shlex.join([call.gate, "hook", "claude-code", *call.args])
    hook = run_hook(bare, event_bytes("claude-code"), tmp_path)
    try:
        os.kill(gate_process(hook, tmp_path / "runs" / "x"), signal.SIGKILL)
        hook.communicate(timeout=BOUND)
    finally:
        if hook.poll() is None:
            os.killpg(hook.pid, signal.SIGKILL)
            hook.wait()
    assert hook.returncode not in (0, 2)


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_an_installed_hook_blocks_when_the_gate_is_deleted(tmp_path: Path, agent: str) -> None:
    own = tmp_path / "venv-bin" / "handoff-gate"
    own.parent.mkdir()
    shutil.copy2(GATE, own)  # a console script: its shebang names this venv's python
    project = tmp_path / "project"
    project.mkdir()
    assert gate(project, "hook", "install", agent, "runs/x", exe=own).returncode in (0, 1)
    _, handler = only_handler(project, agent)
    assert read_command(handler["command"]).gate == str(own)  # type: ignore[union-attr]
    own.unlink()
    hook = run_hook(handler["command"], event_bytes(agent), project)
    out, err = hook.communicate(timeout=BOUND)
    assert (hook.returncode, out) == (2, b""), err
    assert not (project / "runs" / "x").exists()  # nothing was submitted, nothing ran
    done = doctor(project, agent)
    assert f"the gate is not found at {own}" in done.stdout


# -- Codex's trust -------------------------------------------------------------------

#: The Codex CLI the suite pins (tests/coding_agents), else one named by this variable.
CODEX_ENV = "HANDOFF_GATE_TEST_CODEX"
PINNED_CODEX = Path(__file__).parent / "coding_agents" / "node_modules" / ".bin" / "codex"


@pytest.fixture
def codex_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``PATH`` has the real Codex CLI and whose ``CODEX_HOME`` is
    a fresh folder trusting the project ``tmp_path/project`` (Codex ignores a project's
    ``.codex/config.toml`` otherwise)."""
    codex = Path(os.environ.get(CODEX_ENV) or PINNED_CODEX)
    if not codex.is_file():
        why = f"the Codex CLI is not installed at {codex} (make the tests/coding_agents stamp)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    home, project = tmp_path / "codex-home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    env = no_codex_env()
    bin_dir = tmp_path / "codex-bin"
    bin_dir.mkdir()
    (bin_dir / "codex").symlink_to(codex.resolve())
    return {**env, "CODEX_HOME": str(home), "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}


def test_codex_install_records_codex_s_trust_and_twice_changes_nothing(
    tmp_path: Path, codex_env: dict[str, str]
) -> None:
    project, user = tmp_path / "project", tmp_path / "codex-home" / "config.toml"
    done = gate(project, "hook", "install", "codex", "runs/cx", env=codex_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Codex now trusts the hook" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("ok: ")
    assert "trusted_hash" in user.read_text()
    files = [project / ".codex" / "config.toml", user]
    before = [path.read_bytes() for path in files]
    again = gate(project, "hook", "install", "codex", "runs/cx", env=codex_env)
    assert again.returncode == 0 and "now trusts" not in again.stdout
    assert [path.read_bytes() for path in files] == before


def test_codex_install_turns_terminal_sessions_off_and_doctor_finds_them_on(
    tmp_path: Path, codex_env: dict[str, str]
) -> None:
    """With a terminal session open, Codex's ``write_stdin`` runs typed input no hook
    sees: install turns the feature off, and doctor says when a hand edit turns it on."""
    project = tmp_path / "project"
    assert gate(project, "hook", "install", "codex", "runs/cx", env=codex_env).returncode == 0
    path = project / ".codex" / "config.toml"
    assert "unified_exec_tty = false" in path.read_text()
    path.write_text(path.read_text().replace("unified_exec_tty = false", "unified_exec_tty = true"))
    done = doctor_codex(project, codex_env)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert "write_stdin" in line and "unified_exec_tty = false" in line


def test_codex_doctor_finds_a_hook_codex_does_not_trust(
    tmp_path: Path, codex_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    gate(project, "hook", "install", "codex", "runs/cx")  # no codex on PATH: not trusted
    done = doctor_codex(project, codex_env)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("Codex does not trust the hook (untrusted)")


def test_codex_doctor_finds_a_changed_command_no_longer_trusted(
    tmp_path: Path, codex_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    assert gate(project, "hook", "install", "codex", "runs/cx", env=codex_env).returncode == 0
    path = project / ".codex" / "config.toml"
    path.write_text(path.read_text().replace("--timeout 540", "--timeout 500"))
    done = doctor_codex(project, codex_env)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("Codex does not trust the hook (modified)")


def test_codex_doctor_says_an_untrusted_project_ignores_the_hook(
    tmp_path: Path, codex_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    (tmp_path / "codex-home" / "config.toml").write_text("")
    done = gate(project, "hook", "install", "codex", "runs/cx", env=codex_env)
    assert done.returncode == 1
    assert "Codex ignores" in done.stdout and "does not trust" in done.stdout


def doctor_codex(project: Path, env: dict[str, str]) -> Any:
    return gate(project, "hook", "doctor", "codex", env=env)


# -- the documented snippets ---------------------------------------------------------

#: The project docs/integration.md's snippets are written for, with its venv's gate.
DOC_PROJECT = "/home/me/project"
DOC_GATE = f"{DOC_PROJECT}/.venv/bin/handoff-gate"


def documented() -> dict[str, Any]:
    """The three settings snippets of docs/integration.md's coding-agent section."""
    text = (REPO / "docs" / "integration.md").read_text()
    start = text.index("## Coding agents:")
    section = text[start : text.index("\n## ", start + 1)]
    blocks = re.findall(r"```(json|toml)\n(.*?)```", section, re.S)
    claude, gemini = [json.loads(body) for kind, body in blocks if kind == "json"]
    (codex,) = [tomllib.loads(body) for kind, body in blocks if kind == "toml"]
    return {"claude-code": claude, "codex": codex, "gemini": gemini}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_the_documented_snippets_are_what_install_writes(tmp_path: Path, agent: str) -> None:
    extra = ["--timeout", "540"] if agent == "gemini" else []
    gate(tmp_path, "hook", "install", agent, f"runs/{agent}", *extra)
    text = (tmp_path / SETTINGS[agent]).read_text()
    text = text.replace(str(GATE.resolve()), DOC_GATE).replace(str(tmp_path.resolve()), DOC_PROJECT)
    written = tomllib.loads(text) if AGENTS[agent].toml else json.loads(text)
    assert written == documented()[agent]


def test_codex_doctor_finds_codex_hooks_turned_off(
    tmp_path: Path, codex_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    assert gate(project, "hook", "install", "codex", "runs/cx", env=codex_env).returncode == 0
    user = tmp_path / "codex-home" / "config.toml"
    user.write_text(user.read_text() + "\n[features]\nhooks = false\n")
    done = doctor_codex(project, codex_env)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "Codex has its hooks turned off ([features] hooks = false): it runs none"
    ]


def test_the_commands_agents_are_the_harnesses_the_hook_answers_for() -> None:
    """A harness added to ``HARNESSES`` is a ``hook`` and ``hook install`` choice too."""
    from handoff_gate.integrations.coding_agents import HARNESSES

    assert tuple(HARNESSES) == HARNESS_NAMES
    choices = ", ".join(map(repr, HARNESS_NAMES))
    for args in (["doctor", "nobody"], ["install", "nobody", "runs/x"], ["nobody", "runs/x"]):
        done = python_stdout(
            "import sys, contextlib, io\n"
            "from handoff_gate.cli.main import main\n"
            "with contextlib.redirect_stderr(io.StringIO()) as err:\n"
            f"    code = main(['hook', *{args!r}])\n"
            "loaded = 'handoff_gate.integrations.coding_agents' in sys.modules\n"
            "print(code, loaded, err.getvalue().strip())"
        )
        assert done.startswith("2 False "), done  # parsing loaded no harness module
        assert f"(choose from {choices}" in done
    assert sorted(AGENTS) == sorted(HARNESSES)
