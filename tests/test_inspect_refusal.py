"""The refusal heuristics: what reads as declining or asking back, and what must not."""

from __future__ import annotations

import pytest

from handoff_gate.gates.refusal import reads_as_refusal

REFUSALS = [
    "I'm sorry, but I can't help with that.",
    "I’m sorry — I can’t assist with this request.",  # typographic apostrophes
    "I cannot provide a plan for this.",
    "I can't comply with that request.",
    "I won't write this design.",
    "Sorry, that is outside what I can do.",
    "As an AI, I don't have access to your billing data.",
    "I apologize, but I am unable to complete this task.",
    "Unfortunately, I cannot produce the requested JSON.",
    "Here is my answer: unfortunately I am unable to provide a design for that.",
    "Before I proceed, could you clarify which service owns the timeout?",
    "Which one do you mean: the staging or the production cluster?",
    "Do you want me to include the migration steps as well?",
    "Should the plan cover mobile clients too?",
]

NOT_REFUSALS = [
    "",
    "   ",
    'Here is the plan: {"problem_statement": "..."}',
    "The plan is ready but the JSON was lost.",
    "Fix the login timeout by raising the session TTL.",
    "The user asked: can we ship on Friday? The answer is in the plan below. " * 10,
    "Summary of the work done so far, with the open items listed at the end.",
    '```json\n{"a": 1}\n```',
]


@pytest.mark.parametrize("text", REFUSALS)
def test_reads_as_refusal(text: str) -> None:
    assert reads_as_refusal(text)


@pytest.mark.parametrize("text", NOT_REFUSALS)
def test_does_not_read_as_refusal(text: str) -> None:
    assert not reads_as_refusal(text)


def test_only_the_start_of_a_long_text_is_read() -> None:
    late = "Status report. " * 100 + "I cannot help with that."
    assert not reads_as_refusal(late)
