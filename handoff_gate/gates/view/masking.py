"""Payload text made fit for a screen: secrets masked, unsafe characters as visible tokens.

The raw bytes on disk keep a secret in full (the reviewer decides on exactly those bytes),
but no front end should paint it. Every display of raw producer text, a diff of payloads
or a refusal goes through here, so the rule lives in one place instead of in each view.
"""

from __future__ import annotations

from handoff_gate.gates.inspect.secret_patterns import mask_secrets
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import visible


def masked(text: str) -> str:
    """``text`` with every recognised secret masked; unsafe characters left as they are."""
    return mask_secrets(text)


def display_lines(text: str) -> list[str]:
    """``text`` as displayable lines: secrets masked first, then unsafe characters made
    visible (masking first, so a token never splits a secret the patterns would catch)."""
    return visible(mask_secrets(text)).split("\n")


def refusal_said(report: Report) -> str:
    """What the model said instead of a handoff: its refusal text, else the raw reply,
    with secrets masked. Unsafe characters are left for the caller's own escaping."""
    envelope = report.envelope
    refusal = envelope.producer.refusal if envelope is not None else None
    return mask_secrets(refusal or report.raw_text)
