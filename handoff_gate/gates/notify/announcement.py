"""What one notification says: which handoffs wait, where, from whom, with what verdict.

A notification leaves for a third party's service, so it carries what a reviewer needs
to come and look (run, id, phase, producer, finding codes), never payload text, a
finding's message or a field path. The pipeline's own words are made visible, kept to
letters, digits and a few marks and bounded (``_shown``), since a chat service would read
``[text](url)`` or ``<!channel>`` in them as markup, whatever Apprise escapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from handoff_gate.gates.standing.standing import Standing
from handoff_gate.gates.vocab.findings import Finding
from handoff_gate.gates.vocab.safe_text import elide, visible
from handoff_gate.gates.vocab.states import HandoffState

#: How many runs (or a run's handoffs) a title names, and handoffs a body lists, before
#: the rest is counted: a notification stays a glance however many wait.
TITLE_IDS = 5
BODY_LINES = 20
#: How much of a producer's role or signer a line shows.
PRODUCER_CHARS = 60
#: Besides letters and digits, the characters a verified signer keeps (a principal the
#: policy names: ``alice@example.com``; others become ``?``).
KEPT = frozenset(".-_@+")
#: ... and those the pipeline's own words keep (a role, a run's name, a signer nobody
#: verified): no ``@``, which would mention ``@everyone`` in a chat.
ROLE_KEPT = frozenset(" .-_+")


@dataclass(frozen=True, slots=True)
class Waiting:
    """One handoff that waits for a decision, as a notification names it."""

    run: str
    id: str
    phase: str
    #: ``from planner (unsigned)``, or ``no producer named (…)`` when the envelope names
    #: no role ("from unsigned" read as a producer called "unsigned").
    producer: str
    verdict: str

    def line(self) -> str:
        """``web / 0001-plan: phase plan, from planner (unsigned), approvable``: run / id,
        as the review app names a handoff."""
        return f"{self.run} / {self.id}: phase {self.phase}, {self.producer}, {self.verdict}"


def waiting(found: Standing, *, policy_in_force: bool) -> Waiting:
    """``found`` (a handoff that needs a person) as a notification names it."""
    return Waiting(
        run=_shown(found.run_name, ROLE_KEPT),
        id=found.ref.id,
        phase=found.ref.phase,
        producer=_producer(found, policy_in_force),
        verdict=_verdict(found, policy_in_force),
    )


def announcement(
    handoffs: Sequence[Waiting], *, at_start: bool = False, link: str | None = None
) -> tuple[str, str]:
    """The title and body of one notification naming ``handoffs`` (at least one);
    ``at_start``: the announcer's one summary of those waiting already."""
    runs = list(dict.fromkeys(h.run for h in handoffs))
    count = len(handoffs)
    noun = "handoff" if count == 1 else "handoffs"
    what = (
        f"{count} {noun} {'waits' if count == 1 else 'wait'} for a decision"
        if at_start
        else f"{count} new {noun}"
    )
    title = f"{what} in {', '.join(runs[:TITLE_IDS])}"
    if len(runs) > TITLE_IDS:
        more = len(runs) - TITLE_IDS
        title += f" and {more} more {'run' if more == 1 else 'runs'}"
    elif len(runs) == 1:
        ids = [h.id for h in handoffs[:TITLE_IDS]]
        title += ": " + ", ".join(ids) + (", …" if count > TITLE_IDS else "")
    lines = [h.line() for h in handoffs[:BODY_LINES]]
    if count > BODY_LINES:
        lines.append(f"… and {count - BODY_LINES} more")
    if link:
        lines.append(f"Review: {link}")
    return title, "\n".join(lines)


def _producer(found: Standing, policy_in_force: bool) -> str:
    """Who produced it: the role it came from (a tool call's agent), and its signature
    as the review app's header words it (verified only under a policy)."""
    envelope = found.report.envelope
    if envelope is None:
        return "from an unknown producer (unreadable envelope)"
    role = envelope.from_role or (envelope.tool.agent if envelope.tool is not None else None)
    signer = envelope.signer
    if signer is None:
        signed = "unsigned"
    elif not policy_in_force:
        signed = f"signed as {_shown(signer, ROLE_KEPT)}, not checked: no policy"
    elif found.producer == signer:
        signed = f"signed by {_shown(signer, KEPT)}"
    else:
        signed = f"signed as {_shown(signer, ROLE_KEPT)}, but the signature does not verify"
    return f"from {_shown(role, ROLE_KEPT)} ({signed})" if role else f"no producer named ({signed})"


def _verdict(found: Standing, policy_in_force: bool) -> str:
    """The state and the finding codes behind it (codes only: a finding's message can
    quote the payload)."""
    report = found.report
    if found.state is HandoffState.BLOCKED:
        codes = _codes(report.blocking)
        if codes:
            return f"blocked: {codes}"
        if policy_in_force and found.rule is None:
            return "blocked: no policy rule covers its phase"
        return "blocked"
    warned = _codes(report.warnings)
    return f"approvable, warnings: {warned}" if warned else "approvable"


def _codes(findings: Sequence[Finding]) -> str:
    return ", ".join(sorted({f.code.value for f in findings}))


def _shown(text: str, kept: frozenset[str]) -> str:
    """The pipeline's ``text`` with its escapes and controls made visible (as tokens),
    then only letters, digits and the characters of ``kept``: anything else (a chat
    service's markup, a link, ``<!channel>``, a line break) becomes ``?``; bounded."""
    shown = "".join(c if c.isalnum() or c in kept else "?" for c in visible(text))
    return elide(shown, PRODUCER_CHARS)
