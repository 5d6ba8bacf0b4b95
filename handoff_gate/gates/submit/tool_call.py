"""Submitting a tool call: a framework's request to run a tool becomes a handoff.

The arguments are the payload; the tool's argument schema is its contract, stored in
the run by digest under an id made from that digest, so a changed schema is a new one.
The idempotency key is the thread, the call id and what a reviewer approves (tool name,
schema digest, argument bytes), so the same call id with anything else changed is a new
handoff to review, never the old approval.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any, NamedTuple, TypedDict

from handoff_gate.gates.contracts.json_schema import not_json_data
from handoff_gate.gates.submit.context import GateContext
from handoff_gate.gates.submit.submit import Payload, SubmitRequest, payload_bytes, submit
from handoff_gate.gates.submit.tool_keys import TOOL_PHASE as TOOL_PHASE
from handoff_gate.gates.submit.tool_keys import (
    approved_bytes_digest,
    call_key,
)
from handoff_gate.gates.submit.tool_keys import tool_schema_id as _tool_schema_id
from handoff_gate.gates.vocab.envelope import ToolCall
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.keywords import checked


class ToolCallSpec(NamedTuple):
    """What a framework says about one call: the tool, the call's id, the argument
    schema, and optionally what the tool does, which agent asked and in which thread."""

    name: str
    call_id: str
    parameters: Mapping[str, Any]
    description: str | None = None
    agent: str | None = None
    thread: str | None = None
    #: The submitting process waits on the call and is its one consumer (``ToolCall``).
    sole_waiter: bool = False


def tool_schema_id(parameters: Mapping[str, Any]) -> str:
    """The contract id a tool's argument schema is stored under in a run
    (``tool_keys``); ``JsonSchemaError`` for a document that is not JSON data."""
    try:
        return _tool_schema_id(parameters)
    except (TypeError, ValueError, RecursionError) as exc:
        raise not_json_data(exc) from exc


def approved_digest(call: ToolCallSpec, args: Payload) -> str:
    """A digest of what approving the call approves: the tool's name, its argument
    schema's digest and the argument bytes as stored (each length-framed)."""
    data = payload_bytes(args)
    try:
        return approved_bytes_digest(call.name, call.parameters, data)
    except (TypeError, ValueError, RecursionError) as exc:
        raise not_json_data(exc) from exc


class _Call(TypedDict):
    """What every tool call names (a required keyword each)."""

    tool: str
    args: Payload
    call_id: str
    json_schema: Mapping[str, Any]


class ToolCallOptions(_Call, total=False):
    """The keywords of ``Gate.submit_tool_call``, written once: the call (``ToolCallSpec``),
    its arguments, and how it is submitted (as for ``submit``)."""

    description: str | None
    agent: str | None
    thread: str | None
    phase: str
    idempotency_key: str | None
    signer: str | None
    on_warning: Callable[[str], None] | None
    expires_in: timedelta | str | None
    sole_waiter: bool


def tool_call_of(
    context: GateContext, options: ToolCallOptions
) -> tuple[ToolCallSpec, Payload, SubmitRequest]:
    """The call, its arguments and the request ``options`` make in ``context``: filed
    under ``TOOL_PHASE`` unless they name a phase, signed and given a deadline as
    ``SubmitRequest.of`` does."""
    checked("submit_tool_call", options, ToolCallOptions)
    call = ToolCallSpec(
        options["tool"],
        options["call_id"],
        options["json_schema"],
        options.get("description"),
        options.get("agent"),
        options.get("thread"),
        options.get("sole_waiter", False),
    )
    phase = options.get("phase", TOOL_PHASE)
    request = SubmitRequest(
        phase=phase,
        schema_id=tool_schema_id(call.parameters),
        idempotency_key=options.get("idempotency_key"),
        signing=context.signing(phase, options.get("signer")),
        on_warning=options.get("on_warning"),
        expires_in=context.expires_in(phase, options.get("expires_in")),
    )
    return call, options["args"], request


def submit_tool_call(
    context: GateContext,
    run: str | os.PathLike[str],
    call: ToolCallSpec,
    args: Payload,
    request: SubmitRequest,
) -> HandoffRef:
    """Store ``args`` as a tool-call handoff. A caller's own ``idempotency_key`` is bound
    to the tool, schema and arguments as the default one is."""
    tool = ToolCall(
        name=call.name,
        call_id=call.call_id,
        description=call.description,
        agent=call.agent,
        thread=call.thread,
        sole_waiter=True if call.sole_waiter else None,
    )
    contract = replace(
        request,
        schema_id=tool_schema_id(call.parameters),
        idempotency_key=_bound(request.idempotency_key, call, args),
        json_schema=call.parameters,
        tool=tool,
    )
    return submit(context, run, args, contract)


def _bound(key: str | None, call: ToolCallSpec, args: Payload) -> str:
    """The key a call is stored under (the run scopes every key): the caller's, or the
    thread and call id, with the digest of what is approved."""
    if key is None:
        return call_key(call.thread, call.call_id, approved_digest(call, args))
    return f"{key}:{approved_digest(call, args)}"
