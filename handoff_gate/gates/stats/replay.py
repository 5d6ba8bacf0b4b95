"""Replay: a policy's ``[[auto]]`` rules judged over every recorded handoff in a store.

What a changed policy *would have done* is the question a person asks before pinning
it, so it is answered read-only from the history: each handoff's standing beside what
the policy would do with its bytes (``Would``). ``CHANGE_ORDER`` ranks the differences
by danger, worst first (docs/security.md). A handoff a person would decide either way
does not differ, nor one a person rejected that the contract now blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.contracts.registry import Registry
from handoff_gate.gates.rules.judge import rule_for, subject_of
from handoff_gate.gates.standing.standing import Standing
from handoff_gate.gates.stats.facts import Decider, deciders_of
from handoff_gate.gates.stats.gather import standings
from handoff_gate.gates.store.base import RunStore
from handoff_gate.gates.submit.placement import producer_finding
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.safe_text import os_reason
from handoff_gate.gates.vocab.states import HandoffState

if TYPE_CHECKING:
    from handoff_gate.gates.rules.auto import AutoRule
    from handoff_gate.gates.trust.policy import Policy
    from handoff_gate.gates.vocab.report import Report


class Would(StrEnum):
    """What the replayed policy would do with a handoff's bytes now."""

    APPROVE = "approve"
    REJECT = "reject"
    ASK = "ask"
    BLOCKED = "blocked"


class Change(StrEnum):
    """How a handoff's outcome would differ, named for scripts (``replay --json``)."""

    #: A person rejected it; a rule would approve it.
    APPROVES_A_REJECT = "approves-a-reject"
    #: It was approved; the contract (under the replayed policy) blocks it now.
    BLOCKS_AN_APPROVAL = "blocks-an-approval"
    #: A person approved it; a rule would approve it without one.
    NO_PERSON = "no-person"
    #: Any other difference: a rule deciding what was left undecided or ended, a rule
    #: rejecting, a rule's approval that would now need a person, a new block.
    OTHER = "other"


#: The changes, most dangerous first: the order ``replay`` lists them in.
CHANGE_ORDER = (Change.APPROVES_A_REJECT, Change.BLOCKS_AN_APPROVAL, Change.NO_PERSON, Change.OTHER)


@dataclass(frozen=True, slots=True)
class Judged:
    """One handoff: what happened (``decided``, ``by``) and what the policy would do.
    ``why`` is the first blocking finding's message: payload text, make it safe before
    showing it."""

    ref: HandoffRef
    run: str
    phase: str
    tool: str | None
    decided: HandoffState
    by: tuple[Decider, ...]
    would: Would
    rule: str | None = None
    why: str = ""

    @property
    def by_person(self) -> bool:
        return any(d.kind == "person" for d in self.by)

    @property
    def change(self) -> Change | None:
        """How the outcome would differ (``None``: it would not)."""
        return change_of(self.decided, self.by_person, self.would)

    @property
    def decided_by(self) -> str:
        """Who decided, as a person reads it (``by_text``; empty when nobody did)."""
        return by_text(self.by)

    def to_json(self) -> dict[str, Any]:
        """This handoff's ``replay --json`` object (keys documented in docs/protocol.md)."""
        change = self.change
        return {
            "run": self.run,
            "id": self.ref.id,
            "phase": self.phase,
            "tool": self.tool,
            "decided": self.decided.value,
            "by": self.decided_by or None,
            "would": self.would.value,
            "rule": self.rule,
            "change": change.value if change is not None else None,
            "why": self.why or None,
        }


def change_of(decided: HandoffState, by_person: bool, would: Would) -> Change | None:
    """The difference between what happened and ``would``, as ``CHANGE_ORDER`` ranks it."""
    if decided is HandoffState.APPROVED:
        if would is Would.BLOCKED:
            return Change.BLOCKS_AN_APPROVAL
        if by_person:
            if would is Would.ASK:
                return None
            return Change.NO_PERSON if would is Would.APPROVE else Change.OTHER
        return None if would is Would.APPROVE else Change.OTHER
    if decided is HandoffState.REJECTED:
        if would is Would.APPROVE:
            return Change.APPROVES_A_REJECT if by_person else Change.OTHER
        if would is Would.BLOCKED:
            return None  # a blocked handoff is one a person can only reject
        if by_person:
            return None if would is Would.ASK else Change.OTHER
        return None if would is Would.REJECT else Change.OTHER
    if decided is HandoffState.BLOCKED:
        return None if would is Would.BLOCKED else Change.OTHER
    # pending, ended or decided on other bytes: only a rule deciding it differs, or a
    # new block of one a person could still approve
    if would in (Would.APPROVE, Would.REJECT):
        return Change.OTHER
    if would is Would.BLOCKED and decided is HandoffState.PENDING:
        return Change.OTHER
    return None


@dataclass(frozen=True, slots=True)
class Replay:
    """Every handoff judged, in store order, and how many runs could not be read."""

    judged: tuple[Judged, ...] = ()
    unreadable_runs: int = 0

    @property
    def differences(self) -> list[Judged]:
        """The handoffs whose outcome would differ, most dangerous change first (then
        a rule's approval before anything else, then by run and id)."""
        differing = [j for j in self.judged if j.change is not None]
        return sorted(differing, key=_danger)

    def approved_by(self, rule: str) -> list[Judged]:
        """The handoffs ``rule`` would approve, those a person rejected first."""
        mine = [j for j in self.judged if j.would is Would.APPROVE and j.rule == rule]
        return sorted(mine, key=_danger)


def _danger(j: Judged) -> tuple[int, bool, str, str]:
    change = j.change
    rank = CHANGE_ORDER.index(change) if change is not None else len(CHANGE_ORDER)
    return rank, j.would is not Would.APPROVE, j.run, j.ref.id


def replay(
    store: RunStore,
    registry: Registry,
    *,
    policy: Policy | None,
    rules: Sequence[AutoRule],
    decided_under: Policy | None = None,
    on_problem: Callable[[str], None] | None = None,
) -> Replay:
    """Judge every handoff in ``store`` by ``rules`` under ``policy``, beside what
    happened as ``decided_under`` reads the records (``None``: as written). A run that
    cannot be listed is told to ``on_problem`` and counted; the others are still judged."""
    unreadable: list[str] = []
    judged: list[Judged] = []
    for found in standings(store, registry, decided_under, unreadable, on_problem):
        try:
            judged.append(judge(found, _under(found, policy, decided_under), policy, rules))
        except Exception as exc:  # fail closed: what cannot be judged is never approved
            judged.append(_unjudged(found, f"it cannot be judged: {os_reason(exc)}"))
    return Replay(tuple(judged), len(unreadable))


def _unjudged(found: Standing, why: str) -> Judged:
    ref = found.ref
    return Judged(ref, found.run_name, ref.phase, None, found.state, (), Would.BLOCKED, None, why)


def _under(found: Standing, policy: Policy | None, decided_under: Policy | None) -> Report:
    """The handoff's report as ``policy`` would see it: the history's, with only the
    producer signature the replayed policy demands checked again."""
    report = found.report
    if policy is None or decided_under is not None or report.envelope is None:
        return report
    extra = producer_finding(report.envelope, found.run_name, policy)
    return report if extra is None else replace(report, findings=(*report.findings, extra))


def judge(
    found: Standing, report: Report, policy: Policy | None, rules: Sequence[AutoRule]
) -> Judged:
    """One handoff: ``found`` what happened, ``report`` its bytes inspected under the
    replayed ``policy``, judged by ``rules``."""
    envelope = report.envelope or found.report.envelope
    tool = envelope.tool.name if envelope is not None and envelope.tool is not None else None
    would, rule, why = _would(found.ref, report, policy, rules)
    return Judged(
        found.ref,
        found.run_name,
        found.ref.phase,
        tool,
        found.state,
        deciders_of(found),
        would,
        rule,
        why,
    )


def _would(
    ref: HandoffRef, report: Report, policy: Policy | None, rules: Sequence[AutoRule]
) -> tuple[Would, str | None, str]:
    if not report.approvable:
        first = report.blocking[0].message if report.blocking else "the contract blocks it"
        return Would.BLOCKED, None, first
    covering = policy.rule_for(ref.phase) if policy is not None else None
    if policy is not None and covering is None:
        return Would.BLOCKED, None, f"no [[rule]] covers phase {ref.phase!r}; nobody may decide it"
    if report.envelope is None:
        return Would.ASK, None, ""
    try:
        subject = subject_of(report.envelope)
    except ValueError:  # not a JSON object: no rule decides it, a person does
        return Would.ASK, None, ""
    found = rule_for(rules, subject)
    if found is None:
        return Would.ASK, None, ""
    if found.decide is Action.REJECT:
        return Would.REJECT, found.name, ""
    if covering is not None and not covering.auto:
        return Would.ASK, found.name, f"the [[rule]] for {ref.phase!r} does not say auto = true"
    if covering is not None and covering.required > 1:
        why = f"one of the {covering.required} approvals the [[rule]] needs; people give the rest"
        return Would.ASK, found.name, why
    return Would.APPROVE, found.name, ""


def by_text(by: Sequence[Decider]) -> str:
    """Who decided, as a person reads it: ``alice``, ``rule read-only git``, ``alice, bob``."""
    return ", ".join(d.name if d.kind == "person" else f"{d.kind} {d.name}" for d in by)
