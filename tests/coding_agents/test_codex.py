"""The real Codex CLI 0.171, headless and offline, with ``handoff-gate hook codex`` as its
PreToolUse hook, installed by ``handoff-gate hook install codex`` (issue 40): a fake
model asks for a shell command that writes a marker file, and each case checks on disk
whether the command ran.

Codex runs here with ``approval_policy = "never"`` and no sandbox, so it would run the
command without asking: any way the hook fails open shows as the marker appearing. The
cases with the installed defaults share one project and run (a module fixture, since
``hook install`` asks ``codex app-server`` three times); those that configure something
else make their own.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from codex_session import (
    GATE,
    Project,
    approving_everything,
    decide,
    finish_run,
    gate,
    hook_setup,
    hooks,
    install_hook,
    new_project,
    running,
    trust_as_the_user,
)
from fake_responses import DONE, FakeResponses, Script, ToolCall


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeResponses]:
    server = FakeResponses().start()
    yield server
    server.close()
    assert server.errors == []


@pytest.fixture(scope="module")
def gated(fake: FakeResponses, tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A project with the gate installed as ``hook install`` does by default."""
    project = new_project(tmp_path_factory.mktemp("codex"), fake.base_url)
    install_hook(project)
    return project


@pytest.fixture(scope="module")
def impatient(fake: FakeResponses, tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A project whose gate waits one second (``hook install --timeout 1``)."""
    project = new_project(tmp_path_factory.mktemp("codex-impatient"), fake.base_url)
    install_hook(project, "--timeout", "1")
    return project


def writes(marker: Path, text: str = "ran") -> ToolCall:
    """The model's call: a shell command that writes ``marker``."""
    command = f"printf {shlex.quote(text)} > {shlex.quote(str(marker))}"
    return ToolCall("exec_command", {"cmd": command})


def lines_starting(text: str, start: str) -> list[str]:
    """The lines of ``text`` (doctor's, one per problem) that start with ``start``."""
    return [line for line in text.splitlines() if line.startswith(start)]


def own_project(tmp_path: Path, fake: FakeResponses) -> Project:
    return new_project(tmp_path / "codex", fake.base_url)


def test_an_approved_command_runs(tmp_path: Path, fake: FakeResponses, gated: Project) -> None:
    call = writes(tmp_path / "marker")
    script = Script([call])
    with running(gated, fake.register(script)) as codex:
        handoff_id, _ = codex.waiting()
        assert not (tmp_path / "marker").exists()  # held while nobody decided
        # What the reviewer is shown: Codex's exec_command as its hook names it, and
        # exactly the model's command (the event carries nothing else of the call).
        stored = json.loads((gated.run / "handoffs" / f"{handoff_id}.json").read_text())
        assert (stored["tool"]["name"], stored["tool"]["agent"]) == ("Bash", "codex")
        assert json.loads(stored["raw"]) == {"command": call.arguments["cmd"]}
        decide(gated.run, handoff_id, "approve", "--reviewer", "alice")
        done = codex.finish()
    assert done.code == 0, done.stderr
    assert (tmp_path / "marker").read_text() == "ran"
    assert shutil.which("handoff-gate", path=gated.env()["PATH"]) is None  # by its path only
    assert script.outputs.keys() == {"call_0"} and done.said() == [DONE]
    assert {"exec_command", "write_stdin"} <= set(script.offered)  # the tools 0.171 offers


def test_a_rejected_command_does_not_run_and_the_model_reads_why(
    tmp_path: Path, fake: FakeResponses, gated: Project
) -> None:
    script = Script([writes(tmp_path / "marker")])
    with running(gated, fake.register(script)) as codex:
        handoff_id, _ = codex.waiting()
        decide(gated.run, handoff_id, "reject", "--reason", "not on a friday", "--reviewer", "bob")
        done = codex.finish()
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    assert "not on a friday" in script.outputs["call_0"]


def test_an_edited_command_runs_as_edited(
    tmp_path: Path, fake: FakeResponses, gated: Project
) -> None:
    script = Script([writes(tmp_path / "marker")])
    edit = tmp_path / "edit.json"
    edit.write_text(json.dumps({"command": writes(tmp_path / "edited", "edited").arguments["cmd"]}))
    with running(gated, fake.register(script)) as codex:
        handoff_id, _ = codex.waiting()
        decide(gated.run, handoff_id, "approve", "--edit", str(edit), "--reviewer", "alice")
        done = codex.finish()
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    assert (tmp_path / "edited").read_text() == "edited"
    assert "call_0" in script.outputs


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_the_gate_killed_while_waiting_blocks(
    tmp_path: Path, fake: FakeResponses, gated: Project, sig: signal.Signals
) -> None:
    """The OOM killer or a crash (SIGKILL: the wrapper's exit 2 blocks), a closed
    terminal (SIGHUP: the hook denies and withdraws). A late approval is refused."""
    script = Script([writes(tmp_path / "marker")])
    with running(gated, fake.register(script)) as codex:
        handoff_id, pid = codex.waiting()
        os.kill(pid, sig)
        done = codex.finish()
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    assert "call_0" in script.outputs  # the model was answered, not left hanging
    (seen,) = [r for r in json.loads(gate("list", str(gated.run), "--json").stdout)
               if r["id"] == handoff_id]  # fmt: skip
    if sig is signal.SIGKILL:  # nothing could withdraw it: pending, and says so
        assert seen["state"] == "pending" and seen["waiter"] is False
        assert seen["caller_gave_up"] is True
    else:
        assert seen["state"] == "withdrawn"
    late = gate("decide", str(gated.run), handoff_id, "approve", "--reviewer", "alice")
    assert late.returncode == 1, late.stdout
    if sig is signal.SIGKILL:
        assert "its caller gave up" in late.stdout + late.stderr
    assert not (tmp_path / "marker").exists()


#: Commands that read what is typed into their terminal and run it: a shell by name,
#: and a loop of ``sh`` whose name says nothing (Codex's event carries ``command`` only,
#: never ``tty``, so the hook cannot tell a terminal session from a plain command).
TYPED_INTO = {
    "bash": pytest.param("bash"),
    "read-eval-loop": pytest.param("sh -c 'while read line; do eval \"$line\"; done'"),
}


@pytest.mark.parametrize("session_command", TYPED_INTO.values(), ids=TYPED_INTO.keys())
def test_input_typed_into_an_approved_terminal_session_never_runs(
    tmp_path: Path, fake: FakeResponses, gated: Project, session_command: str
) -> None:
    """Codex's ``write_stdin`` into an open ``exec_command`` session fires no hook: a
    terminal session a reviewer approves would let the model type any command
    unreviewed. A reviewer approving every call the hook shows cannot open one."""
    typed = writes(tmp_path / "marker").arguments["cmd"] + "\n"
    shell = ToolCall("exec_command", {"cmd": session_command, "tty": True, "yield_time_ms": 500})
    stdin = ToolCall("write_stdin", {"chars": typed, "yield_time_ms": 1000}, session_of=0)
    script = Script([shell, stdin])
    with running(gated, fake.register(script)) as codex, approving_everything(codex):
        done = codex.finish()
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    assert "Process running with session ID" not in script.outputs["call_0"]
    told = script.outputs["call_0"]  # why: the gate's finding, or Codex's own refusal
    assert "interactive session" in told or "TTY execution is disabled" in told


def test_the_gate_missing_at_its_path_blocks(tmp_path: Path, fake: FakeResponses) -> None:
    """Installed from a venv that is gone later: the hook names a path that no longer
    exists (exit 127 from the shell, on which Codex would run the tool)."""
    project = own_project(tmp_path, fake)
    venv_bin = tmp_path / "old-venv" / "bin"
    venv_bin.mkdir(parents=True)
    installed = venv_bin / "handoff-gate"
    shutil.copy2(GATE, installed)
    install_hook(project, gate=installed)
    installed.unlink()
    doctor = hook_setup(project, "doctor")
    assert doctor.returncode == 1
    assert lines_starting(doctor.stdout, f"the gate is not found at {installed}")
    script = Script([writes(tmp_path / "marker")])
    done = finish_run(project, fake.register(script))
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    assert "call_0" in script.outputs


def test_nobody_deciding_within_the_gates_timeout_blocks(
    tmp_path: Path, fake: FakeResponses, impatient: Project
) -> None:
    """The one-second deadline counts from the hook's start, so on a loaded machine its
    start-up can use it up before the wait begins: either way the call is denied, and
    the model is told it was the deadline."""
    script = Script([writes(tmp_path / "marker")])
    done = finish_run(impatient, fake.register(script))
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    told = script.outputs["call_0"]
    assert "no reviewer decided within" in told or "its deadline (1 s) passed" in told, told


def test_a_held_log_lock_blocks_within_the_deadline(
    tmp_path: Path, fake: FakeResponses, impatient: Project
) -> None:
    """The gated agent writes the run, so it can hold the log's ``flock``: the hook must
    still answer before Codex's own hook timeout (which ``hook install`` set above the
    gate's deadline), or Codex kills it and runs the command."""
    impatient.run.mkdir(parents=True, exist_ok=True)
    script = Script([writes(tmp_path / "marker")])
    with (impatient.run / "audit.jsonl").open("a") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        done = finish_run(impatient, fake.register(script))
    assert done.code == 0, done.stderr
    assert not (tmp_path / "marker").exists()
    assert "call_0" in script.outputs


def test_an_untrusted_hook_runs_nothing_and_doctor_names_it(
    tmp_path: Path, fake: FakeResponses
) -> None:
    """Installed where ``codex`` is not on PATH, the hook cannot be trusted, and install
    says what to do; Codex then skips it without a word and runs the command unreviewed
    (shown here, so a Codex that changes this is noticed); ``hook doctor`` names it."""
    project = own_project(tmp_path, fake)
    install = hook_setup(project, "install", str(project.run), codex_on_path=False)
    assert install.returncode == 1
    assert "codex is not on PATH" in install.stdout and "/hooks" in install.stdout
    assert [h["trustStatus"] for h in hooks(project)] == ["untrusted"]
    doctor = hook_setup(project, "doctor")
    assert doctor.returncode == 1
    assert lines_starting(doctor.stdout, "Codex does not trust the hook (untrusted)")
    done = finish_run(project, fake.register(Script([writes(tmp_path / "marker")])))
    assert done.code == 0, done.stderr
    assert (tmp_path / "marker").read_text() == "ran"
    assert not project.run.exists()  # the gate never heard of the call


def test_a_lowered_codex_hook_timeout_is_named_by_doctor(
    tmp_path: Path, fake: FakeResponses
) -> None:
    """A user lowers Codex's hook timeout below the gate's deadline and trusts the
    changed hook in ``/hooks``: Codex then kills the waiting hook and runs the command
    (shown here), which nothing but ``hook doctor`` tells them."""
    project = own_project(tmp_path, fake)
    install_hook(project, "--timeout", "30")
    text = project.settings.read_text()
    assert "\ntimeout = 40\n" in text  # hook install: above the deadline, with a margin
    project.settings.write_text(text.replace("\ntimeout = 40\n", "\ntimeout = 2\n"))
    trust_as_the_user(project)
    doctor = hook_setup(project, "doctor")
    assert doctor.returncode == 1
    assert lines_starting(doctor.stdout, "the agent's hook timeout (2 s) is not above the gate's")
    script = Script([writes(tmp_path / "marker")])
    done = finish_run(project, fake.register(script))
    assert done.code == 0, done.stderr
    assert (tmp_path / "marker").read_text() == "ran"
