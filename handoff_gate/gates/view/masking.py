"""Payload text made fit for a screen: the bytes on disk keep a secret in full, but no
front end should paint it, so every display of producer text goes through here.
"""

from __future__ import annotations

from handoff_gate.gates.inspect.secret_patterns import mask_secrets
from handoff_gate.gates.vocab.report import Report
from handoff_gate.gates.vocab.safe_text import visible


def display_lines(text: str) -> list[str]:
    """Secrets masked first, so a visible token never splits a secret the patterns catch."""
    return visible(mask_secrets(text)).split("\n")


def refusal_said(report: Report) -> str:
    """The refusal text, else the raw reply, masked; unsafe characters left to the caller."""
    envelope = report.envelope
    refusal = envelope.producer.refusal if envelope is not None else None
    return mask_secrets(refusal or report.raw_text)
