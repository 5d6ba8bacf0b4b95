"""handoff-gate: a fail-closed human-approval gate for JSON handoffs between pipeline phases.

A pipeline needs three calls, on a ``Gate`` that owns the store, the contracts, the
policy and the key (or through the module functions, which make one per call)::

    import handoff_gate as hg

    with hg.Gate("runs") as gate:         # a folder of runs, a postgresql:// URL, a RunStore
        ref = gate.submit("job-17", reply_bytes, phase="plan", schema_id="plan/v1")
        result = gate.wait("job-17", ref)  # or: await gate.wait_async("job-17", ref)
    if result.outcome == "approved":
        next_phase(result.payload)

Installing the distribution adds this one import name. Its parts keep the repository's
layout: ``handoff_gate.schemas`` (contracts), ``handoff_gate.gates`` (the UI-free core),
``handoff_gate.tui`` (the Textual app) and ``handoff_gate.cli`` (the command line).

This module is the library's entry point and one of the places where loading is
deferred (all of them are listed once, in docs/architecture.md): a name below is
imported on first use, so ``import handoff_gate`` (which every ``handoff-gate`` command
does) stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from handoff_gate.gates.api import (
        add_contract,
        decide,
        inspect_in_run,
        read_decision,
        submit,
        wait,
        wait_async,
    )
    from handoff_gate.gates.audit.decision_record import Decision, DecisionCorrupt
    from handoff_gate.gates.contracts.json_schema import JsonSchemaError
    from handoff_gate.gates.contracts.registry import RegistryError, load_registry
    from handoff_gate.gates.decide.decisions import DecisionRefused, EditRefused
    from handoff_gate.gates.decide.withdrawal import WithdrawRefused
    from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult
    from handoff_gate.gates.gate import Gate
    from handoff_gate.gates.inspect.handoff_file import inspect_file, inspect_handoff
    from handoff_gate.gates.inspect.stages import InspectOptions, inspect
    from handoff_gate.gates.standing.standing import Standing
    from handoff_gate.gates.store.base import ContractConflict, RunStore
    from handoff_gate.gates.store.filesystem import FilesystemStore, find_runs, list_handoffs
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.gates.vocab.actions import Action, Category
    from handoff_gate.gates.vocab.findings import Code, Finding, Severity, Verdict
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.gates.vocab.report import FieldRow, FieldState, Report
    from handoff_gate.gates.vocab.states import HandoffState, state_of

_CORE = "handoff_gate.gates."
_HOMES: dict[str, str] = {
    "JsonSchemaError": "contracts.json_schema",
    "RegistryError": "contracts.registry",
    "load_registry": "contracts.registry",
    "inspect": "inspect.stages",
    "InspectOptions": "inspect.stages",
    "inspect_file": "inspect.handoff_file",
    "inspect_handoff": "inspect.handoff_file",
    "Gate": "gate",
    "add_contract": "api",
    "decide": "api",
    "inspect_in_run": "api",
    "read_decision": "api",
    "submit": "api",
    "wait": "api",
    "wait_async": "api",
    "Decision": "audit.decision_record",
    "DecisionCorrupt": "audit.decision_record",
    "DecisionRefused": "decide.decisions",
    "EditRefused": "decide.decisions",
    "WithdrawRefused": "decide.withdrawal",
    "WaitOutcome": "deliver.pickup",
    "WaitResult": "deliver.pickup",
    "Standing": "standing.standing",
    "ContractConflict": "store.base",
    "RunStore": "store.base",
    "FilesystemStore": "store.filesystem",
    "HandoffRef": "vocab.handoff_ref",
    "find_runs": "store.filesystem",
    "list_handoffs": "store.filesystem",
    "Policy": "trust.policy",
    "SigningKey": "trust.signing_key",
    "Action": "vocab.actions",
    "Category": "vocab.actions",
    "Code": "vocab.findings",
    "Finding": "vocab.findings",
    "Severity": "vocab.findings",
    "Verdict": "vocab.findings",
    "FieldRow": "vocab.report",
    "FieldState": "vocab.report",
    "Report": "vocab.report",
    "HandoffState": "vocab.states",
    "state_of": "vocab.states",
}

__all__ = [
    "Action",
    "Category",
    "Code",
    "ContractConflict",
    "Decision",
    "DecisionCorrupt",
    "DecisionRefused",
    "EditRefused",
    "FieldRow",
    "FieldState",
    "FilesystemStore",
    "Finding",
    "Gate",
    "HandoffRef",
    "HandoffState",
    "InspectOptions",
    "JsonSchemaError",
    "Policy",
    "RegistryError",
    "Report",
    "RunStore",
    "Severity",
    "SigningKey",
    "Standing",
    "Verdict",
    "WaitOutcome",
    "WaitResult",
    "WithdrawRefused",
    "add_contract",
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
    "wait_async",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'handoff_gate' has no attribute {name!r}")
    value = getattr(import_module(_CORE + home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
