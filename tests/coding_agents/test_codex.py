"""The real Codex CLI 0.171, headless and offline, with ``handoff-gate hook codex`` as its
PreToolUse hook (issue 40): a fake model asks for one shell command that writes a marker
file, and each case checks on disk whether the command ran.

Codex runs here with ``approval_policy = "never"`` and no sandbox, so it would run the
command without asking: any way the hook fails open shows as the marker appearing.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from codex_session import (
    Project,
    approving_everything,
    finish,
    finish_run,
    gate,
    hooks,
    install_hook,
    new_project,
    running,
    waiting,
)
from fake_responses import DONE, FakeResponses, Script, ToolCall

# Fixes other branches of issue 40 bring; until merged here these cases fail as shown.
HOOK_FAILCLOSED_EDIT = pytest.mark.xfail(
    strict=True, reason="hook-failclosed: Codex edits answered allow + updatedInput"
)
HOOK_FAILCLOSED_DEADLINE = pytest.mark.xfail(
    strict=True, reason="hook-failclosed: lock waits come out of the hook's one deadline"
)
HOOK_FAILCLOSED_INTERACTIVE = pytest.mark.xfail(
    strict=True, reason="hook-failclosed: a command opening an interactive session is blocked"
)
HOOK_INSTALL_DOCTOR = pytest.mark.xfail(strict=True, reason="hook-install: hook doctor codex")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeResponses]:
    server = FakeResponses().start()
    yield server
    server.close()
    assert server.errors == []


def writes(marker: Path, text: str = "ran") -> ToolCall:
    """The model's call: a shell command that writes ``marker``."""
    command = f"printf {shlex.quote(text)} > {shlex.quote(str(marker))}"
    return ToolCall("exec_command", {"cmd": command})


def project_with(tmp_path: Path, fake: FakeResponses, *calls: ToolCall) -> tuple[Project, Script]:
    script = Script(list(calls))
    return new_project(tmp_path, fake.register(script)), script


def test_an_approved_command_runs(tmp_path: Path, fake: FakeResponses) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project)
    with running(project) as codex:
        handoff_id, _ = waiting(project.run, codex)
        assert not project.marker().exists()  # held while nobody decided
        decided = gate("decide", str(project.run), handoff_id, "approve", "--reviewer", "alice")
        assert decided.returncode == 0, decided.stderr
        done = finish(codex)
    assert done.code == 0, done.stderr
    assert project.marker().read_text() == "ran"
    assert script.outputs.keys() == {"call_0"} and DONE in str(done.events[-2])
    assert {"exec_command", "write_stdin"} <= set(script.offered)  # the tools 0.171 offers


def test_a_rejected_command_does_not_run_and_the_model_reads_why(
    tmp_path: Path, fake: FakeResponses
) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project)
    with running(project) as codex:
        handoff_id, _ = waiting(project.run, codex)
        why = ["--reason", "not on a friday"]
        decided = gate("decide", str(project.run), handoff_id, "reject", *why, "--reviewer", "bob")
        assert decided.returncode == 0, decided.stderr
        done = finish(codex)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert "not on a friday" in script.outputs["call_0"]


@HOOK_FAILCLOSED_EDIT
def test_an_edited_command_runs_as_edited(tmp_path: Path, fake: FakeResponses) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project)
    edit = tmp_path / "edit.json"
    edited = f"printf edited > {shlex.quote(str(project.marker('edited')))}"
    edit.write_text(json.dumps({"command": edited}))
    with running(project) as codex:
        handoff_id, _ = waiting(project.run, codex)
        decided = gate(
            "decide", str(project.run), handoff_id, "approve", "--edit", str(edit),
            "--reviewer", "alice",
        )  # fmt: skip
        assert decided.returncode == 0, decided.stderr
        done = finish(codex)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert project.marker("edited").read_text() == "edited"
    assert "call_0" in script.outputs


def test_the_gate_killed_while_waiting_blocks(tmp_path: Path, fake: FakeResponses) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project)
    with running(project) as codex:
        handoff_id, pid = waiting(project.run, codex)
        os.kill(pid, signal.SIGKILL)
        done = finish(codex)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert "call_0" in script.outputs  # the model was answered, not left hanging
    # Approving the orphaned handoff afterwards runs nothing: Codex moved on.
    gate("decide", str(project.run), handoff_id, "approve", "--reviewer", "alice")
    assert not project.marker().exists()


def test_the_gate_missing_at_its_path_blocks(tmp_path: Path, fake: FakeResponses) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project, gate=tmp_path / "uninstalled" / "handoff-gate")
    done = finish_run(project)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert "call_0" in script.outputs


def test_nobody_deciding_within_the_gates_timeout_blocks(
    tmp_path: Path, fake: FakeResponses
) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project, "--timeout", "1")
    done = finish_run(project)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert "no reviewer decided within 1 s" in script.outputs["call_0"]


@HOOK_FAILCLOSED_DEADLINE
def test_a_held_log_lock_blocks_within_the_deadline(tmp_path: Path, fake: FakeResponses) -> None:
    project, script = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project, "--timeout", "2", codex_timeout=5)
    project.run.mkdir(parents=True)
    with (project.run / "audit.jsonl").open("a") as log:
        fcntl.flock(log, fcntl.LOCK_EX)  # the gated agent's own process could hold it
        done = finish_run(project)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert "call_0" in script.outputs


@HOOK_FAILCLOSED_INTERACTIVE
def test_an_interactive_shell_is_blocked_so_typed_input_never_runs(
    tmp_path: Path, fake: FakeResponses
) -> None:
    """Codex's ``write_stdin`` into an open ``exec_command`` session fires no hook: an
    approved ``bash`` with ``tty`` would let the model type any command unreviewed."""
    typed = f"printf typed > {shlex.quote(str(tmp_path / 'marker'))}\n"
    shell = ToolCall("exec_command", {"cmd": "bash", "tty": True, "yield_time_ms": 500})
    stdin = ToolCall("write_stdin", {"chars": typed, "yield_time_ms": 1000}, session_of=0)
    project, script = project_with(tmp_path, fake, shell, stdin)
    install_hook(project)
    with running(project) as codex, approving_everything(project.run, codex):
        done = finish(codex)
    assert done.code == 0, done.stderr
    assert not project.marker().exists()
    assert "call_0" in script.outputs  # the hook's answer reached the model


@HOOK_INSTALL_DOCTOR
def test_an_untrusted_hook_runs_nothing_and_doctor_names_it(
    tmp_path: Path, fake: FakeResponses
) -> None:
    """Codex skips a hook nobody trusted without a word and runs the command unreviewed
    (shown here, so a Codex that changes this is noticed); ``hook doctor`` says so."""
    project, _ = project_with(tmp_path, fake, writes(tmp_path / "marker"))
    install_hook(project, trust=False)
    assert [h["trustStatus"] for h in hooks(project)] == ["untrusted"]
    doctor = gate("hook", "doctor", "codex", "--settings", str(project.config))
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert "trust" in (doctor.stdout + doctor.stderr).lower()
    done = finish_run(project)
    assert done.code == 0, done.stderr
    assert project.marker().read_text() == "ran"
    assert not project.run.exists()  # the gate never heard of the call
