"""The gate as the hook of the real Claude Code and Gemini CLI (issue 40).

Each test runs the pinned agent headless against a fake model that asks for one shell
command creating a marker file, with the agent's settings pointing its hook at the gate,
and asserts on disk whether the command ran. The agents run in the mode in which they
would run the command without asking, so a hook that fails open shows here as the marker
file appearing. A reviewer acts from another process, through ``handoff-gate decide``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from agent_runs import GATE, Session, decide, doctor, drive, gate, install_hook, waiting
from fake_models import ToolCall

#: The gate's wait when a reviewer answers at once: far above any run's length.
PATIENT = 60.0


def row(session: Session) -> dict[str, object]:
    """``list --json``'s one row for the run: a reviewer's view of the handoff."""
    rows = json.loads(gate("list", str(session.run), "--json").stdout)
    assert len(rows) == 1, rows
    found: dict[str, object] = rows[0]
    return found


def state(session: Session) -> object:
    return row(session)["state"]


def test_an_approved_call_runs(session: Session) -> None:
    install_hook(session, PATIENT)
    call = session.agent.shell(session.touch())
    outcome = drive(session, call, decide("approve"))
    assert session.marker().exists(), outcome.stderr
    assert "blocked" not in outcome.told().lower()


def test_a_rejected_call_does_not_run_and_the_model_gets_the_reason(session: Session) -> None:
    install_hook(session, PATIENT)
    call = session.agent.shell(session.touch())
    outcome = drive(session, call, decide("reject", "--reason", "not on a friday"))
    assert not session.marker().exists()
    assert "not on a friday" in outcome.told()
    assert state(session) == "rejected"


def test_an_edited_call_runs_as_edited_not_as_the_model_sent_it(session: Session) -> None:
    install_hook(session, PATIENT)
    call = session.agent.shell(session.touch())
    edit = session.root / "edit.json"
    edit.write_text(json.dumps({**call.arguments, "command": session.touch("edited")}))
    outcome = drive(session, call, decide("approve", "--edit", str(edit)))
    assert session.marker("edited").exists(), outcome.stderr
    assert not session.marker().exists()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_a_gate_signalled_while_waiting_does_not_let_the_call_run(
    session: Session, sig: signal.Signals
) -> None:
    """SIGKILL (the OOM killer, a crash): only the wrapper can answer, with exit 2.
    SIGHUP (a closed terminal), which the hook did not handle before issue 40: the hook
    itself denies."""
    install_hook(session, PATIENT)

    def kill(session: Session, process: subprocess.Popen[bytes]) -> None:
        _, pid = waiting(session, process)
        os.kill(pid, sig)

    outcome = drive(session, session.agent.shell(session.touch()), kill)
    assert not session.marker().exists()
    assert outcome.results, "the model was never told the call was blocked"
    # a reviewer sees that nobody would run it, and an approval is refused, not recorded
    seen = row(session)
    assert seen["waiter"] is False
    late = gate("decide", str(session.run), str(seen["id"]), "approve", "--reviewer", "alice")
    assert late.returncode == 1, late.stdout + late.stderr
    if sig == signal.SIGKILL:  # nothing could withdraw it: it says why it cannot run
        assert seen["state"] == "pending" and seen["caller_gave_up"] is True
        assert "its caller gave up" in late.stdout + late.stderr


def test_the_gate_off_the_agents_path_still_gates(session: Session) -> None:
    """The agents' PATH holds no ``handoff-gate`` (``agent_runs.AGENT_PATH``): the hook
    reaches the gate by its absolute path, and the reviewer's answer is what counts."""
    assert GATE.is_absolute()
    install_hook(session, PATIENT)
    call = session.agent.shell(session.touch())
    outcome = drive(session, call, decide("reject", "--reason", "reached by path"))
    assert not session.marker().exists()
    assert "reached by path" in outcome.told()


def test_a_configured_gate_that_is_gone_blocks_and_doctor_says_so(session: Session) -> None:
    """The gate deleted after the hook was installed (a venv removed or rebuilt): the
    agent finds nothing at the path, and the call must not run."""
    moved = session.root / "venv-bin" / "handoff-gate"
    moved.parent.mkdir()
    shutil.copy2(GATE, moved)
    install_hook(session, PATIENT, gate=moved)
    moved.unlink()
    outcome = drive(session, session.agent.shell(session.touch()))
    assert not session.marker().exists()
    assert outcome.results, "the model was never told the call was blocked"
    found = doctor(session)
    assert found.returncode == 1, found.stdout + found.stderr
    assert str(moved) in found.stdout


def test_a_held_log_lock_blocks_within_the_agents_limit(session: Session) -> None:
    """The gated agent writes the run, so it can hold the ``flock`` on ``audit.jsonl``:
    the hook must still answer (deny) before the agent's own hook timeout kills it."""
    install_hook(session, 2)
    session.run.mkdir(parents=True)
    with (session.run / "audit.jsonl").open("a") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        outcome = drive(session, session.agent.shell(session.touch()))
    assert not session.marker().exists()
    assert "handoff-gate" in outcome.told()  # the gate's deny, not the agent's kill


def test_nobody_deciding_within_the_gates_timeout_blocks(session: Session) -> None:
    """The gate's deadline counts from the hook's start (its interpreter's included), so
    on a loaded machine it may pass before the wait began: either way the gate denies,
    and a reviewer who comes late cannot approve the call."""
    install_hook(session, 3)
    outcome = drive(session, session.agent.shell(session.touch()))
    assert not session.marker().exists()
    assert "handoff-gate" in outcome.told()  # the gate's deny, not the agent's kill
    rows = json.loads(gate("list", str(session.run), "--json").stdout)
    assert len(rows) <= 1, rows
    for late in rows:  # withdrawn, or marked as having lost its caller
        assert late["state"] == "withdrawn" or late["caller_gave_up"] is True, late
        refused = gate("decide", str(session.run), late["id"], "approve", "--reviewer", "bob")
        assert refused.returncode == 1, refused.stdout + refused.stderr


Group = dict[str, Any]


def _lower_timeout(group: Group, session: Session) -> None:
    """The agent kills a hook at its own timeout and runs the tool."""
    group["hooks"][0]["timeout"] = 30 if session.agent.name == "claude-code" else 30_000


def _bare_name(group: Group, session: Session) -> None:
    """docs/integration.md's form before issue 40: the agent's PATH decides whether the
    gate is found, and a gate missing or killed lets Claude Code run the tool."""
    group["hooks"][0]["command"] = f"handoff-gate hook {session.agent.name} {session.run}"


def _run_under_a_file(group: Group, session: Session) -> None:
    """A run the gate cannot make: every call it is asked about fails."""
    (session.root / "a-file").write_text("")
    command: str = group["hooks"][0]["command"]
    group["hooks"][0]["command"] = command.replace(str(session.run), f"{session.root}/a-file/run")


def _narrow_matcher(group: Group, session: Session) -> None:
    """Only the shell gated: file writes would run unreviewed."""
    group["matcher"] = "Bash" if session.agent.name == "claude-code" else "run_shell_command"


MISCONFIGURED: dict[str, tuple[Callable[[Group, Session], None], tuple[str, ...]]] = {
    "agent timeout lowered": (_lower_timeout, ("timeout",)),
    "bare name, no wrapper": (_bare_name, ("bare", "wrapper")),
    "run not writable": (_run_under_a_file, ("not writable",)),
    "matcher misses tools": (_narrow_matcher, ("matcher",)),
}


@pytest.mark.parametrize("case", sorted(MISCONFIGURED))
def test_doctor_flags_a_hand_edited_misconfiguration(session: Session, case: str) -> None:
    """What a user changes by hand in the settings ``hook install`` wrote, which the
    agent itself would run without a word: ``hook doctor`` exits 1 and names it."""
    (edit, words) = MISCONFIGURED[case]
    settings = install_hook(session, PATIENT)
    data = json.loads(settings.read_text())
    event = "PreToolUse" if session.agent.name == "claude-code" else "BeforeTool"
    edit(data["hooks"][event][0], session)
    settings.write_text(json.dumps(data))
    done = doctor(session)
    assert done.returncode == 1, done.stdout + done.stderr
    for word in words:
        assert word in done.stdout, done.stdout


@pytest.mark.parametrize("agent", ["gemini"], indirect=True)
def test_gemini_runs_an_approved_call_with_an_argument_of_its_0_61_tools(
    session: Session,
) -> None:
    """Gemini 0.61's ``run_shell_command`` takes ``delay_ms``; an approval of a call that
    sends it must run the call, not turn into a deny."""
    install_hook(session, PATIENT)
    call = session.agent.shell(session.touch())
    sent = ToolCall(call.name, {**call.arguments, "delay_ms": 0})
    outcome = drive(session, sent, decide("approve"))
    assert session.marker().exists(), outcome.told()
