"""The raw, diff and delivered bodies as styled lines; every line goes through
``gates.view.masking`` (secrets masked, escape and bidi characters as tokens)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from typing import Any

from rich.text import Text

from handoff_gate.gates.view.delivery import delivered_text
from handoff_gate.gates.view.masking import display_lines
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report

#: A unified diff's line styles by its first character.
DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}


def raw_view(
    ref: HandoffRef, report: Report, read: Callable[[HandoffRef], bytes]
) -> tuple[Text, list[Text]]:
    """The producer's exact text, else the whole handoff file."""
    if report.raw_text:
        source = report.raw_text
        title = f"raw producer text, {len(source.encode()):,} bytes"
    else:
        try:
            data = read(ref)
        except (OSError, ValueError) as exc:
            return Text(f"cannot read {ref.id}: {exc}", style="red"), []
        source = data.decode("utf-8", errors="backslashreplace")
        title = f"handoff file, {len(data):,} bytes"
    heading = Text.assemble(
        (f" RAW  {title}", "bold"),
        ("   unsafe characters shown as ⟨…⟩ tokens, secrets masked · v: back", "dim"),
    )
    return heading, [Text(line) for line in display_lines(source)]


def delivered_view(report: Report) -> tuple[Text, list[Text]]:
    """Byte for byte as ``wait --out`` would write it if approved now."""
    text = delivered_text(report)
    if text is None:
        heading = Text.assemble(
            (" DELIVERED  nothing", "bold"),
            ("   a blocked handoff cannot be approved · w: back", "dim"),
        )
        return heading, [Text("Nothing would reach the next phase.", style="dim italic")]
    heading = Text.assemble(
        (f" DELIVERED  {len(text.encode()):,} bytes", "bold"),
        ("   what the next phase receives if approved now · w: back", "dim"),
    )
    return heading, [Text(line) for line in display_lines(text.rstrip("\n"))]


def _comparable(report: Report) -> list[str]:
    payload: Any = report.payload
    if payload is not None:
        return display_lines(json.dumps(payload, indent=2, ensure_ascii=False))
    return display_lines(report.raw_text)


def diff_view(
    before: Report, before_id: str, after: Report, after_id: str
) -> tuple[Text, list[Text]]:
    heading = Text.assemble(
        (f" DIFF  {before_id} → {after_id}", "bold"), ("   payloads as parsed · d: back", "dim")
    )
    diff = list(
        difflib.unified_diff(
            _comparable(before), _comparable(after), before_id, after_id, lineterm="", n=3
        )
    )
    if not diff:
        return heading, [Text("No differences between the two payloads.", style="dim")]
    return heading, [Text(line, style=DIFF_STYLES.get(line[:1], "")) for line in diff]
