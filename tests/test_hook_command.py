"""Reading a hook command back (``integrations.hook_command``): only a command that
runs the gate and blocks on every failure of it counts as wrapped, and a command the
shell would read as more than the gate is not taken for a gate call at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_gate.integrations.hook_command import agent_timeout, hook_command, read_command

GATE = "/opt/venv/bin/handoff-gate"


def test_what_install_writes_reads_back_with_odd_paths() -> None:
    gate = Path("/home/me/my venv/bin/handoff-gate")
    run = "/home/me/it's; here/runs/x"
    call = read_command(hook_command(gate, "codex", run, 12.5, store=None))
    assert call is not None
    assert (call.gate, call.agent, call.run, call.wrapped) == (str(gate), "codex", run, True)
    assert call.option("--timeout") == "12.5"


@pytest.mark.parametrize(
    "command",
    [
        f"{GATE} hook claude-code /r || exit 2",
        f"{GATE} hook claude-code /r|| exit 2",
        f"sh -c '{GATE} hook claude-code /r || exit 2'",
    ],
)
def test_a_command_ending_in_exit_2_is_wrapped(command: str) -> None:
    call = read_command(command)
    assert call is not None and call.wrapped and call.run == "/r"


@pytest.mark.parametrize(
    "command",
    [
        f"{GATE} hook claude-code /r || true || exit 2",
        f"{GATE} hook claude-code /r; true || exit 2",
        f"{GATE} hook claude-code /r & exit 2",
        f'/bin/sh -c \'"$0" "$@" || exit 2\' {GATE} hook claude-code /r ; true',
        f"{GATE} hook install claude-code /r",
        "echo handoff-gate hook claude-code /r",
        f"{GATE} hook claude-code '/r",
    ],
)
def test_anything_more_than_the_gate_is_no_gate_call(command: str) -> None:
    assert read_command(command) is None


def test_a_plain_command_is_not_wrapped() -> None:
    call = read_command(f"{GATE} --store postgresql://h/db hook gemini job-1")
    assert call is not None and not call.wrapped
    assert (call.store, call.run) == ("postgresql://h/db", "job-1")


def test_the_agents_timeout_leaves_the_gate_a_tenth_and_at_least_10_s() -> None:
    assert [agent_timeout(s) for s in (540, 50, 0, 1000)] == [600, 60, 10, 1112]
