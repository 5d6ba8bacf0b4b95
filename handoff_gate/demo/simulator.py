"""A simulated plan → design → verify pipeline that blocks on the gate at every handoff.

``handoff-gate demo`` runs it in a child process: each phase submits its draft, waits
through the real ``handoff_gate.wait``, moves on with only the approved fields, and
answers a rejection with a revised draft that quotes the reviewer's reason, so the TUI's
diff view has a re-plan to show. Its exit code says how it ended: 0 every phase
approved, 1 it could not go on, ``STOPPED`` stopped early.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handoff_gate.gates.api import submit, wait
from handoff_gate.gates.audit.decision_record import DecisionCorrupt
from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.deliver.pickup import WaitOutcome
from handoff_gate.gates.setup import load_contracts

LIVE_RUN = "live-pipeline"
#: The exit code of a pipeline stopped (SIGTERM, SIGINT) before it finished, as ``wait``'s.
STOPPED = 130

Draft = Callable[[str | None], dict[str, Any]]


def _feedback(reason: str | None) -> str:
    """The reviewer's reason as one short line, the shape a ``Line`` field accepts."""
    text = " ".join((reason or "no reason given").split())
    return f"Reviewer asked: {text[:200]}"


def plan_first(_: str | None) -> dict[str, Any]:
    return {
        "problem_statement": (
            "Customers churn after failed card payments because nobody follows up; build "
            "a job that retries failed payments and emails the customer."
        ),
        "research_questions": [
            "How many failed payments recover on a second attempt?",
            "Which email template does support already use for payment problems?",
        ],
        "hypotheses": ["Retrying after 3 days recovers a third of failed payments"],
        "success_criteria": ["Recovered revenue is reported weekly"],
        "constraints": ["Use the billing provider's retry API"],
        "risks": ["Emailing customers twice about the same invoice"],
        "recommended_profile": "web_service",
    }


def plan_revised(reason: str | None) -> dict[str, Any]:
    plan = plan_first(reason)
    plan["problem_statement"] = (
        "Customers churn after failed card payments; start with a read-only report of "
        "failed payments and which of them recover on their own."
    )
    plan["success_criteria"] = [
        "The report lists every failed payment of the last 30 days",
        "It says which of them recovered without action",
    ]
    plan["constraints"] = ["Read-only: no retries and no emails in this phase", _feedback(reason)]
    plan["recommended_profile"] = "data_analysis"
    return plan


def design_first(_: str | None) -> dict[str, Any]:
    return {
        "files": [
            {"path": "recovery/report.py", "purpose": "Builds the failed-payments report"},
            {"path": "recovery/billing.py", "purpose": "Reads payment attempts, read-only"},
        ],
        "entry_point": "recovery/report.py",
        "dependencies": ["httpx>=0.27"],
        "run_command": "python -m recovery.report --days 30",
    }


def design_revised(reason: str | None) -> dict[str, Any]:
    design = design_first(reason)
    design["files"].append(
        {"path": "tests/test_report.py", "purpose": "Checks the report on recorded attempts"}
    )
    design["dependencies"].append("pytest>=8")
    return design


def verify_claimed(_: str | None) -> dict[str, Any]:
    """A verifier that says ``passed`` while listing a blocking failure: the gate blocks it."""
    return {
        "passed": True,
        "build_succeeded": True,
        "tests_succeeded": True,
        "failures": [
            {
                "criterion": "It says which of them recovered without action",
                "description": "Recovered payments are counted twice when retried by the bank.",
                "severity": "blocking",
            }
        ],
        "summary": "Report runs; all tests pass.",
    }


def verify_fixed(_: str | None) -> dict[str, Any]:
    return {
        "passed": True,
        "build_succeeded": True,
        "tests_succeeded": True,
        "failures": [
            {
                "criterion": "The report lists every failed payment of the last 30 days",
                "description": "Takes 40 s for 30 days; acceptable for a nightly job.",
                "severity": "minor",
            }
        ],
        "summary": "Double counting fixed by keying on the invoice id; report verified.",
    }


@dataclass(frozen=True)
class Phase:
    name: str
    schema: str
    from_role: str
    to_role: str
    drafts: Sequence[Draft]


PHASES = (
    Phase("plan", "plan/v1", "planner", "designer", (plan_first, plan_revised, plan_revised)),
    Phase("design", "design/v1", "designer", "builder", (design_first, design_revised)),
    Phase("verify", "verify_result/v1", "verifier", "orchestrator", (verify_claimed, verify_fixed)),
)


@dataclass(frozen=True)
class Pipeline:
    """Runs the phases against one run directory; ``log`` receives one line per event."""

    run_dir: Path
    registry: Registry
    stop: threading.Event
    log: Callable[[str], None]

    def gate(self, phase: Phase) -> dict[str, Any] | None:
        """Submit drafts until one is approved; ``None`` when the pipeline must stop."""
        reason: str | None = None
        for draft in phase.drafts:
            payload = draft(reason)
            raw = (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode()
            ref = submit(
                self.run_dir,
                raw,
                phase=phase.name,
                schema_id=phase.schema,
                from_role=phase.from_role,
                to_role=phase.to_role,
                finish_reason="stop",
            )
            self.log(f"{ref.id}: submitted, waiting for a decision")
            try:
                result = wait(self.run_dir, ref.id, registry=self.registry, stop_event=self.stop)
            except DecisionCorrupt as exc:
                self.log(f"{ref.id}: {exc}; stopping")
                return None
            if result.outcome is WaitOutcome.APPROVED and result.payload is not None:
                fields = ", ".join(result.payload)
                self.log(f"{ref.id}: approved; {phase.to_role} receives only: {fields}")
                return result.payload
            if result.outcome is not WaitOutcome.REJECTED or result.decision is None:
                self.log(f"{ref.id}: {result.outcome.value}, stopping")
                return None
            reason = result.decision.reason
            self.log(f"{ref.id}: rejected, revising")
        self.log(f"{phase.name}: no revision left, stopping")
        return None

    def run(self) -> int:
        for phase in PHASES:
            if self.gate(phase) is None:
                if self.stop.is_set():
                    self.log("stopped before the pipeline finished")
                    return STOPPED
                return 1
        self.log("pipeline finished: every phase approved")
        return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m handoff_gate.demo.simulator", description=__doc__
    )
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--run", default=LIVE_RUN, help="name of the live run directory")
    args = parser.parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    run_dir: Path = args.workspace / args.run
    run_dir.mkdir(parents=True, exist_ok=True)

    def log(line: str) -> None:
        print(f"simulator: {line}", flush=True)

    log(f"live run {run_dir}")
    return Pipeline(run_dir, load_contracts(None, policy=None), stop, log).run()


if __name__ == "__main__":
    sys.exit(main())
