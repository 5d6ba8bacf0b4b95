"""``Gate``: the one object that owns a gate's configuration (store, contracts, policy,
key: a ``gates.setup.Setup``) and hands it to every stage, so nothing below it reads the
environment or opens a store of its own.

Stages only some callers use are imported inside the methods that run them, so a process
that only submits and waits, a coding agent's hook above all, never loads them.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import AsyncGenerator, Callable, Collection, Iterable, Mapping
from contextlib import closing
from dataclasses import replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from handoff_gate.gates.deliver.refusal import print_refusal
from handoff_gate.gates.setup import (
    Assembly,
    Config,
    Setup,
    StoreSpec,
    assemble,
    read_key,
    read_policy,
)
from handoff_gate.gates.store.base import RunStore, StoreError
from handoff_gate.gates.vocab.actions import Action
from handoff_gate.gates.vocab.environment import ConfigError
from handoff_gate.gates.vocab.extras import needs_extra
from handoff_gate.gates.vocab.handoff_ref import HandoffRef, handoff_id_of
from handoff_gate.gates.vocab.ids import ID_PATTERN
from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.gates.vocab.limits import MAX_HANDOFF_BYTES
from handoff_gate.gates.vocab.report import Report

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from types import TracebackType

    from handoff_gate.gates.audit.decision_record import Decision as Decision
    from handoff_gate.gates.audit.decision_record import DecisionCorrupt as DecisionCorrupt
    from handoff_gate.gates.audit.decision_record import describe as describe
    from handoff_gate.gates.audit.log import audit_lines as audit_lines
    from handoff_gate.gates.contracts.json_schema import (
        JsonSchemaContract,
    )
    from handoff_gate.gates.contracts.json_schema import JsonSchemaError as JsonSchemaError
    from handoff_gate.gates.contracts.registry import Registry as Registry
    from handoff_gate.gates.contracts.registry import RegistryError as RegistryError
    from handoff_gate.gates.decide.batch import BatchItem
    from handoff_gate.gates.decide.batch import BatchResult as BatchResult
    from handoff_gate.gates.decide.decisions import (
        BatchOptions,
        DecisionOptions,
    )
    from handoff_gate.gates.decide.decisions import DecisionRefused as DecisionRefused
    from handoff_gate.gates.decide.decisions import EditRefused as EditRefused
    from handoff_gate.gates.decide.withdrawal import WithdrawRefused as WithdrawRefused
    from handoff_gate.gates.deliver.pickup import Pickup
    from handoff_gate.gates.deliver.pickup import WaitOutcome as WaitOutcome
    from handoff_gate.gates.deliver.pickup import WaitResult as WaitResult
    from handoff_gate.gates.deliver.waiting import (
        AsyncWaitOptions,
        WaitOptions,
    )
    from handoff_gate.gates.notify.announcer import Announcer
    from handoff_gate.gates.notify.source import EventSource
    from handoff_gate.gates.notify.targets import Targets as Targets
    from handoff_gate.gates.rules.auto import AutoRule
    from handoff_gate.gates.standing.ending import Withdrawal
    from handoff_gate.gates.standing.standing import Standing as Standing
    from handoff_gate.gates.stats.figures import Stats as Stats
    from handoff_gate.gates.stats.figures import duration as duration
    from handoff_gate.gates.stats.figures import stats_json as stats_json
    from handoff_gate.gates.stats.proposal import Proposal as Proposal
    from handoff_gate.gates.stats.replay import Judged as Judged
    from handoff_gate.gates.stats.replay import Replay as Replay
    from handoff_gate.gates.submit.submit import Payload, SubmitOptions
    from handoff_gate.gates.submit.tool_call import TOOL_PHASE as TOOL_PHASE
    from handoff_gate.gates.submit.tool_call import ToolCallOptions
    from handoff_gate.gates.trust.policy import Policy as Policy
    from handoff_gate.gates.trust.signing_key import SigningKey as SigningKey
    from handoff_gate.gates.vocab.caller import CALLER_GAVE_UP as CALLER_GAVE_UP

Reporter = Callable[[str], None]
JsonObject = Mapping[str, Any]


class Gate:
    """A gate over one store: submit, decide, wait and look, with one configuration.
    Its arguments, and the environment's defaults for them: docs/integration.md."""

    def __init__(
        self,
        store: StoreSpec | None = None,
        *,
        contracts: Registry | str | None = None,
        policy: Policy | str | os.PathLike[str] | None = None,
        key: SigningKey | str | os.PathLike[str] | None = None,
        setup: Setup | Assembly | None = None,
    ) -> None:
        if setup is None:
            setup = assemble(store, contracts=contracts, policy=policy, key=key)
        #: Made part by part on first use for a ``configured`` Gate.
        self._setup: Setup | Assembly = setup
        #: The settings a ``configured`` Gate was made from.
        self.config: Config | None = None

    def __enter__(self) -> Gate:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the store this Gate opened; one it was given is its owner's to close."""
        self._setup.close()

    def submit(
        self, run: str | os.PathLike[str], payload: Payload, **options: Unpack[SubmitOptions]
    ) -> HandoffRef:
        """Store ``payload`` as the run's next handoff (``gates.submit.submit``, which says
        how it is signed, contracted and given a deadline), then let the rules decide it."""
        from handoff_gate.gates.submit.submit import SubmitRequest
        from handoff_gate.gates.submit.submit import submit as submit_to

        ref = submit_to(self.setup, run, payload, SubmitRequest.of(self.setup, options))
        self.decide_by_rules(run, ref, on_warning=options.get("on_warning"))
        return ref

    def submit_tool_call(
        self, run: str | os.PathLike[str], **options: Unpack[ToolCallOptions]
    ) -> HandoffRef:
        """Store a tool call's arguments as a ``kind: "tool_call"`` handoff
        (``gates.submit.tool_call``), then let the rules decide it."""
        from handoff_gate.gates.submit.tool_call import submit_tool_call, tool_call_of

        call, args, request = tool_call_of(self.setup, options)
        ref = submit_tool_call(self.setup, run, call, args, request)
        self.decide_by_rules(run, ref, on_warning=options.get("on_warning"))
        return ref

    def add_contract(
        self, run: str | os.PathLike[str], schema_id: str, schema: Mapping[str, Any]
    ) -> str:
        """Store a JSON Schema contract in the run as ``schema_id``; returns its sha256
        (``gates.submit.stored_contracts``)."""
        from handoff_gate.gates.submit.stored_contracts import add_contract as add_contract_to

        return add_contract_to(self.store, run, schema_id, schema)

    def decide(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        action: Action | str,
        **options: Unpack[DecisionOptions],
    ) -> Decision:
        """Record a decision (``gates.decide.decisions.decide``). A ``HandoffRef`` from
        ``submit`` binds it to the bytes that were submitted: if they changed, nothing is
        written."""
        from handoff_gate.gates.decide.decisions import DecisionRequest
        from handoff_gate.gates.decide.decisions import decide as decide_in

        request = DecisionRequest.of(action, options)
        if request.expected_sha256 is None and isinstance(ref_or_id, HandoffRef):
            request = replace(request, expected_sha256=ref_or_id.sha256 or None)
        return decide_in(self.setup, run, ref_or_id, request)

    def decide_many(
        self,
        run: str | os.PathLike[str],
        items: Iterable[BatchItem],
        action: Action | str,
        *,
        seen: Mapping[str, Report] | None = None,
        **options: Unpack[BatchOptions],
    ) -> list[BatchResult]:
        """Decide each ``(ref_or_id, sha256)`` on its own record (``gates.decide.batch``):
        one ``BatchResult`` per item, a refused one never stopping the others."""
        from handoff_gate.gates.decide.batch import decide_many
        from handoff_gate.gates.decide.decisions import BatchOptions, DecisionRequest

        checked("decide_many", options, BatchOptions)
        return decide_many(
            self.setup, run, items, DecisionRequest(action=action, **options), seen=seen
        )

    def withdraw(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        reason: str | None = None,
        by: str | None = None,
    ) -> Withdrawal:
        """The pipeline takes back an undecided handoff (``gates.decide.withdrawal``)."""
        from handoff_gate.gates.decide.withdrawal import withdraw

        return withdraw(
            self.store,
            run,
            ref_or_id,
            registry=self.contracts,
            reason=reason,
            by=by,
            policy=self.policy,
        )

    def pickup(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        timeout: float | None = None,
        on_refused: Reporter = print_refusal,
        redeliver: bool = False,
        expected_sha256: str = "",
    ) -> Pickup:
        """A wait's first look (``gates.deliver.pickup``), for a caller that looks before it
        decides to block (``handoff-gate wait``)."""
        from handoff_gate.gates.deliver.pickup import Pickup

        self.decide_by_rules(run, ref_or_id, on_warning=on_refused)
        return Pickup(
            self.setup,
            run,
            ref_or_id,
            timeout=timeout,
            on_refused=on_refused,
            redeliver=redeliver,
            expected_sha256=expected_sha256,
        )

    def wait(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        **options: Unpack[WaitOptions],
    ) -> WaitResult:
        """Block until the handoff is decided, ``timeout`` seconds pass or ``stop_event``
        is set (``gates.deliver.waiting``). Raises ``FileNotFoundError`` when the handoff
        does not exist, ``DecisionCorrupt`` for an unusable decision file, ``NoRule`` when
        the policy does not cover the phase."""
        from handoff_gate.gates.deliver.waiting import WaitOptions, pickup_of, wait_after

        checked("wait", options, WaitOptions)
        self.decide_by_rules(run, ref_or_id, on_warning=options.get("on_refused", print_refusal))
        pickup = pickup_of(self.setup, run, ref_or_id, options)
        stop_event, on_block = options.get("stop_event"), options.get("on_block")
        return wait_after(
            pickup, poll=options.get("poll", False), stop_event=stop_event, on_block=on_block
        )

    async def wait_async(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        **options: Unpack[AsyncWaitOptions],
    ) -> WaitResult:
        """``wait`` for asyncio (``gates.deliver.waiting_async.wait_async``)."""
        from handoff_gate.gates.deliver.waiting import AsyncWaitOptions
        from handoff_gate.gates.deliver.waiting_async import wait_async

        checked("wait_async", options, AsyncWaitOptions)
        self.decide_by_rules(run, ref_or_id, on_warning=options.get("on_refused", print_refusal))
        return await wait_async(self.setup, run, ref_or_id, **options)

    def wait_many(
        self,
        run: str | os.PathLike[str],
        refs: Iterable[HandoffRef | str],
        *,
        timeout: float | None = None,
        poll: bool = False,
        on_refused: Reporter = print_refusal,
    ) -> AsyncGenerator[tuple[HandoffRef, WaitResult], None]:
        """``async for ref, result in gate.wait_many(run, refs)``: each handoff's wait
        result as it settles (``gates.deliver.waiting_async.wait_many``)."""
        from handoff_gate.gates.deliver.waiting_async import wait_many

        refs = list(refs)
        for ref in refs:
            self.decide_by_rules(run, ref, on_warning=on_refused)
        return wait_many(self.setup, run, refs, timeout=timeout, poll=poll, on_refused=on_refused)

    async def wait_any(
        self,
        run: str | os.PathLike[str],
        refs: Iterable[HandoffRef | str],
        *,
        timeout: float | None = None,
        poll: bool = False,
        on_refused: Reporter = print_refusal,
    ) -> tuple[HandoffRef, WaitResult]:
        """The first of ``refs`` to settle and its result; the other waits stop."""
        from handoff_gate.gates.deliver.waiting_async import wait_any

        refs = list(refs)
        for ref in refs:
            self.decide_by_rules(run, ref, on_warning=on_refused)
        return await wait_any(
            self.setup, run, refs, timeout=timeout, poll=poll, on_refused=on_refused
        )

    def decide_by_rules(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        on_warning: Reporter | None = None,
    ) -> Decision | None:
        """Let the policy's ``[[auto]]`` rules decide the handoff (``gates.decide.by_rule``).
        A store error here leaves it to a person, never fails the submit or the wait."""
        if self.policy is None or not self.policy.auto:
            return None
        from handoff_gate.gates.decide.by_rule import decide_by_rule

        try:
            return decide_by_rule(
                self.store,
                run,
                ref_or_id,
                registry=self.contracts,
                policy=self.policy,
                on_warning=on_warning,
            )
        except (OSError, ValueError, StoreError) as exc:
            if on_warning is not None:
                on_warning(f"{handoff_id_of(ref_or_id)}: no rule decided it ({exc}); a person will")
            return None

    def standing(self, run: str | os.PathLike[str], ref_or_id: HandoffRef | str) -> Standing:
        """Where the handoff stands now: state, verdict, decisions, waiters (never raises)."""
        from handoff_gate.gates.standing.standing import standing

        return standing(
            self.store,
            HandoffRef.of(os.fspath(run), handoff_id_of(ref_or_id)),
            self.contracts,
            policy=self.policy,
        )

    def inspect(self, run: str | os.PathLike[str], ref_or_id: HandoffRef | str) -> Report:
        """The handoff's report in its run (never raises: a failure is a blocked report)."""
        from handoff_gate.gates.standing.report_in_run import inspect_in_run

        return inspect_in_run(
            run, handoff_id_of(ref_or_id), self.contracts, policy=self.policy, store=self.store
        )

    def read_decision(
        self, run: str | os.PathLike[str], ref_or_id: HandoffRef | str
    ) -> Decision | None:
        """The unsigned decision record of a handoff, if any (``DecisionCorrupt``: unusable)."""
        from handoff_gate.gates.audit.decision_record import read_decision

        return read_decision(os.fspath(run), handoff_id_of(ref_or_id), self.store)

    def stats(
        self,
        *,
        since: datetime | None = None,
        top: int | None = None,
        on_problem: Reporter | None = None,
    ) -> Stats:
        """The look back over every run in the store (``handoff-gate stats``), for the
        handoffs submitted at or after ``since`` (without a zone: UTC)."""
        from handoff_gate.gates.stats.figures import TOP_REASONS
        from handoff_gate.gates.stats.gather import look_back

        return look_back(
            self.store,
            self.contracts,
            policy=self.policy,
            since=since,
            top=TOP_REASONS if top is None else top,
            on_problem=on_problem,
        )

    def runs(self) -> list[str]:
        """Every run in the store."""
        return self.store.runs()

    def handoffs(self, run: str | os.PathLike[str]) -> list[HandoffRef]:
        """The run's handoffs in sequence order."""
        where = os.fspath(run)
        return [HandoffRef(where, handoff_id) for handoff_id in self.store.handoff_ids(where)]

    def audit_events(self, run: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """The run's audit events in order."""
        from handoff_gate.gates.audit import log as audit

        return audit.audit_events(run, self.store)

    def verify(self, run: str | os.PathLike[str]) -> list[str]:
        """Every problem with the run's history, one line each; empty means intact."""
        from handoff_gate.gates.audit.verify import verify_run

        return verify_run(run, self.store, self.policy)

    def replay(
        self,
        policy: Policy | str | os.PathLike[str] | None = None,
        *,
        rules: Iterable[AutoRule] | None = None,
        as_written: bool = False,
        on_problem: Reporter | None = None,
    ) -> Replay:
        """What ``policy`` (loaded, or its file; ``None``: the Gate's) would do to every
        recorded handoff in the store (``gates.stats.replay``), read-only. What happened
        is read under the Gate's own policy, or with ``as_written`` as the records say."""
        from handoff_gate.gates.stats.replay import replay
        from handoff_gate.gates.trust.policy import Policy as Loaded

        if policy is None:
            policy = self.policy
        elif not isinstance(policy, Loaded):
            policy = Loaded.load(Path(policy))
        if rules is None:
            rules = policy.auto if policy is not None else ()
        return replay(
            self.store,
            self.contracts,
            policy=policy,
            rules=tuple(rules),
            decided_under=None if as_written else self.policy,
            on_problem=on_problem,
        )

    def propose_rule(
        self,
        run: str | os.PathLike[str],
        ref_or_id: HandoffRef | str,
        *,
        beside: str | os.PathLike[str] | None = None,
    ) -> Proposal:
        """The ``[[auto]]`` rule that would approve calls like this approved tool call, and
        where it would be proposed (``gates.stats.proposal``); ``NoProposal`` says why not."""
        from handoff_gate.gates.stats.proposal import (
            NoProposal,
            Proposal,
            as_added,
            proposals_path,
            rule_like,
        )
        from handoff_gate.gates.vocab.states import HandoffState

        found = self.standing(run, ref_or_id)
        envelope = found.report.envelope
        if envelope is None:
            raise NoProposal("its envelope cannot be read")
        rule = rule_like(envelope)
        if found.state is not HandoffState.APPROVED:
            raise NoProposal("approve the call first: a rule is proposed from an approved call")
        path = proposals_path(self.policy, None if beside is None else Path(beside))
        policy, also = as_added(self.policy, rule)
        return Proposal(rule, path, policy, also)

    def add_proposal(self, proposal: Proposal, note: str) -> None:
        """Append ``proposal``'s table to its proposals file under ``note``."""
        from handoff_gate.gates.stats.proposal import append_proposal

        append_proposal(proposal.path, proposal.rule, note, self.policy)

    @classmethod
    def configured(cls, config: Config) -> Gate:
        """A Gate over the command line's settings, each part opened on first use
        (``gates.setup.Assembly``)."""
        gate = cls(setup=Assembly(config))
        gate.config = config
        return gate

    @property
    def setup(self) -> Setup:
        """The configuration: the store, the contracts, the policy and the key."""
        return self._setup if isinstance(self._setup, Setup) else self._setup.setup

    @property
    def store(self) -> RunStore:
        return self._setup.store

    @property
    def contracts(self) -> Registry:
        return self._setup.contracts

    @property
    def policy(self) -> Policy | None:
        return self._setup.policy

    @property
    def key(self) -> SigningKey | None:
        return self._setup.key

    # What a front end reads before its Gate is asked anything, read as the stages read
    # it: --policy and --key while parsing, --json-schema FILE, a payload file (capped, a
    # regular file, never through a link), and a hook's bound on store locks.
    read_policy = staticmethod(read_policy)
    read_key = staticmethod(read_key)

    @staticmethod
    def json_schema_document(data: bytes) -> dict[str, Any]:
        from handoff_gate.gates.contracts.json_schema import read_json_schema

        return read_json_schema(data)

    @staticmethod
    def check_json_schema(schema: JsonObject | bytes) -> JsonSchemaContract:
        from handoff_gate.gates.contracts.json_schema import contract_from_json_schema

        return contract_from_json_schema(schema)

    @staticmethod
    def locks_until(at: float) -> AbstractContextManager[None]:
        from handoff_gate.gates.store.lock_bound import lock_deadline

        return lock_deadline(at)

    @staticmethod
    def read_file(path: Path) -> bytes:
        from handoff_gate.gates.store.durable import read_bounded

        return read_bounded(path, MAX_HANDOFF_BYTES)

    @staticmethod
    def unattended_problem(key: SigningKey) -> str | None:
        """Why ``key`` would prompt for a passphrase (``watch`` and ``serve`` refuse it)."""
        from handoff_gate.gates.trust.sshsig import SigningError

        try:
            return key.unattended_problem()
        except SigningError as exc:
            return f"cannot use the key: {exc}"

    @staticmethod
    def notify_targets(urls: Iterable[str]) -> Targets:
        """Apprise URLs checked now (``ConfigError``); Apprise loads only when given one."""
        from handoff_gate.gates.notify.targets import NotifyURLError, targets

        try:
            return targets(list(urls))
        except NotifyURLError as exc:
            raise ConfigError(str(exc)) from exc

    def check_file(
        self, path: Path, *, schema_id: str | None = None, json_schema: JsonObject | None = None
    ) -> Report:
        """``check``'s report: a run folder's handoff file in its run, any other file alone
        (a bare payload of ``schema_id``, or of ``json_schema`` named by its digest)."""
        from handoff_gate.gates.contracts.json_schema import (
            contract_from_json_schema,
            schema_sha256,
        )
        from handoff_gate.gates.inspect.handoff_file import inspect_file
        from handoff_gate.gates.standing.report_in_run import inspect_in_run
        from handoff_gate.gates.store.filesystem import FilesystemStore

        if json_schema is not None:
            label = schema_id or f"sha256:{schema_sha256(json_schema)}"
            contracts = {label: contract_from_json_schema(json_schema)}
            return inspect_file(path, contracts, schema_id=label, max_bytes=MAX_HANDOFF_BYTES)
        if schema_id is None and self.is_stored_handoff(path):
            run, handoff_id = str(path.parent.parent), path.name.removesuffix(".json")
            where = FilesystemStore()  # the path's own folder, whatever store is configured
            return inspect_in_run(run, handoff_id, self.contracts, policy=self.policy, store=where)
        return inspect_file(path, self.contracts, schema_id=schema_id, max_bytes=MAX_HANDOFF_BYTES)

    @staticmethod
    def is_stored_handoff(path: Path) -> bool:
        """Whether ``path`` is a run folder's handoff file (``RUN/handoffs/ID.json``)."""
        from handoff_gate.gates.store.filesystem import is_run

        in_run = path.parent.name == "handoffs" and is_run(path.parent.parent)
        stem = path.name.removesuffix(".json")
        return in_run and path.suffix == ".json" and ID_PATTERN.match(stem) is not None

    def producer(self, phase: str) -> str | None:
        """Whom a handoff of ``phase`` is signed as, checked before anything is written
        (``None`` without a key; ``ValueError`` when the policy names no producer for it)."""
        from handoff_gate.gates.trust.sshsig import SigningError

        try:
            signing = self.setup.signing(phase)
        except (OSError, SigningError) as exc:
            raise ValueError(str(exc)) from exc
        return None if signing is None else signing.signer

    def decide_pending(
        self,
        run: str | os.PathLike[str],
        action: Action | str,
        *,
        phase: str | None = None,
        schema_id: str | None = None,
        **options: Unpack[BatchOptions],
    ) -> list[BatchResult]:
        """``decide --pending``: ``action`` on every handoff it may be taken on now, each
        bound to and decided on the look that found it (inspected once)."""
        from handoff_gate.gates.decide.batch import decide_many, open_handoffs
        from handoff_gate.gates.decide.decisions import BatchOptions, DecisionRequest

        checked("decide_pending", options, BatchOptions)
        found = open_handoffs(self.setup, run, action, phase=phase, schema_id=schema_id)
        request = DecisionRequest(action=action, **options)
        items = [(s.ref, s.ref.sha256) for s in found]
        return decide_many(
            self.setup, run, items, request, seen={s.ref.id: s.report for s in found}
        )

    def no_policy_warning(self) -> str:
        """What a wait without a policy says once: any writer of the run can approve."""
        from handoff_gate.gates.standing.quorum import no_policy_warning

        return no_policy_warning(self.store)

    def run_contracts(self, run: str | os.PathLike[str]) -> list[dict[str, Any]]:
        """``contracts list``: the run's stored JSON Schemas and its handoffs' Python ones."""
        from handoff_gate.gates.submit.stored_contracts import run_contracts

        return run_contracts(self.store, os.fspath(run), self.contracts)

    def stored_contract(self, run: str | os.PathLike[str], sha256: str) -> dict[str, Any]:
        """The JSON Schema the run stores under ``sha256``, checked (``JsonSchemaError``)."""
        from handoff_gate.gates.submit.stored_contracts import stored_schema

        return stored_schema(self.store, os.fspath(run), sha256)

    def strict_json_schema(self, schema_id: str) -> dict[str, Any]:
        """A contract as strict JSON Schema (``RegistryError`` if it cannot be one)."""
        from handoff_gate.gates.contracts.registry import strict_json_schema

        return strict_json_schema(self.contracts[schema_id])

    def separate(self, run: str, pipeline_uid: int, reviewers_gid: int) -> tuple[bool, str]:
        """``init``: a run folder the pipeline's account cannot touch the decisions of;
        whether it is new, and its label. A database is separated by its roles instead."""
        from handoff_gate.gates.store.filesystem import FilesystemStore

        if self.config is not None and self.config.store:
            raise ConfigError(
                "a database run is separated by its roles, not by OS accounts: "
                "handoff-gate store init --roles (see docs/deploy.md)"
            )
        with closing(FilesystemStore()) as where:
            return where.separate(run, pipeline_uid, reviewers_gid), where.run_label(run)

    def init_store(self, *, roles: bool) -> tuple[int, tuple[str, str] | None]:
        """``store init``: the configured database's schema migrated (and its roles made),
        without opening it as a run store; its version, and the roles' names."""
        with needs_extra("postgres"):
            import psycopg

            from handoff_gate.gates.store import postgres_schema as schema
            from handoff_gate.gates.store.pg_connect import StoreUnavailable, connect, one_line
        from handoff_gate.gates.store.select import POSTGRES, scheme_of

        url = self.config.store if self.config is not None else ""
        if scheme_of(url) not in POSTGRES:
            raise ConfigError(
                "store init needs a postgresql:// URL in --store or HANDOFF_GATE_STORE"
            )
        try:
            with connect(url) as conn:
                version = schema.init_schema(conn, roles=roles)
        except (StoreUnavailable, schema.SchemaTooNew) as exc:
            raise ConfigError(one_line(exc)) from None
        except psycopg.Error as exc:
            raise ConfigError(f"the database refused: {one_line(exc)}") from None
        return version, (schema.PIPELINE_ROLE, schema.REVIEWER_ROLE) if roles else None

    def copy(self) -> Gate:
        """This configuration over a store object of its own, for another thread."""
        return Gate(setup=replace(self.setup, store=self.store.copy(), owns_store=True))

    def events(self, *, poll: bool = False) -> EventSource:
        """The one watch of this Gate's store (made on the first call): the review screen
        and ``--notify-url``'s announcer both subscribe, so each new handoff is inspected once."""
        if self._events is None:
            from handoff_gate.gates.notify.source import EventSource

            self._events = EventSource(self.store, lambda: self.contracts, self.policy, poll=poll)
        return self._events

    _events: EventSource | None = None

    def announcer(
        self,
        targets: Targets,
        *,
        poll: bool = False,
        link: str | None = None,
        warn: Reporter | None = None,
        begin: threading.Event | None = None,
    ) -> Announcer:
        """``--notify-url``'s announcer over this Gate's one watch (``events``): it tells
        ``targets`` of each handoff that needs a person, from the looks the screen makes."""
        from handoff_gate.gates.notify.announcer import Announcer, to_stderr

        events = self.events(poll=poll)
        return Announcer(events, targets, link=link, warn=warn or to_stderr, begin=begin)

    @staticmethod
    def default_reviewer() -> str:
        """Who a decision names when nobody said: ``user@host``."""
        from handoff_gate.gates.decide.reviewer import default_reviewer

        return default_reviewer()

    def deciding_as(self, reviewer: str | None) -> str:
        """Who a screen's header says decides (``gates.decide.reviewer``): with a key
        under a policy the approvers it signs as, else ``reviewer`` or ``user@host``."""
        from handoff_gate.gates.decide.reviewer import header_name

        return header_name(reviewer, self.key, self.policy)

    def refusal(
        self,
        handoff_id: str,
        *,
        reviewer: str | None = None,
        producer: str | None = None,
        approvals: Collection[str] = (),
    ) -> str:
        """Why this Gate's key may not decide ``handoff_id`` (empty: it may), asked before
        a dialog opens so nobody types a reason ``decide`` would refuse; ``producer`` and
        ``approvals`` are what the handoff's standing says."""
        from handoff_gate.gates.decide.decisions import DecisionRefused, principal_for
        from handoff_gate.gates.standing.phase_rule import NoRule, rule_of

        if self.policy is None:
            return ""
        try:
            rule = rule_of(self.policy, handoff_id)
        except NoRule as exc:
            return str(exc)
        if self.key is None:
            return (
                f"under the policy only signed decisions count: start watch with --key; "
                f"who may decide {handoff_id}: {', '.join(rule.approvers)}"
            )
        principal = self._principals.get((rule, reviewer))
        if principal is None:
            try:
                principal = principal_for(self.key, self.policy, rule, reviewer)
            except DecisionRefused as exc:
                principal = exc
            self._principals[(rule, reviewer)] = principal
        if isinstance(principal, DecisionRefused):
            return f"{handoff_id}: {principal}"
        if producer == principal:
            return f"{principal!r} produced {handoff_id} and may not decide it"
        if principal in approvals:
            return f"{principal!r} already approved {handoff_id}"
        return ""

    @cached_property
    def _principals(self) -> dict[tuple[Any, str | None], str | Exception]:
        """Who the key decides each rule as: ``refusal`` is asked once per row of a list."""
        return {}

    def inspect_edit(
        self, run: str | os.PathLike[str], ref_or_id: HandoffRef | str, report: Report, data: bytes
    ) -> tuple[Report, bool]:
        """A reviewer's edit inspected as ``decide`` will inspect it, against the contract
        of the handoff ``report`` is of, and whether it may be approved; never raises."""
        from handoff_gate.gates.standing.edits import edit_problem, inspect_edit

        found = inspect_edit(
            self.store, run, handoff_id_of(ref_or_id), report, data, self.contracts
        )
        return found, edit_problem(found) is None


#: The Gate and what a front end reads or catches from its methods, named here so that a
#: front end imports the Gate's module and the vocabulary only (the CLI's import contract).
__all__ = [
    "CALLER_GAVE_UP",
    "TOOL_PHASE",
    "Config",
    "ConfigError",
    "Decision",
    "DecisionCorrupt",
    "DecisionRefused",
    "EditRefused",
    "Gate",
    "JsonSchemaError",
    "Registry",
    "RegistryError",
    "Reporter",
    "Standing",
    "Stats",
    "WaitOutcome",
    "WaitResult",
    "WithdrawRefused",
    "audit_lines",
    "describe",
    "duration",
    "stats_json",
]

#: What a front end imports from here besides the Gate, from the stage that defines it,
#: imported on first use (PEP 562): importing the Gate loads no stage a command does not
#: use (``hook``'s submit never loads the waits, ``policy`` no inspection).
_FROM_STAGES = {
    "CALLER_GAVE_UP": "handoff_gate.gates.vocab.caller",
    "Decision": "handoff_gate.gates.audit.decision_record",
    "DecisionCorrupt": "handoff_gate.gates.audit.decision_record",
    "DecisionRefused": "handoff_gate.gates.decide.decisions",
    "EditRefused": "handoff_gate.gates.decide.decisions",
    "JsonSchemaError": "handoff_gate.gates.contracts.json_schema",
    "Judged": "handoff_gate.gates.stats.replay",
    "Policy": "handoff_gate.gates.trust.policy",
    "Proposal": "handoff_gate.gates.stats.proposal",
    "Registry": "handoff_gate.gates.contracts.registry",
    "RegistryError": "handoff_gate.gates.contracts.registry",
    "Replay": "handoff_gate.gates.stats.replay",
    "SigningKey": "handoff_gate.gates.trust.signing_key",
    "Standing": "handoff_gate.gates.standing.standing",
    "Stats": "handoff_gate.gates.stats.figures",
    "TOOL_PHASE": "handoff_gate.gates.submit.tool_call",
    "Targets": "handoff_gate.gates.notify.targets",
    "WaitOutcome": "handoff_gate.gates.deliver.pickup",
    "WaitResult": "handoff_gate.gates.deliver.pickup",
    "WithdrawRefused": "handoff_gate.gates.decide.withdrawal",
    "audit_lines": "handoff_gate.gates.audit.log",
    "describe": "handoff_gate.gates.audit.decision_record",
    "duration": "handoff_gate.gates.stats.figures",
    "stats_json": "handoff_gate.gates.stats.figures",
}


def __getattr__(name: str) -> Any:
    module = _FROM_STAGES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
