"""Plain-text table of figures: ratio first, because absolute numbers drift on shared machines."""

from __future__ import annotations

from collections.abc import Sequence

from bench.figures import Figure
from bench.stats import Summary


def _num(x: float) -> str:
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _cell(s: Summary | None) -> str:
    return f"{_num(s.median)} / {_num(s.p95)}" if s else "-"


def _row(f: Figure) -> list[str]:
    if f.error:
        return [f.name, "ERROR", "", "", "", "", f.error[:300]]
    ratio = f"{f.ratio:.2f}× ({f.stat})" if f.ratio is not None else "-"
    met = {True: "met", False: "MISSED", None: ""}[f.met]
    target = f.target.describe(f.unit) if f.target else ""
    base = f"{_cell(f.baseline)} {f.baseline_name}".strip()
    return [f.name, ratio, f"{_cell(f.value)} {f.unit}", base, target, met, f.note]


HEADER = ["figure", "ratio", "value med / p95", "baseline med / p95", "target", "", "note"]


def render(figures: Sequence[Figure]) -> str:
    rows = [HEADER, *(_row(f) for f in figures)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER) - 1)]
    lines = []
    for i, r in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(r, widths, strict=False)]
        lines.append("  ".join([*cells, r[-1]]).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
