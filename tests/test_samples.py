"""The committed sample runs must keep showing exactly the findings their READMEs promise."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from handoff_gate.gates.api import inspect_in_run, read_decision
from handoff_gate.gates.audit import log as audit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.store.filesystem import FilesystemStore, list_handoffs, read_handoff_bytes
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.findings import Code, Finding, Severity

SAMPLES = Path(__file__).resolve().parent.parent / "sample_runs"
EXPECTED = json.loads((SAMPLES / "expected_findings.json").read_text(encoding="utf-8"))
RUNS: dict[str, Any] = EXPECTED["runs"]
HANDOFFS = [(run, hid) for run, spec in RUNS.items() for hid in spec["handoffs"]]
#: Codes a sample cannot honestly show (see sample_runs/README.md).
NOT_SAMPLED = {
    Code.OVERSIZE,
    Code.BAD_ENVELOPE,
    Code.INTERNAL_ERROR,
    Code.MISPLACED,
    Code.UNSIGNED_HANDOFF,
    Code.UNKNOWN_PRODUCER,
    # Only an open JSON-Schema contract yields it; runs with JSON-Schema contracts come
    # with the run-stored contracts (issue 23, second part). tests/test_json_schema_*.
    Code.OPEN_KEY,
    # Only a JSON-Schema contract naming a format the validator does not know yields it.
    Code.UNCHECKED_FORMAT,
    # Only a tool call under a JSON-Schema contract (or a key a phase's delivery needs
    # though the contract does not name it) yields it; tests/test_json_schema_delivery.
    Code.UNNAMED_KEY,
    # Only a JSON-Schema contract the gate cannot place a reference of, or past its
    # bounds, yields these (tests/test_json_schema_delivery, test_json_schema_plan).
    Code.UNDELIVERABLE,
    Code.OVER_BUDGET,
    # Only a coding agent's tool call under a contract marked as opening a session
    # (Codex's exec_command) yields it; tests/test_tool_session.py.
    Code.INTERACTIVE_SESSION,
}


def registry_for(run: str) -> Any:
    spec = RUNS[run]["schemas"]
    return load_registry(str(SAMPLES / spec) if spec else "")


def notation(finding: Finding) -> str:
    mark = "!" if finding.severity is Severity.BLOCK else "?"
    return f"{finding.code.value}{mark}{finding.path}"


def findings_of(root: Path, run: str, handoff: str) -> list[str]:
    report = inspect_in_run(root / run, handoff, registry_for(run))
    return sorted(notation(f) for f in report.findings)


@pytest.mark.parametrize(("run", "handoff"), HANDOFFS, ids=[f"{r}/{h}" for r, h in HANDOFFS])
def test_findings_are_the_documented_ones(run: str, handoff: str) -> None:
    expected = sorted(RUNS[run]["handoffs"][handoff]["findings"])
    got = findings_of(SAMPLES, run, handoff)
    assert got == expected, f"{run}/{handoff} drifted from sample_runs/README.md"


@pytest.mark.parametrize("run", list(RUNS))
def test_every_handoff_on_disk_is_documented(run: str) -> None:
    on_disk = [ref.id for ref in list_handoffs(SAMPLES / run)]
    assert on_disk == list(RUNS[run]["handoffs"])


@pytest.mark.parametrize(("run", "handoff"), HANDOFFS, ids=[f"{r}/{h}" for r, h in HANDOFFS])
def test_decisions_match_the_reviewed_bytes(run: str, handoff: str) -> None:
    run_dir = SAMPLES / run
    decision = read_decision(run_dir, handoff)
    documented = RUNS[run]["handoffs"][handoff]["decision"]
    if documented is None:
        assert decision is None
        return
    assert decision is not None, f"{run}/{handoff} should be {documented}d"
    assert decision.action is Action(documented)
    assert decision.sha256 == hashlib.sha256(read_handoff_bytes(run_dir, handoff)).hexdigest()
    if decision.action is Action.REJECT:
        assert decision.reason and decision.category is not None


@pytest.mark.parametrize("run", list(RUNS))
def test_audit_chain_is_intact(run: str) -> None:
    assert audit.verify_chain(SAMPLES / run, FilesystemStore()) == []


def test_samples_show_every_finding_a_sample_can_show() -> None:
    shown = {
        f.split("!")[0].split("?")[0]
        for r in RUNS.values()
        for h in r["handoffs"].values()
        for f in h["findings"]
    }
    assert {c.value for c in Code} - NOT_SAMPLED == shown


def test_at_least_two_runs_pass_end_to_end() -> None:
    clean = [
        name
        for name, run in RUNS.items()
        if all(not h["findings"] and h["decision"] == "approve" for h in run["handoffs"].values())
    ]
    assert len(clean) >= 2


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("sample_generate", SAMPLES / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_expectation_file_matches_the_scenarios() -> None:
    assert _generator().expectations() == EXPECTED


def files_of(root: Path, run: str) -> dict[str, bytes]:
    return {
        str(p.relative_to(root / run)): p.read_bytes()
        for p in sorted((root / run).rglob("*"))
        if p.is_file()
    }


def test_generator_reproduces_the_committed_runs_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLES / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for run in RUNS:
        fresh, committed = files_of(tmp_path, run), files_of(SAMPLES, run)
        assert sorted(fresh) == sorted(committed), f"{run}: regenerate with sample_runs/generate.py"
        for name, data in fresh.items():
            assert data == committed[name], f"{run}/{name}: regenerate with sample_runs/generate.py"
    for name in ("README.md", "expected_findings.json"):
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes()
