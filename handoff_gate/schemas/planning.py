"""Phase-1 outputs that a person approves before anything is built: the plan and the design.

No field the model fills has a default: with defaults everywhere, ``{}`` was a valid
plan and an empty design still named an entry point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from handoff_gate.schemas.base import Contract, Issue
from handoff_gate.schemas.checks import duplicates, quoted, strings_in, unsafe_path, unsafe_paths
from handoff_gate.schemas.types import FilePath, Line, Text

Profile = Literal[
    "generic_script", "data_analysis", "ml_experiment", "web_service", "cli_tool", "library"
]


class Plan(Contract):
    """A planner's Phase-1 plan: the problem, the questions, and how success is judged."""

    problem_statement: Text = Field(
        description="The problem to solve, stated as the planner understood it."
    )
    research_questions: list[Line] = Field(
        min_length=1, max_length=30, description="Questions the work must answer."
    )
    hypotheses: list[Text] = Field(
        max_length=30, description="Testable expectations; may be empty for pure engineering work."
    )
    success_criteria: list[Line] = Field(
        min_length=1, max_length=30, description="Checks that decide whether the work succeeded."
    )
    constraints: list[Line] = Field(
        max_length=50, description="Hard rules the work must respect; may be empty."
    )
    risks: list[Line] = Field(max_length=30, description="Known risks; may be empty.")
    recommended_profile: Profile = Field(description="The build profile the next phase should use.")


class DesignFile(Contract):
    """One file the builder is asked to write."""

    path: FilePath = Field(description="Path relative to the project root, with '/' separators.")
    purpose: Line = Field(description="Why the file exists, in one line.")


class Design(Contract):
    """The files to write, and which of them runs the program."""

    files: list[DesignFile] = Field(
        min_length=1, max_length=200, description="Every file to write; paths unique."
    )
    entry_point: FilePath = Field(description="The path of the file that runs; one of `files`.")
    dependencies: list[Line] = Field(
        max_length=100, description="Third-party packages the files need; may be empty."
    )
    run_command: Line = Field(description="The command that runs the entry point.")

    @classmethod
    def cross_field_checks(cls, data: Mapping[str, Any]) -> list[Issue]:
        """Paths stay inside the project, are unique, and the entry point is one of them.

        A truncated design whose brackets were closed typically names an entry point it
        never lists; this is the check that catches it.
        """
        listed = strings_in(data, "files", "path")
        paths = [p for _, p in listed]
        issues = [Issue(f"files[{listed[n][0]}].path", why) for n, why in unsafe_paths(paths)]
        unique = set(paths)
        if len(unique) < len(paths):
            issues += duplicates(((f"files[{i}].path", p) for i, p in listed), "path")
        entry = data.get("entry_point") if isinstance(data, Mapping) else None
        if isinstance(entry, str):
            if (why := unsafe_path(entry)) is not None:
                issues.append(Issue("entry_point", why))
            elif isinstance(data.get("files"), list) and entry not in unique:
                issues.append(
                    Issue("entry_point", f"{quoted(entry)} is not one of the listed files")
                )
        return issues
