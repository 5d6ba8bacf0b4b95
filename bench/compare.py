"""``python -m bench.compare BEFORE.json [...] --after AFTER.json [...]``: a before/after table.

Each side is one or more result files of ``python -m bench`` (repeated runs of the same
code); a figure's value and ratio on a side are the medians over that side's runs. The
table (Markdown) has one row per figure present on both sides, with the change of the
value and of the ratio; a figure is flagged when its ratio got worse by more than
``--worse`` (default 10%). Both sides' machine notes (load average) are printed too.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

#: Start-up ratios are judged against ``import pydantic`` on both sides: older runs only
#: had that baseline, newer ones keep it in ``extra``.
_IMPORT_RATIO = "ratio_to_import_pydantic"


def _load(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def _ratio(figure: dict[str, Any]) -> float | None:
    if figure["name"].startswith("startup.") and figure["name"] != "startup.watch_paint":
        extra = figure.get("extra") or {}
        if _IMPORT_RATIO in extra:
            return float(extra[_IMPORT_RATIO])
    ratio = figure.get("ratio")
    return float(ratio) if ratio is not None else None


def _side(runs: list[dict[str, Any]]) -> dict[str, tuple[float, float | None, str, str]]:
    """``{figure: (median value, median ratio, stat, unit)}`` over the runs of one side."""
    values: dict[str, list[float]] = {}
    ratios: dict[str, list[float]] = {}
    meta: dict[str, tuple[str, str]] = {}
    for doc in runs:
        for f in doc["figures"]:
            if f.get("error") or not f.get("value"):
                continue
            stat = f.get("ratio_stat") or "median"
            values.setdefault(f["name"], []).append(float(f["value"][stat]))
            ratio = _ratio(f)
            if ratio is not None:
                ratios.setdefault(f["name"], []).append(ratio)
            meta[f["name"]] = (stat, f["unit"])
    return {
        name: (
            statistics.median(vals),
            statistics.median(ratios[name]) if name in ratios else None,
            *meta[name],
        )
        for name, vals in values.items()
    }


def _change(before: float | None, after: float | None) -> str:
    if before is None or after is None or before == 0:
        return ""
    return f"{(after / before - 1) * 100:+.0f}%"


def table(before: list[dict[str, Any]], after: list[dict[str, Any]], worse: float) -> str:
    old, new = _side(before), _side(after)
    lines = [
        "| figure | stat | before value | after value | Δ value | before ratio | after ratio "
        f"| Δ ratio | ratio >{worse:.0%} worse |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in [n for n in new if n in old]:
        ov, orat, stat, unit = old[name]
        nv, nrat, _, _ = new[name]
        flagged = orat is not None and nrat is not None and nrat > orat * (1 + worse)
        lines.append(
            f"| {name} | {stat} | {ov:.3g} {unit} | {nv:.3g} {unit} | {_change(ov, nv)} "
            f"| {orat or 0:.2f}× | {nrat or 0:.2f}× | {_change(orat, nrat)} "
            f"| {'**yes**' if flagged else 'no'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__)
    parser.add_argument("before", nargs="+", type=Path, help="result files of the old code")
    parser.add_argument("--after", nargs="+", type=Path, required=True, help="of the new code")
    parser.add_argument("--worse", type=float, default=0.10, help="flag threshold (0.10)")
    args = parser.parse_args(argv)
    before, after = _load(args.before), _load(args.after)
    for label, runs in (("before", before), ("after", after)):
        for doc in runs:
            m = doc["machine"]
            print(f"- {label}: commit {m.get('commit')}, load average {m.get('loadavg')}")
    print()
    print(table(before, after, args.worse))


if __name__ == "__main__":
    main()
