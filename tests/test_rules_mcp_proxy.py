"""Policy rules in ``mcp-proxy``: a call a rule approves reaches the real server with
no one asked, one a rule rejects never does and the host reads the rule's name."""

from __future__ import annotations

from pathlib import Path

from rules_policy import rules_policy
from test_mcp_proxy import connected, filesystem, handoffs, proxy, text

RULES = """
[[auto]]
name = "notes may be written"
decide = "approve"
tool = "write_file"
[auto.args]
path = "*/files/notes/*.txt"

[[auto]]
name = "no keys"
decide = "reject"
tool = "write_*"
[auto.args]
path = "*.pem"
"""


async def test_rules_decide_calls_through_the_proxy(tmp_path: Path) -> None:
    files = tmp_path / "files"
    (files / "notes").mkdir(parents=True)
    policy = rules_policy(tmp_path / "trust", rules=RULES).policy
    run = tmp_path / "run"
    note, key = files / "notes" / "a.txt", files / "id.pem"
    flags = ["--policy", str(policy), "--timeout", "30"]
    async with connected(proxy(run, *flags, server=filesystem(files))) as session:
        written = await session.call_tool("write_file", {"path": str(note), "content": "hi"})
        refused = await session.call_tool("write_file", {"path": str(key), "content": "x"})
    assert not written.is_error, text(written)
    assert note.read_text() == "hi"
    assert refused.is_error and "rejected by rule no keys" in text(refused)
    assert not key.exists()
    assert [(r["state"], r["reviewer"]) for r in handoffs(run)] == [
        ("approved", "rule notes may be written"),
        ("rejected", "rule no keys"),
    ]
