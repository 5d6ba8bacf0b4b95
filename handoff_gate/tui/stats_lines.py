"""The stats screen's lines: ``handoff-gate stats``' figures for an 80-column screen, and
a bar a day. Names, phases, tools and reasons are untrusted: each goes through ``safe``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from handoff_gate.tui.render import safe

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Stats

#: The longest bar, in cells; every other day's bar is scaled to it.
BAR_CELLS = 40
#: A reason may be this long (a decision record's cap): shown whole, wrapped.
_LONGEST_TEXT = 10_000


def _heading(text: str) -> Text:
    return Text(text, style="bold")


def _counts(row: dict[str, int]) -> str:
    """``2 approved, 1 rejected``: the non-zero states of a row of outcome counts."""
    return ", ".join(f"{n} {state}" for state, n in row.items() if state != "total" and n)


def stats_lines(found: Stats) -> list[Text]:
    since = f" submitted since {found.since.isoformat()}" if found.since else ""
    lines = [_heading(f"{found.handoffs} handoffs{since}")]
    if found.undated:
        lines.append(Text(f"{found.undated} with no readable submit time", style="dim"))
    lines.append(Text(_counts({"total": 0, **found.by_outcome}) or "nothing submitted yet"))
    lines.append(Text(found.times_line()))
    if found.by_decider:
        lines += [Text(), _heading("Who decided")]
        for c in found.by_decider:
            line = Text("  ")
            line.append(safe(c.decider.name, _LONGEST_TEXT), style="bold")
            line.append(f" ({c.decider.kind})  {c.approved} approved, {c.rejected} rejected")
            lines.append(line)
    for title, rows in (("By phase", found.by_phase), ("By tool", found.by_tool)):
        if rows:
            lines += [Text(), _heading(title)]
            for name, row in rows.items():
                line = Text("  ")
                line.append(safe(name, _LONGEST_TEXT), style="bold")
                line.append(f"  {row['total']}: {_counts(row)}")
                lines.append(line)
    categories = {k: v for k, v in found.reject_categories.items() if v}
    if categories:
        lines += [Text(), _heading("Reject categories")]
        lines.append(Text("  " + ", ".join(f"{n} {name}" for name, n in categories.items())))
    if found.top_reasons:
        lines += [Text(), _heading("Most common reject reasons")]
        for text, count in found.top_reasons:
            line = Text(f"  {count}× ")
            line.append(safe(text, _LONGEST_TEXT))
            lines.append(line)
    if found.by_day:
        lines += [Text(), _heading("Submitted each day (UTC), rejects in red")]
        lines += day_bars(found.by_day)
    return lines


def day_bars(by_day: dict[str, dict[str, int]]) -> list[Text]:
    """Scaled to the busiest day; the rejected part red, so a bad day shows at a glance."""
    busiest = max(row["total"] for row in by_day.values())
    lines = []
    for day, row in by_day.items():
        cells = round(BAR_CELLS * row["total"] / busiest) if busiest else 0
        rejected = round(BAR_CELLS * row["rejected"] / busiest) if busiest else 0
        line = Text(f"  {day} ")
        line.append("█" * rejected, style="red")
        line.append("█" * (cells - rejected), style="green")
        line.append(f" {row['total']}")
        if row["rejected"]:
            line.append(f" ({row['rejected']} rejected)", style="red")
        lines.append(line)
    return lines
