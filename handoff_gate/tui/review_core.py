"""The core as the app uses it: a ``Gate``'s inspection and decisions, for one reviewer.

Loaded by the app's core worker after the first paint: importing it imports the contracts'
pydantic models. Each blocking call runs on a ``Gate.copy`` (a store object per thread).
Refusals are worked out before a dialog opens, so nobody types a reason for a decision
``decide`` would refuse; ``decide`` checks everything again when it writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from handoff_gate.gates.gate import DecisionRefused, Gate, describe
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.states import ENDED, HandoffState
from handoff_gate.tui.messages import BatchDecided, DecisionFinished
from handoff_gate.tui.model import UNSIGNED, Trust, key_of
from handoff_gate.tui.notice import Notice, named
from handoff_gate.tui.render import safe
from handoff_gate.tui.scan import Inspection

if TYPE_CHECKING:
    from handoff_gate.gates.gate import Decision, Standing, Stats
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.vocab.actions import Action, Category
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.gates.vocab.report import FieldRow, Report
    from handoff_gate.tui.model import Entry


class ReviewCore:
    """A Gate's inspection and decisions, for one reviewer (``None``: the key's
    principal, else ``user@host``); read-only review is the screen's to enforce."""

    def __init__(self, gate: Gate, *, reviewer: str | None = None) -> None:
        self.gate = gate
        self.reviewer = reviewer
        #: The process's one source of standings, shared with ``--notify-url``'s announcer.
        self.events = gate.events()

    def look_back(self) -> Stats:
        """Blocking: off the UI thread."""
        with self.gate.copy() as gate:
            return gate.stats()

    def inspect(self, ref: HandoffRef, store: RunStore) -> Inspection:
        """One handoff's standing, with ``store`` (this thread's); never raises."""
        found = self.events.standing(ref, store, listener=self)
        return inspection(found, policy=self.gate.policy is not None)

    def field_rows(
        self, report: Report, parent: str = "", *, start: int = 0, limit: int | None = None
    ) -> list[FieldRow]:
        """Here, not in the widget: it walks the contracts' pydantic models, which load
        with the core, after the first screen."""
        return field_rows(report, parent, start=start, limit=limit)

    def refusal(self, entry: Entry) -> Notice | None:
        """Why an inspected ``entry`` cannot be decided from here (``None``: it can)."""
        if entry.state in ENDED:
            return Notice(
                f"{named(entry.key)}: {safe(entry.ended, 300)}: it can no longer be decided. "
                "Nothing was written.",
                severity="warning",
            )
        if entry.state is HandoffState.UNUSABLE:
            return Notice(
                f"{named(entry.key)} is already decided, but its decision record is unusable: "
                f"{safe(entry.decision_error, 300)}. Nothing was written.",
                severity="warning",
            )
        if entry.decision is not None or entry.decision_error:
            done = describe(entry.decision) if entry.decision else "decided (unreadable)"
            note = f"{named(entry.key)} is already {safe(done, 200)}."
            if entry.state is HandoffState.CHANGED:
                note += " Its file changed since, so a new handoff must be submitted."
            return Notice(note, severity="warning")
        trust = entry.trust
        refused = self.gate.refusal(
            entry.ref.id,
            reviewer=self.reviewer,
            producer=trust.producer if trust else None,
            approvals=trust.approvals if trust else (),
        )
        if refused:
            return Notice(
                f"{named(entry.key)}: {safe(refused, 300)}. Nothing was written.",
                "Not allowed",
                "error",
            )
        return None

    def inspect_edit(self, entry: Entry, report: Report, data: bytes) -> tuple[Report, bool]:
        """Blocking: off the UI thread."""
        with self.gate.copy() as gate:
            return gate.inspect_edit(entry.ref.run, entry.ref.id, report, data)

    def decide_many(
        self,
        marked: Sequence[tuple[Entry, str]],
        action: Action,
        reason: str | None = None,
        category: Category | None = None,
    ) -> BatchDecided:
        """Decide every ``(entry, sha256)``, a run at a time (blocking: off the UI thread);
        a refusal is that entry's alone."""
        by_run: dict[str, list[tuple[Entry, str]]] = {}
        for entry, sha256 in marked:
            by_run.setdefault(entry.ref.run, []).append((entry, sha256))
        results: list[DecisionFinished] = []
        with self.gate.copy() as gate:
            for run, items in by_run.items():
                try:
                    done = gate.decide_many(
                        run,
                        [(entry.ref.id, sha256) for entry, sha256 in items],
                        action,
                        seen={e.ref.id: e.report for e, _ in items if e.report is not None},
                        reason=reason,
                        category=category,
                        reviewer=self.reviewer,
                    )
                except Exception as exc:  # a store driver's own error: refused, never a crash
                    why = f"Not written: {type(exc).__name__}: {exc}"
                    results += [DecisionFinished(entry.key, None, why) for entry, _ in items]
                    continue
                for (entry, _), result in zip(items, done, strict=True):
                    results.append(_finished(entry, result.decision, result.refused))
        return BatchDecided(tuple(results))

    def decide(
        self,
        entry: Entry,
        action: Action,
        sha256: str,
        reason: str | None = None,
        category: Category | None = None,
        edited: bytes | None = None,
    ) -> DecisionFinished:
        """Blocking: off the UI thread. A refusal or a store driver's own error comes back
        as the message's reason, never a crash."""
        try:
            with self.gate.copy() as gate:
                decision = gate.decide(
                    entry.ref.run,
                    entry.ref.id,
                    action,
                    reason=reason,
                    category=category,
                    reviewer=self.reviewer,
                    expected_sha256=sha256,
                    edited_payload=edited,
                )
        except (DecisionRefused, ValueError, OSError) as exc:
            return _finished(entry, None, str(exc))
        except Exception as exc:  # a store driver's own error: refused, never a crash
            return _finished(entry, None, f"{type(exc).__name__}: {exc}")
        return _finished(entry, decision, "")


def _finished(entry: Entry, decision: Decision | None, refused: str | None) -> DecisionFinished:
    if decision is None:
        return DecisionFinished(entry.key, None, f"Not written: {refused}")
    return DecisionFinished(entry.key, decision, "", describe(decision))


def inspection(found: Standing, *, policy: bool) -> Inspection:
    """The app's view of ``found``, settled under a policy when ``policy`` (the standing
    shows every failure as blocked or unusable, so the app fails closed)."""
    problem = found.problem if found.state is HandoffState.UNUSABLE else ""
    ended = found.problem if found.state in ENDED else ""
    return Inspection(
        key_of(found.ref),
        found.report,
        found.decision,
        problem,
        found.state,
        _trust(found, policy),
        ended,
        found.delivered,
    )


def _trust(found: Standing, policy: bool) -> Trust:
    signer = _signer(found.report, policy, found.producer)
    if not policy:
        return Trust(signer=signer)
    if found.rule is None:
        blocked = found.state is HandoffState.BLOCKED
        return Trust(signer=signer, rule_problem=found.problem if blocked else "")
    counted, apart = found.counted()
    return Trust(
        required=found.rule.required,
        approvals=tuple(d.principal or d.reviewer for d in counted),
        approvers=found.rule.approvers,
        signer=signer,
        producer=found.producer,
        refused=found.refused + apart,
    )


def _signer(report: Report, policy: bool, producer: str | None) -> str:
    """``producer``: the signer whose signature verified under the policy (``None``: none
    did, or no policy)."""
    envelope = report.envelope
    if envelope is None or envelope.signer is None:
        return UNSIGNED
    if not policy:
        return f"signed as {envelope.signer} (not checked: no policy)"
    if producer == envelope.signer:
        return f"signed by {envelope.signer}"
    return f"signed as {envelope.signer}, but the signature does not verify"
