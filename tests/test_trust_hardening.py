"""Hardening that goes with trust: masked refusals, located duplicates, a bounded lookup."""

from __future__ import annotations

import json
from pathlib import Path

from handoff_gate.gates.api import decide, submit
from handoff_gate.gates.contracts.registry import load_registry
from handoff_gate.gates.inspect.handoff_file import inspect_handoff
from handoff_gate.gates.inspect.stages import inspect
from handoff_gate.gates.standing import report_in_run
from handoff_gate.gates.store.filesystem import FilesystemStore
from handoff_gate.gates.vocab.findings import Code
from handoff_gate.schemas import example_path

REGISTRY = load_registry("")
PLAN = example_path("plan/v1").read_bytes()
TOKEN = "ghp_" + "Ab1" * 12


def test_a_secret_in_the_producers_refusal_is_masked_everywhere(tmp_path: Path) -> None:
    hid = submit(tmp_path, b"{}", phase="plan", schema_id="plan/v1", refusal=f"cannot: {TOKEN}").id
    data = (tmp_path / "handoffs" / f"{hid}.json").read_bytes()
    report = inspect_handoff(data, REGISTRY)
    assert Code.REFUSAL in {f.code for f in report.findings}
    assert TOKEN not in json.dumps(report.to_json())


def test_duplicate_key_names_the_keys_path() -> None:
    report = inspect(b'{"steps": [{"id": 1}, {"id": 2, "id": 3}]}', "plan/v1", REGISTRY)
    found = [f for f in report.findings if f.code is Code.DUPLICATE_KEY]
    assert [f.path for f in found] == ["steps[1].id"]


class CountingStore(FilesystemStore):
    """The filesystem store, counting envelope reads: the lookup's cost in reads."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def handoff_bytes(self, run: str, handoff_id: str, max_bytes: int) -> bytes:
        self.reads += 1
        return super().handoff_bytes(run, handoff_id, max_bytes)


def test_a_rejected_handoff_is_no_baseline(tmp_path: Path) -> None:
    first = submit(tmp_path, b'{"a": 1}', phase="plan", schema_id="plan/v1").id
    decide(tmp_path, first, "reject", reason="no", registry=REGISTRY)
    store = CountingStore()
    second = submit(tmp_path, b'{"a": 2}', phase="plan", schema_id="plan/v1").id
    assert report_in_run.previous_payload(tmp_path, second, "plan/v1", None, store) is None


def _reads_for_lookup(run: Path, unrelated: int) -> int:
    baton = example_path("baton/v1").read_bytes()
    first = submit(run, baton, phase="handoff", schema_id="baton/v1").id
    decide(run, first, "approve", registry=REGISTRY)
    for _ in range(unrelated):
        submit(run, PLAN, phase="plan", schema_id="plan/v1")
    last = submit(run, baton, phase="handoff", schema_id="baton/v1").id
    store = CountingStore()
    found = report_in_run.previous_payload(run, last, "baton/v1", REGISTRY, store)
    assert found is not None and "decision_log" in found
    return store.reads


def test_the_append_only_lookup_reads_the_same_in_a_long_run(tmp_path: Path) -> None:
    """Reads, not seconds: the baseline is looked for among decided handoffs only, so
    undecided unrelated ones cost nothing."""
    short, long = tmp_path / "short", tmp_path / "long"
    short.mkdir()
    long.mkdir()
    assert _reads_for_lookup(short, 2) == _reads_for_lookup(long, 60) == 1
