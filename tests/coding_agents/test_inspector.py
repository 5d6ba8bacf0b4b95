"""``handoff-gate mcp-proxy`` under the real MCP Inspector CLI (issue 40).

The Inspector (``@modelcontextprotocol/inspector --cli``, pinned with the agents) starts
the proxy in front of the reference filesystem server (``tests/mcp_servers``) and makes
one ``tools/call``; a reviewer decides through ``handoff-gate decide`` from another
process; the file on disk says whether the call ran.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from agent_runs import BOUND, GATE, PACKAGES, gate, registered

REPO = Path(__file__).resolve().parents[2]
FILESYSTEM = REPO / "tests" / "mcp_servers" / "node_modules" / ".bin" / "mcp-server-filesystem"


def inspector() -> Path:
    found = PACKAGES / ".bin" / "mcp-inspector"
    for path, make in ((found, "tests/coding_agents"), (FILESYSTEM, "tests/mcp_servers")):
        if not path.exists():
            raise AssertionError(f"{path} is missing: run `make {make}/node_modules/.installed`")
    return found


def call_write(tmp_path: Path, server: list[str], action: list[str]) -> tuple[Path, str]:
    """The Inspector's ``tools/call`` of ``write_file`` through ``server`` (its target
    words), ``handoff-gate decide RUN ID ACTION…`` run once the proxy waits; the file
    the call would write, and what the Inspector printed."""
    target = tmp_path / "root" / "note.txt"
    target.parent.mkdir()
    call = [
        "--method", "tools/call", "--tool-name", "write_file",
        "--tool-arg", f"path={target}", "content=hello",
    ]  # fmt: skip
    env = {**os.environ, "HOME": str(tmp_path), "MCP_INSPECTOR_SECRET_STORE": "memory"}
    err = tmp_path / "inspector.err"
    with err.open("wb") as stderr:
        process = subprocess.Popen(
            [str(inspector()), "--cli", *server, *call], cwd=tmp_path, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr,
        )  # fmt: skip
        try:
            handoff_id, _ = registered(tmp_path / "run", process, err)
            done = gate("decide", str(tmp_path / "run"), handoff_id, *action, "--reviewer", "bob")
            assert done.returncode == 0, done.stderr
            out, _ = process.communicate(timeout=BOUND)
        finally:
            process.kill()
            process.wait(timeout=BOUND)
    return target, out.decode()


def proxy(tmp_path: Path) -> list[str]:
    """The proxy's command line as a user writes it: RUN, then ``--``, then the server."""
    run = str(tmp_path / "run")
    return [str(GATE), "mcp-proxy", run, "--", str(FILESYSTEM), str(tmp_path / "root")]


def test_an_approved_call_through_the_inspector_writes_the_file(tmp_path: Path) -> None:
    """Started from an Inspector config file, whose ``args`` list keeps ``--``."""
    (command, *args) = proxy(tmp_path)
    config = {"mcpServers": {"gated": {"command": command, "args": args}}}
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    server = ["--config", str(tmp_path / "mcp.json"), "--server", "gated"]
    target, out = call_write(tmp_path, server, ["approve"])
    assert target.read_text() == "hello", out
    assert json.loads(out).get("isError") is not True


def test_a_rejected_call_from_the_inspectors_command_line_is_not_run(tmp_path: Path) -> None:
    """The Inspector's usual form, the server as words on its own command line."""
    action = ["reject", "--reason", "not this file"]
    target, out = call_write(tmp_path, proxy(tmp_path), action)
    assert not target.exists()
    assert "not this file" in out
