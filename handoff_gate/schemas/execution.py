"""What a planner passes an executor: a projection that names every field allowed across.

Only facts that change the executor's next action cross, each with its source; the
planner's reasoning trace and whole retrieved records stay behind. There is no
free-form mapping anywhere in this contract, so an upstream record that grows a field
(a stored card number, say) has no place to ride along.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from handoff_gate.schemas.base import Contract, Issue
from handoff_gate.schemas.checks import duplicates, objects, quoted
from handoff_gate.schemas.types import Line, Name, Ref, Text


class PlanStep(Contract):
    """One step for the executor, with the evidence it relies on."""

    id: Name = Field(description="Step id, unique within the plan.")
    action: Text = Field(description="What the executor does in this step.")
    claims: list[Name] = Field(
        max_length=20, description="Ids of the evidence items this step relies on."
    )


class Evidence(Contract):
    """A fact the planner established, with where it came from; not how it got there."""

    claim_id: Name = Field(description="Id that plan steps use to cite this fact.")
    fact: Text = Field(description="The fact, stated plainly.")
    source: Ref = Field(description="Where the fact can be checked (a record id or URL).")


class AccountFacts(Contract):
    """The two account facts an executor uses; never the account record itself."""

    tier: Name = Field(description="Subscription tier, e.g. 'basic' or 'pro'.")
    status: Literal["active", "trialing", "past_due", "suspended", "cancelled"] = Field(
        description="Account status."
    )


class ExecutorHandoff(Contract):
    """What the executor needs for its next actions: the plan, and the facts it rests on."""

    correlation_id: Ref = Field(description="Id that ties this handoff to the run's logs.")
    goal: Line = Field(description="The objective, in one sentence.")
    plan: list[PlanStep] = Field(min_length=1, max_length=50, description="Steps, in order.")
    constraints: list[Line] = Field(
        max_length=50, description="Hard rules, extracted from the conversation; may be empty."
    )
    evidence: list[Evidence] = Field(
        max_length=50, description="Facts the plan steps cite; only those."
    )
    blocking_questions: list[Line] = Field(
        max_length=20, description="Open questions that block a step; others stay behind."
    )
    account: AccountFacts | None = Field(
        description="Account facts, or null when the task concerns no account."
    )
    owner: Name = Field(description="The role that acts on this handoff.")
    returns_to: Name = Field(description="The role that receives the result.")

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        """Ids are unique, steps cite known claims, and no evidence rides along unused."""
        steps = objects(data, "plan")
        evidence = objects(data, "evidence")
        issues = duplicates(((f"plan[{i}].id", s.get("id")) for i, s in steps), "step id")
        known = [(f"evidence[{i}].claim_id", e.get("claim_id")) for i, e in evidence]
        issues += duplicates(known, "claim id")
        known_ids = {c for _, c in known if isinstance(c, str)}
        cited: set[str] = set()
        for i, step in steps:
            claims = step.get("claims")
            if not isinstance(claims, list):
                continue
            for j, claim in enumerate(claims):
                if not isinstance(claim, str):
                    continue
                cited.add(claim)
                if claim not in known_ids:
                    issues.append(
                        Issue(f"plan[{i}].claims[{j}]", f"{quoted(claim)} is not in evidence")
                    )
        issues += [
            Issue(where, "no plan step cites this evidence; leave it out of the handoff")
            for where, claim in known
            if isinstance(claim, str) and claim not in cited
        ]
        return issues
