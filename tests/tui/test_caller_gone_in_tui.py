"""A coding agent's call whose hook is gone says so in the detail before anyone approves
it: approving it would run nothing (issue 40)."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import SIZE, all_inspected, make_app, screen_text, settle

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.store.filesystem import FilesystemStore

BASH = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}


def _call(root: Path, registry: Registry, call_id: str, *, hooked: bool) -> str:
    with Gate(FilesystemStore(), contracts=registry) as gate:
        return gate.submit_tool_call(
            root / "job-1",
            tool="Bash",
            args=b'{"command": "ls"}',
            call_id=call_id,
            json_schema=BASH,
            agent="codex",
            thread="s1",
            sole_waiter=hooked,
        ).id


async def test_a_hooks_call_with_no_hook_waiting_says_its_caller_gave_up(
    root: Path, registry: Registry
) -> None:
    hooked = _call(root, registry, "c1", hooked=True)
    scripted = _call(root, registry, "c2", hooked=False)
    app = make_app(root, registry)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: all_inspected(app))
        app.review.jump_to((root / "job-1", hooked))
        await settle(pilot, lambda: "waiter gone: its caller gave up;" in screen_text(app))
        app.review.jump_to(
            (root / "job-1", scripted)
        )  # a pipeline's own call may be waited on later
        await settle(pilot, lambda: "nobody is waiting" in screen_text(app))
        assert "its caller gave up" not in screen_text(app)
