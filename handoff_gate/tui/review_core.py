"""The core as the app uses it: inspecting handoffs and deciding them, for one reviewer.

``ReviewCore`` is what the app's core worker makes (``ReviewApp.load_core``) and posts
as ``CoreReady``: importing this module imports the contracts' machinery, the validators
and the decision and policy code, so ``handoff-gate watch`` hands the app a function that
imports it, and the first screen (listings only) is painted before any of it loads.

Refusals are worked out before a dialog opens, so nobody types a reason for a decision
``decide`` would refuse; ``decide`` checks everything again when it writes. Every
message is one plain line (payload and file names made safe), never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from handoff_gate.gates.audit.decision_record import describe
from handoff_gate.gates.decide.decisions import DecisionRefused, principal_for
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.setup import Setup, assemble
from handoff_gate.gates.standing.edits import edit_problem, inspect_edit
from handoff_gate.gates.standing.phase_rule import NoRule, rule_of
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.states import ENDED, HandoffState
from handoff_gate.tui.inspecting import inspect_ref
from handoff_gate.tui.messages import BatchDecided, DecisionFinished
from handoff_gate.tui.notice import Notice, named
from handoff_gate.tui.render import safe

if TYPE_CHECKING:
    from handoff_gate.gates.contracts.registry import Registry
    from handoff_gate.gates.stats.figures import Stats
    from handoff_gate.gates.store.base import RunStore
    from handoff_gate.gates.trust.policy import Policy, Rule
    from handoff_gate.gates.trust.signing_key import SigningKey
    from handoff_gate.gates.vocab.actions import Action, Category
    from handoff_gate.gates.vocab.handoff_ref import HandoffRef
    from handoff_gate.gates.vocab.report import FieldRow, Report
    from handoff_gate.tui.model import Entry
    from handoff_gate.tui.scan import Inspection


class ReviewCore:
    """Inspection and decisions under one registry and policy, for one reviewer and key.

    Read-only review is the screen's to enforce (``ReviewScreen.read_only``): this only
    inspects and decides."""

    def __init__(self, setup: Setup, *, reviewer: str | None = None) -> None:
        """``setup``: the gate's configuration (``gates.setup.assemble``): where the
        reviewed runs live (decisions use a copy of the store per write), the contracts,
        and the key decisions are signed with under the policy (only a principal the
        policy lets decide a handoff's phase may try). ``reviewer``: who decisions name
        (``None``: ``user@host``)."""
        self.setup = setup
        self.registry: Registry = setup.contracts
        self.reviewer = reviewer
        self.key: SigningKey | None = setup.key
        self.policy: Policy | None = setup.policy
        self.store: RunStore = setup.store
        self._principals: dict[Rule, str | DecisionRefused] = {}

    @classmethod
    def maker(
        cls,
        contracts: Registry,
        *,
        reviewer: str | None = None,
        key: SigningKey | None = None,
        policy: Policy | None = None,
    ) -> Callable[..., ReviewCore]:
        """What ``ReviewApp`` calls with the store it reviews to make its core: the
        configuration assembled over that store (``gates.setup.assemble``)."""

        def make(*, store: RunStore) -> ReviewCore:
            setup = assemble(store, contracts=contracts, policy=policy, key=key, env={})
            return cls(setup, reviewer=reviewer)

        return make

    def look_back(self) -> Stats:
        """The stats screen's figures over every run (blocking: run it off the UI thread,
        over a copy of the store, as decisions are)."""
        store = self.store.copy()
        try:
            return Gate(setup=replace(self.setup, store=store, owns_store=False)).stats()
        finally:
            store.close()

    def inspect(self, ref: HandoffRef, store: RunStore) -> Inspection:
        """Inspect one handoff in ``store`` (the calling thread's own) and settle its
        decisions under this core's registry and policy; never raises."""
        return inspect_ref(ref, self.registry, store=store, policy=self.policy)

    def field_rows(
        self, report: Report, parent: str = "", *, start: int = 0, limit: int | None = None
    ) -> list[FieldRow]:
        """One level of ``report``'s field view (``gates.view.fields.field_rows``). It is
        the core's because it walks the contract's pydantic models, which load with the
        core, after the first screen."""
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
        refused = self.may_not_decide(entry)
        if refused:
            return Notice(
                f"{named(entry.key)}: {safe(refused, 300)}. Nothing was written.",
                "Not allowed",
                "error",
            )
        return None

    def may_not_decide(self, entry: Entry) -> str:
        """Why this app's key may not decide ``entry`` under the policy (empty: it may)."""
        policy = self.policy
        if policy is None:
            return ""
        handoff_id = entry.ref.id
        try:
            rule = rule_of(policy, handoff_id)
        except NoRule as exc:
            return str(exc)
        if self.key is None:
            return (
                f"under the policy only signed decisions count: start watch with --key; "
                f"who may decide {handoff_id}: {', '.join(rule.approvers)}"
            )
        principal = self._principals.get(rule)
        if principal is None:
            try:
                principal = principal_for(self.key, policy, rule, self.reviewer)
            except DecisionRefused as exc:
                principal = exc
            self._principals[rule] = principal
        if isinstance(principal, DecisionRefused):
            return f"{handoff_id}: {principal}"
        trust = entry.trust
        if trust is not None and trust.producer == principal:
            return f"{principal!r} produced {handoff_id} and may not decide it"
        if trust is not None and principal in trust.approvals:
            return f"{principal!r} already approved {handoff_id}"
        return ""

    def inspect_edit(self, entry: Entry, report: Report, data: bytes) -> tuple[Report, bool]:
        """The reviewer's edited bytes inspected against ``entry``'s contract, as
        ``decide`` will inspect them again, and whether they may be approved (blocking:
        off the UI thread); never raises. Here, not in the screen, so the screen's
        module loads none of the inspection code before the core arrives."""
        store = self.store.copy()
        try:
            found = inspect_edit(store, entry.ref.run, entry.ref.id, report, data, self.registry)
        finally:
            store.close()
        return found, edit_problem(found) is None

    def decide_many(
        self,
        marked: Sequence[tuple[Entry, str]],
        action: Action,
        reason: str | None = None,
        category: Category | None = None,
    ) -> BatchDecided:
        """Decide every ``(entry, sha256)`` (blocking: run it off the UI thread), each on
        its own record through ``gates.decide.batch``; a refusal is that entry's alone."""
        store = self.store.copy()
        gate = Gate(setup=replace(self.setup, store=store, owns_store=False))
        results: list[DecisionFinished] = []
        try:
            by_run: dict[str, list[tuple[Entry, str]]] = {}
            for entry, sha256 in marked:
                by_run.setdefault(entry.ref.run, []).append((entry, sha256))
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
                    if result.decision is None:
                        results.append(
                            DecisionFinished(entry.key, None, f"Not written: {result.refused}")
                        )
                    else:
                        described = describe(result.decision)
                        results.append(DecisionFinished(entry.key, result.decision, "", described))
        finally:
            store.close()
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
        """Write the decision (blocking: run it off the UI thread); a refusal, or a store
        driver's own error, comes back as the ``DecisionFinished`` message's reason, never
        a crash."""
        store = self.store.copy()
        try:
            decision = Gate(setup=replace(self.setup, store=store, owns_store=False)).decide(
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
            return DecisionFinished(entry.key, None, f"Not written: {exc}")
        except Exception as exc:  # a store driver's own error: refused, never a crash
            return DecisionFinished(entry.key, None, f"Not written: {type(exc).__name__}: {exc}")
        finally:
            store.close()
        return DecisionFinished(entry.key, decision, "", describe(decision))
