"""The part every tool-approval adapter shares: submit a turn's calls, wait for them
together, and answer each one in words a model can act on.

Arguments the schema refuses are blocked by inspection, so the call is denied at once
and no person is asked to approve what cannot run; the rest are waited on together, so
a turn of parallel calls costs one wait, not one per call.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from handoff_gate.gates.deliver.pickup import WaitOutcome, WaitResult
from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.findings import Code, Severity
from handoff_gate.gates.vocab.findings import Verdict as InspectionVerdict
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.report import Report
from handoff_gate.integrations.adapter_options import ExpiresIn, ReviewOptions
from handoff_gate.integrations.feedback import MAX_FINDINGS
from handoff_gate.integrations.giving_up import CANCELLED, wait_or_withdraw, withdraw_undecided


@dataclass(frozen=True, slots=True)
class Request:
    """One call a framework asks approval for. ``args`` is the model's own text when the
    framework kept it (so duplicate keys and bad JSON are seen), else the parsed object."""

    name: str
    call_id: str
    args: str | dict[str, Any]
    parameters: Mapping[str, Any]
    description: str | None = None
    agent: str | None = None
    thread: str | None = None
    #: The caller waits on the call now and is the only one that would run it (the MCP
    #: proxy): approvable only while that wait is live (``Gate.submit_tool_call``).
    sole_waiter: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's answer for one call: ``args`` (validated) when approved, else ``message``.

    ``dropped`` names the argument paths the contract did not know and the gate left out,
    so an adapter whose framework can only run the model's own arguments can refuse.
    """

    call_id: str
    approved: bool
    args: dict[str, Any] | None = None
    message: str = ""
    dropped: tuple[str, ...] = ()
    handoff: HandoffRef | None = None
    #: Why, without naming the call: the reviewer's reason, or how the review ended (for
    #: a framework that frames the rejection itself, as LangChain's middleware does).
    reason: str = ""
    #: Approved as a reviewer edited it: ``args`` are the edit's, not the model's.
    edited: bool = False


async def review_through(
    run: str | os.PathLike[str], requests: Sequence[Request], options: ReviewOptions
) -> list[Verdict]:
    """``review`` through the Gate ``options`` name: their store, policy and key, else the
    environment's (``HANDOFF_GATE_STORE``, ``_POLICY``, ``_KEY``), as the CLI reads them."""
    store, policy, key = options.get("store"), options.get("policy"), options.get("key")
    with Gate(store, policy=policy, key=key) as gate:
        return await review(
            gate,
            run,
            requests,
            timeout=options.get("timeout"),
            withdraw_on_timeout=options.get("withdraw_on_timeout", True),
            expires_in=options.get("expires_in"),
            redeliver=options.get("redeliver", False),
        )


async def review(
    gate: Gate,
    run: str | os.PathLike[str],
    requests: Sequence[Request],
    *,
    timeout: float | None = None,
    withdraw_on_timeout: bool = True,
    expires_in: ExpiresIn = None,
    redeliver: bool = False,
) -> list[Verdict]:
    """Submit every request as a tool-call handoff and answer each, in order.

    A resumed run asking again for the same call ids finds the same handoffs (the
    idempotency key is the thread and the call id). The keywords: docs/integration.md,
    "Tool calls" (``giving_up`` for a wait that ends undecided).
    """
    refs = [_submit(gate, run, request, expires_in) for request in requests]
    reports = [gate.inspect(run, ref) for ref in refs]
    waits = [
        _blocked(request, ref, report)
        if report.verdict is InspectionVerdict.BLOCKED
        else _waited(gate, run, request, ref, timeout, (withdraw_on_timeout, redeliver))
        for request, ref, report in zip(requests, refs, reports, strict=True)
    ]
    try:
        return list(await asyncio.gather(*waits))
    except asyncio.CancelledError:
        # A wait cancelled before it started never ran its own withdrawal; the ones
        # that did (or that were decided) refuse a second one, which is ignored.
        if withdraw_on_timeout:
            for ref in refs:
                withdraw_undecided(gate, run, ref, CANCELLED)
        raise


def _submit(
    gate: Gate, run: str | os.PathLike[str], request: Request, expires_in: ExpiresIn
) -> HandoffRef:
    return gate.submit_tool_call(
        run,
        tool=request.name,
        args=request.args,
        call_id=request.call_id,
        json_schema=request.parameters,
        description=request.description,
        agent=request.agent,
        thread=request.thread,
        expires_in=expires_in,
        sole_waiter=request.sole_waiter,
    )


async def _blocked(request: Request, ref: HandoffRef, report: Report) -> Verdict:
    why = blocked_reason(report)
    message = f"The call to {request.name} was not run: {why}"
    return Verdict(request.call_id, False, message=message, handoff=ref, reason=why)


async def _waited(
    gate: Gate,
    run: str | os.PathLike[str],
    request: Request,
    ref: HandoffRef,
    timeout: float | None,
    ending: tuple[bool, bool],
) -> Verdict:
    withdraw, redeliver = ending
    result = await wait_or_withdraw(
        gate, run, ref, timeout=timeout, withdraw=withdraw, quiet=True, redeliver=redeliver
    )
    dropped = dropped_keys(result.report)
    if result.outcome is WaitOutcome.APPROVED and result.payload is not None:
        return Verdict(
            request.call_id,
            True,
            args=result.payload,
            dropped=dropped,
            handoff=ref,
            edited=result.edited,
        )
    why = denial_reason(result, timeout)
    if result.outcome is WaitOutcome.REJECTED:
        message = f"A reviewer rejected the call to {request.name}. Reason: {why}"
    else:
        message = f"The call to {request.name} was not run: {why}"
    return Verdict(
        request.call_id, False, message=message, dropped=dropped, handoff=ref, reason=why
    )


def dropped_keys(report: Report | None) -> tuple[str, ...]:
    """The argument paths inspection left out because the schema does not name them."""
    if report is None:
        return ()
    return tuple(f.path for f in report.findings if f.code is Code.UNKNOWN_KEY)


def blocked_reason(report: Report) -> str:
    """Why a call was refused before review: the blocking findings only, one per line."""
    blocking = [f for f in report.findings if f.severity is Severity.BLOCK]
    lines = ["its arguments do not fit the tool's schema."]
    for finding in blocking[:MAX_FINDINGS]:
        where = f"{finding.path}: " if finding.path else ""
        lines.append(f"- {where}{finding.message}")
    return "\n".join(lines)


def denial_reason(result: WaitResult, timeout: float | None) -> str:
    """Why the call did not run, once: the reviewer's reason, or how the wait ended."""
    if result.outcome is WaitOutcome.REJECTED:
        decision = result.decision
        return decision.reason if decision is not None and decision.reason else "no reason given"
    if result.outcome is WaitOutcome.TIMEOUT:
        within = f" within {timeout:g} s" if timeout is not None else ""
        return f"no reviewer decided{within}."
    if result.outcome is WaitOutcome.CHANGED:
        return "its handoff changed after it was approved."
    if result.outcome is WaitOutcome.ALREADY_DELIVERED:
        return "its approval was delivered to an earlier run already, and it runs only once."
    return f"its review ended {result.outcome.value}."
