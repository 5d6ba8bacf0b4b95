"""handoff-gate's UI-free core: inspect a handoff, store it, decide on it, wait for the decision.

A pipeline needs only these names::

    from handoff_gate.gates import load_registry, submit, wait

    ref = submit(run_dir, reply_bytes, phase="plan", schema_id="plan/v1")
    result = wait(run_dir, ref.id, registry=load_registry())

Names load lazily so that ``import gates`` (and the CLI built on it) pays only for what
it uses: the watcher library is imported by ``wait``, not by ``inspect``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from handoff_gate.gates.decisions import Decision, DecisionRefused, decide, read_decision
    from handoff_gate.gates.findings import Code, Finding, Severity, Verdict
    from handoff_gate.gates.inspection import inspect, inspect_file, inspect_handoff
    from handoff_gate.gates.registry import RegistryError, load_registry
    from handoff_gate.gates.report import FieldRow, FieldState, Report
    from handoff_gate.gates.status import HandoffState, state_of
    from handoff_gate.gates.store import (
        HandoffRef,
        find_runs,
        inspect_in_run,
        list_handoffs,
        submit,
    )
    from handoff_gate.gates.waiting import WaitOutcome, WaitResult, wait

_HOMES = {
    "Decision": "handoff_gate.gates.decisions",
    "DecisionRefused": "handoff_gate.gates.decisions",
    "decide": "handoff_gate.gates.decisions",
    "read_decision": "handoff_gate.gates.decisions",
    "Code": "handoff_gate.gates.findings",
    "Finding": "handoff_gate.gates.findings",
    "Severity": "handoff_gate.gates.findings",
    "Verdict": "handoff_gate.gates.findings",
    "inspect": "handoff_gate.gates.inspection",
    "inspect_file": "handoff_gate.gates.inspection",
    "inspect_handoff": "handoff_gate.gates.inspection",
    "RegistryError": "handoff_gate.gates.registry",
    "load_registry": "handoff_gate.gates.registry",
    "FieldRow": "handoff_gate.gates.report",
    "FieldState": "handoff_gate.gates.report",
    "Report": "handoff_gate.gates.report",
    "HandoffState": "handoff_gate.gates.status",
    "state_of": "handoff_gate.gates.status",
    "HandoffRef": "handoff_gate.gates.store",
    "find_runs": "handoff_gate.gates.store",
    "inspect_in_run": "handoff_gate.gates.store",
    "list_handoffs": "handoff_gate.gates.store",
    "submit": "handoff_gate.gates.store",
    "WaitOutcome": "handoff_gate.gates.waiting",
    "WaitResult": "handoff_gate.gates.waiting",
    "wait": "handoff_gate.gates.waiting",
}

__all__ = [
    "Code",
    "Decision",
    "DecisionRefused",
    "FieldRow",
    "FieldState",
    "Finding",
    "HandoffRef",
    "HandoffState",
    "RegistryError",
    "Report",
    "Severity",
    "Verdict",
    "WaitOutcome",
    "WaitResult",
    "decide",
    "find_runs",
    "inspect",
    "inspect_file",
    "inspect_handoff",
    "inspect_in_run",
    "list_handoffs",
    "load_registry",
    "read_decision",
    "state_of",
    "submit",
    "wait",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'gates' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
