"""Write the sample run directories through the real gate API, never by hand.

Run with the project venv: ``.venv/bin/python sample_runs/generate.py [--out DIR]``.
Handoffs go through ``gates.submit.submit.submit`` and decisions through
``gates.decide.decisions.decide``, so hashes, ids and the audit chain are the gate's own. The
gate's clock (``gates.audit.log.now_iso``) is replaced by a stepped one, the way the TUI
tests fix it, so every file comes out byte for byte the same on each run of the generator.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scenarios import RUNS, Run, Step  # noqa: E402

from handoff_gate.gates.api import decide, submit  # noqa: E402
from handoff_gate.gates.audit import log as audit  # noqa: E402
from handoff_gate.gates.contracts.registry import load_registry  # noqa: E402
from handoff_gate.gates.vocab.absent import ABSENT  # noqa: E402
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES  # noqa: E402

EXPECTED = "expected_findings.json"
#: When the first sample run starts; each later run starts a day later.
EPOCH = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class SteppedClock:
    """Stands in for the wall clock: every reading is 47 seconds after the previous one."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> str:
        self.now += timedelta(seconds=47)
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_run(run: Run, out: Path) -> dict[str, Any]:
    """Recreate one run directory under ``out``; return its expectations by handoff id."""
    run_dir = out / run.name
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    registry = load_registry(str(HERE / run.schemas) if run.schemas else "")
    handoffs: dict[str, Any] = {}
    for step in run.steps:
        ref = submit(
            run_dir,
            step.raw,
            phase=step.phase,
            schema_id=step.schema,
            from_role=step.from_role,
            to_role=step.to_role,
            finish_reason=step.finish_reason,
            output_tokens=step.output_tokens,
            upstream_payload=step.upstream if step.has_upstream else ABSENT,
            registry=registry,
            allow_unknown_schema=True,
            json_schema=_json_schema(step),
        )
        if step.decision is not None:
            decide(
                run_dir,
                ref.id,
                step.decision.action,
                reason=step.decision.reason,
                category=step.decision.category,
                reviewer=step.decision.reviewer,
                registry=registry,
            )
        handoffs[ref.id] = {
            "note": step.note,
            "findings": list(step.expect),
            "decision": step.decision.action if step.decision else None,
        }
    (run_dir / "README.md").write_text(run_readme(run, handoffs), encoding="utf-8")
    return {"summary": run.summary, "schemas": run.schemas, "handoffs": handoffs}


def _json_schema(step: Step) -> dict[str, Any] | None:
    """The step's JSON Schema contract, read from ``dex-contracts/``, if it has one."""
    if step.json_schema is None:
        return None
    loaded: dict[str, Any] = json.loads((HERE / "dex-contracts" / step.json_schema).read_text())
    return loaded


def expectations() -> dict[str, Any]:
    """The documented expectations, from the scenarios alone (no directory is written)."""
    runs: dict[str, Any] = {}
    for run in RUNS:
        handoffs = {}
        for seq, step in enumerate(run.steps, start=1):
            handoffs[f"{seq:04d}-{step.phase}"] = describe(step)
        runs[run.name] = {"summary": run.summary, "schemas": run.schemas, "handoffs": handoffs}
    return {"format": "code!path = block, code?path = warn", "runs": runs}


def describe(step: Step) -> dict[str, Any]:
    return {
        "note": step.note,
        "findings": list(step.expect),
        "decision": step.decision.action if step.decision else None,
    }


def _findings_cell(findings: list[str]) -> str:
    return ", ".join(f"`{f}`" for f in findings) if findings else "none"


def _decision_cell(step: dict[str, Any]) -> str:
    return {"approve": "approved", "reject": "rejected", None: "undecided"}[step["decision"]]


def _table(handoffs: dict[str, Any]) -> list[str]:
    lines = ["| handoff | what | expected findings | decision |", "|---|---|---|---|"]
    for hid, step in handoffs.items():
        row = f"| {hid} | {step['note']} | {_findings_cell(step['findings'])} |"
        lines.append(f"{row} {_decision_cell(step)} |")
    return lines


def run_readme(run: Run, handoffs: dict[str, Any]) -> str:
    lines = [f"# {run.name}", "", run.summary, ""]
    if run.schemas:
        lines += [f"Contracts: `--schemas ../{run.schemas}`.", ""]
    if any(step.json_schema for step in run.steps):
        lines += [
            "Contracts: stored in the run (`contracts/`, see `handoff-gate contracts list`).",
            "",
        ]
    return "\n".join([*lines, *_table(handoffs)]) + "\n"


INTRO = """# Sample runs

Run directories in the gate's real on-disk format, written by `generate.py` through the
gate's own `submit` and `decide`. Together they show every finding code in a situation
where it really happens. Browse them with
`handoff-gate watch sample_runs --schemas sample_runs/lenient_contracts.py`.

Findings are written `code!path` (blocks approval) or `code?path` (a warning); an empty
path means the whole payload. `expected_findings.json` holds the same list for
`tests/test_samples.py`. Regenerate with `.venv/bin/python sample_runs/generate.py`; the
generator uses a stepped clock, so its output is the same byte for byte every time.

Not sampled: `oversize` (a handoff over the {cap} MiB cap does not belong in a repository),
`bad_envelope` and `internal_error` (they describe a damaged file or a gate bug, which the
API cannot write).

[dex-contracts](dex-contracts/README.md) is not a run: the Dex feature loop's four
contracts as JSON Schema files, with a good and a bad reply each, for
`handoff-gate check PAYLOAD --json-schema FILE`.
"""


def index_readme(expected: dict[str, Any]) -> str:
    lines = [INTRO.format(cap=MAX_HANDOFF_BYTES // 2**20)]
    for name, run in expected["runs"].items():
        lines += [f"## [{name}]({name}/README.md)", "", run["summary"], ""]
        lines += [*_table(run["handoffs"]), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=HERE, help="where to write the runs")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    written = {}
    for day, run in enumerate(RUNS):
        audit.now_iso = SteppedClock(EPOCH + timedelta(days=day))
        written[run.name] = write_run(run, out)
    expected = expectations()
    if {name: run["handoffs"] for name, run in written.items()} != {
        name: run["handoffs"] for name, run in expected["runs"].items()
    }:
        print("handoff ids differ from the scenario order: is the output directory shared?")
        return 1
    (out / EXPECTED).write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n")
    (out / "README.md").write_text(index_readme(expected), encoding="utf-8")
    print(f"wrote {len(RUNS)} runs to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
