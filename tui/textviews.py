"""The raw and diff bodies as lists of styled lines, built off the UI thread.

Both show untrusted text, so every line is passed through ``gates.sanitize.visible``:
escape and bidi characters become tokens instead of reaching the terminal.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from rich.text import Text

from handoff_gate.gates.report import Report
from handoff_gate.gates.sanitize import visible
from handoff_gate.gates.secretscan import mask_secrets
from handoff_gate.gates.store import HandoffRef, read_handoff_bytes

_DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}


def _lines(text: str) -> list[str]:
    """Displayable lines: secrets masked (the raw bytes hold them in full), unsafe
    characters as tokens."""
    return visible(mask_secrets(text)).split("\n")


def raw_view(ref: HandoffRef, report: Report) -> tuple[Text, list[Text]]:
    """The producer's exact text; the whole handoff file when there is none."""
    if report.raw_text:
        source = report.raw_text
        title = f"raw producer text, {len(source.encode()):,} bytes"
    else:
        try:
            data = read_handoff_bytes(ref.run_dir, ref.id)
        except (OSError, ValueError) as exc:
            return Text(f"cannot read {ref.id}: {exc}", style="red"), []
        source = data.decode("utf-8", errors="backslashreplace")
        title = f"handoff file, {len(data):,} bytes"
    heading = Text.assemble(
        (f" RAW  {title}", "bold"),
        ("   unsafe characters shown as ⟨…⟩ tokens, secrets masked · v: back", "dim"),
    )
    return heading, [Text(line) for line in _lines(source)]


def _comparable(report: Report) -> list[str]:
    """Pretty JSON of what arrived (keys in arrival order), else the raw text."""
    payload: Any = report.payload
    if payload is not None:
        return _lines(json.dumps(payload, indent=2, ensure_ascii=False))
    return _lines(report.raw_text)


def diff_view(
    before: Report, before_id: str, after: Report, after_id: str
) -> tuple[Text, list[Text]]:
    """A unified diff of two handoffs' payloads, coloured by line kind."""
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
    return heading, [Text(line, style=_DIFF_STYLES.get(line[:1], "")) for line in diff]
