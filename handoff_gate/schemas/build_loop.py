"""Structured decisions in a build loop: what to build, resume or replan, did it work, lessons.

Each contract is a verdict, not an essay: the orchestrator branches on closed sets and
booleans, and free text is kept for the person reading the run log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from handoff_gate.schemas.base import Contract, Issue
from handoff_gate.schemas.checks import duplicates, objects
from handoff_gate.schemas.types import Line, Text


class Feature(Contract):
    """One feature, frozen at extraction time."""

    id: int = Field(ge=1, le=10_000, description="Feature number from the priority table.")
    title: Line = Field(description="Feature name from the priority table.")
    description: Text = Field(
        description="User stories, acceptance criteria, data model entities and scope limits."
    )


class FeatureManifest(Contract):
    """Every feature of the project in build order, extracted once and then frozen."""

    features: list[Feature] = Field(
        min_length=1, max_length=500, description="Every feature, in build order."
    )

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        return duplicates(
            ((f"features[{i}].id", f.get("id")) for i, f in objects(data, "features")), "id"
        )


class GapAnalysis(Contract):
    """Whether the current feature's plan still fits the work on disk, and why."""

    decision: Literal["RESUME_FEATURE", "REPLAN_FEATURE"] = Field(
        description="Resume the current feature's plan, or regenerate it."
    )
    reason: Text = Field(description="Why, for the person reading the run log.")


class Failure(Contract):
    """One unmet acceptance criterion."""

    criterion: Line = Field(description="The acceptance criterion that failed.")
    description: Text = Field(description="What was observed.")
    severity: Literal["blocking", "minor"] = Field(
        description="'blocking' starts a fix cycle; 'minor' is recorded and the feature completes."
    )


class VerifyResult(Contract):
    """The verdict on a feature: build, tests and acceptance criteria reported separately."""

    passed: bool = Field(
        description="True only if the build and tests succeed and no failure is blocking."
    )
    build_succeeded: bool = Field(description="True if the project builds without errors.")
    tests_succeeded: bool = Field(description="True if all tests pass (or none exist).")
    failures: list[Failure] = Field(
        max_length=100, description="Unmet acceptance criteria; may be empty."
    )
    summary: Text = Field(description="A short account of the verification.")

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        """``passed`` must agree with the build, the tests and the failures' severities."""
        if not isinstance(data, Mapping) or not isinstance(data.get("passed"), bool):
            return []
        blocking = [i for i, f in objects(data, "failures") if f.get("severity") == "blocking"]
        broken = [k for k in ("build_succeeded", "tests_succeeded") if data.get(k) is False]
        if data["passed"]:
            issues = [Issue(k, f"passed is true but {k} is false") for k in broken]
            issues += [
                Issue(f"failures[{i}].severity", "passed is true but this failure is blocking")
                for i in blocking
            ]
            return issues
        explained = blocking or broken or not isinstance(data.get("failures"), list)
        ran = all(isinstance(data.get(k), bool) for k in ("build_succeeded", "tests_succeeded"))
        if ran and not explained:
            return [Issue("passed", "passed is false but nothing blocking is reported")]
        return []


class Learning(Contract):
    """One lesson from the run, in a fixed category, for later stages to read."""

    category: Literal["build", "testing", "api", "architecture", "tooling", "workaround"] = Field(
        description="What kind of lesson this is."
    )
    insight: Line = Field(description="The lesson, in one line.")
    context: Text = Field(description="Briefly, where it came from.")
