"""A tool-call handoff as the one line a person reads: ``agent → name(args)  [call id]``,
by what it would do rather than its contract's digest. Every part is producer text:
made visible, bounded, and masked.
"""

from __future__ import annotations

from typing import Any

from handoff_gate.gates.inspect import content_scan
from handoff_gate.gates.inspect.secret_patterns import ALL_KINDS
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import elide, preview, visible

#: How much of each part a line spends: a name or an agent, one argument's value, all args.
NAME_CHARS = 60
VALUE_CHARS = 40
ARGS_CHARS = 160


def plain(text: str, limit: int) -> str:
    return elide(visible(text).replace("\n", "\\n").replace("\t", "\\t"), limit)


def args_text(args: Any) -> str:
    """The arguments as ``key=value, …`` (a non-object shown as one preview), masked."""
    hits, _ = content_scan.scan(args, ALL_KINDS, unsafe=False)
    shown = content_scan.mask_at(args, hits) if hits else args
    if not isinstance(shown, dict):
        return preview(shown, ARGS_CHARS)
    parts = [f"{plain(str(k), NAME_CHARS)}={preview(v, VALUE_CHARS)}" for k, v in shown.items()]
    joined = ", ".join(parts)
    return joined if len(joined) <= ARGS_CHARS else joined[:ARGS_CHARS] + "…"


def tool_call_line(report: Report) -> str | None:
    """``None`` for an output."""
    envelope = report.envelope
    tool = envelope.tool if envelope is not None else None
    if tool is None:
        return None
    who = f"{plain(tool.agent, NAME_CHARS)} → " if tool.agent else ""
    args = args_text(report.payload) if report.payload is not None else "?"
    return f"{who}{plain(tool.name, NAME_CHARS)}({args})  [{plain(tool.call_id, NAME_CHARS)}]"
