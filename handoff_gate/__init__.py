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
    from handoff_gate.gates.api import add_contract as add_contract
    from handoff_gate.gates.api import decide as decide
    from handoff_gate.gates.api import inspect_in_run as inspect_in_run
    from handoff_gate.gates.api import read_decision as read_decision
    from handoff_gate.gates.api import submit as submit
    from handoff_gate.gates.api import wait as wait
    from handoff_gate.gates.api import wait_async as wait_async
    from handoff_gate.gates.audit.decision_record import Decision as Decision
    from handoff_gate.gates.audit.decision_record import DecisionCorrupt as DecisionCorrupt
    from handoff_gate.gates.contracts.json_schema import JsonSchemaError as JsonSchemaError
    from handoff_gate.gates.contracts.registry import RegistryError as RegistryError
    from handoff_gate.gates.contracts.registry import load_registry as load_registry
    from handoff_gate.gates.decide.decisions import DecisionRefused as DecisionRefused
    from handoff_gate.gates.decide.decisions import EditRefused as EditRefused
    from handoff_gate.gates.decide.withdrawal import WithdrawRefused as WithdrawRefused
    from handoff_gate.gates.deliver.pickup import WaitOutcome as WaitOutcome
    from handoff_gate.gates.deliver.pickup import WaitResult as WaitResult
    from handoff_gate.gates.gate import Gate as Gate
    from handoff_gate.gates.inspect.handoff_file import inspect_file as inspect_file
    from handoff_gate.gates.inspect.handoff_file import inspect_handoff as inspect_handoff
    from handoff_gate.gates.inspect.stages import InspectOptions as InspectOptions
    from handoff_gate.gates.inspect.stages import inspect as inspect
    from handoff_gate.gates.standing.standing import Standing as Standing
    from handoff_gate.gates.store.base import ContractConflict as ContractConflict
    from handoff_gate.gates.store.base import RunStore as RunStore
    from handoff_gate.gates.store.filesystem import FilesystemStore as FilesystemStore
    from handoff_gate.gates.store.filesystem import find_runs as find_runs
    from handoff_gate.gates.store.filesystem import list_handoffs as list_handoffs
    from handoff_gate.gates.trust.policy import Policy as Policy
    from handoff_gate.gates.trust.signing_key import SigningKey as SigningKey
    from handoff_gate.gates.vocab.actions import Action as Action
    from handoff_gate.gates.vocab.actions import Category as Category
    from handoff_gate.gates.vocab.findings import Code as Code
    from handoff_gate.gates.vocab.findings import Finding as Finding
    from handoff_gate.gates.vocab.findings import Severity as Severity
    from handoff_gate.gates.vocab.findings import Verdict as Verdict
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef as HandoffRef
    from handoff_gate.gates.vocab.report import FieldRow as FieldRow
    from handoff_gate.gates.vocab.report import FieldState as FieldState
    from handoff_gate.gates.vocab.report import Report as Report
    from handoff_gate.gates.vocab.states import HandoffState as HandoffState
    from handoff_gate.gates.vocab.states import state_of as state_of

_CORE = "handoff_gate.gates."
#: Each public name by the module of ``gates`` it lives in, imported on first use.
_HOMES: dict[str, str] = {
    name: home
    for home, names in {
        "contracts.json_schema": ("JsonSchemaError",),
        "contracts.registry": ("RegistryError", "load_registry"),
        "inspect.stages": ("inspect", "InspectOptions"),
        "inspect.handoff_file": ("inspect_file", "inspect_handoff"),
        "gate": ("Gate",),
        "api": (
            "add_contract",
            "decide",
            "inspect_in_run",
            "read_decision",
            "submit",
            "wait",
            "wait_async",
        ),
        "audit.decision_record": ("Decision", "DecisionCorrupt"),
        "decide.decisions": ("DecisionRefused", "EditRefused"),
        "decide.withdrawal": ("WithdrawRefused",),
        "deliver.pickup": ("WaitOutcome", "WaitResult"),
        "standing.standing": ("Standing",),
        "store.base": ("ContractConflict", "RunStore"),
        "store.filesystem": ("FilesystemStore", "find_runs", "list_handoffs"),
        "vocab.handoff_ref": ("HandoffRef",),
        "trust.policy": ("Policy",),
        "trust.signing_key": ("SigningKey",),
        "vocab.actions": ("Action", "Category"),
        "vocab.findings": ("Code", "Finding", "Severity", "Verdict"),
        "vocab.report": ("FieldRow", "FieldState", "Report"),
        "vocab.states": ("HandoffState", "state_of"),
    }.items()
    for name in names
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'handoff_gate' has no attribute {name!r}")
    value = getattr(import_module(_CORE + home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
