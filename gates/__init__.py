"""handoff-gate's UI-free core: inspect a handoff, store it, decide on it, wait for the decision.

A pipeline needs only these names::

    from gates import load_registry, submit, wait

    ref = submit(run_dir, reply_bytes, phase="plan", schema_id="plan/v1")
    result = wait(run_dir, ref.id, registry=load_registry())

Names load lazily so that ``import gates`` (and the CLI built on it) pays only for what
it uses: the watcher library is imported by ``wait``, not by ``inspect``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gates.decisions import Decision, DecisionRefused, decide, read_decision
    from gates.findings import Code, Finding, Severity, Verdict
    from gates.inspection import inspect, inspect_file, inspect_handoff
    from gates.registry import RegistryError, load_registry
    from gates.report import FieldRow, FieldState, Report
    from gates.status import HandoffState, state_of
    from gates.store import HandoffRef, find_runs, inspect_in_run, list_handoffs, submit
    from gates.waiting import WaitOutcome, WaitResult, wait

_HOMES = {
    "Decision": "gates.decisions",
    "DecisionRefused": "gates.decisions",
    "decide": "gates.decisions",
    "read_decision": "gates.decisions",
    "Code": "gates.findings",
    "Finding": "gates.findings",
    "Severity": "gates.findings",
    "Verdict": "gates.findings",
    "inspect": "gates.inspection",
    "inspect_file": "gates.inspection",
    "inspect_handoff": "gates.inspection",
    "RegistryError": "gates.registry",
    "load_registry": "gates.registry",
    "FieldRow": "gates.report",
    "FieldState": "gates.report",
    "Report": "gates.report",
    "HandoffState": "gates.status",
    "state_of": "gates.status",
    "HandoffRef": "gates.store",
    "find_runs": "gates.store",
    "inspect_in_run": "gates.store",
    "list_handoffs": "gates.store",
    "submit": "gates.store",
    "WaitOutcome": "gates.waiting",
    "WaitResult": "gates.waiting",
    "wait": "gates.waiting",
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
