"""``python -m bench.markdown [RESULTS.json]``: a results file as the Markdown table in
docs/performance.md, so the documented run is pasted, never retyped."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.__main__ import DEFAULT_JSON


def _pair(s: dict[str, float] | None) -> str:
    return f"{s['median']:.3g} / {s['p95']:.3g}" if s else "-"


def table(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    libs = ", ".join(f"{k} {v}" for k, v in m["libraries"].items())
    lines = [
        f"Run of {m['date']} at commit `{m['commit']}`, profile `{doc['profile']}`, "
        f"{doc['elapsed_s']:.0f} s: {m['nproc']} cores, load average {m['loadavg']} at start, "
        f"Python {m['python']} on {m['platform']}; {libs}.",
        "",
        "| figure | ratio | value med / p95 | baseline med / p95 | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for f in doc["figures"]:
        if f["error"]:
            lines.append(f"| {f['name']} | error: {f['error'][:120]} | | | | |")
            continue
        ratio = f"{f['ratio']:.2f}× ({f['ratio_stat']})" if f["ratio"] is not None else "-"
        met = {True: "yes", False: "**no**", None: ""}[f["met"]]
        lines.append(
            f"| {f['name']} | {ratio} | {_pair(f['value'])} {f['unit']} | "
            f"{_pair(f['baseline'])} ({f['baseline_name']}) | {f['target'] or ''} | {met} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_JSON
    print(table(json.loads(path.read_text(encoding="utf-8"))))
