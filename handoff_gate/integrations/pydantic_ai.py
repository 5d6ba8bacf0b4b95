"""pydantic-ai: hold an agent's output until a person approves it.

Usage and what each outcome returns or raises: docs/integration.md, "pydantic-ai: an
output validator". The output is the delivered payload (only the contract's fields), so
what the reviewer did not see cannot reach the next phase; the validator's ``Gate``
reads what it is not given from the environment as the CLI does, so a policy in force
here is the one the CLI's ``wait`` honours.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, Unpack

import pydantic_core
from pydantic import BaseModel
from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart

from handoff_gate.gates.gate import Gate
from handoff_gate.gates.vocab.keywords import checked
from handoff_gate.integrations.adapter_options import HandoffOptions, KeySpec
from handoff_gate.integrations.feedback import rejection_text, settled
from handoff_gate.integrations.giving_up import wait_or_withdraw

# Tool-call approvals live in their own module (``pydantic_ai_tools``), named here too.
from handoff_gate.integrations.pydantic_ai_tools import (
    resolve_tool_approvals as resolve_tool_approvals,
)
from handoff_gate.integrations.pydantic_ai_tools import tool_approvals as tool_approvals

OutputT = TypeVar("OutputT")

Validator = Callable[[RunContext[Any], OutputT], Awaitable[OutputT]]


def _raw_output(ctx: RunContext[Any], output: object) -> bytes:
    """The bytes the model produced for this output, else the output serialized once."""
    last = ctx.messages[-1] if ctx.messages else None
    if isinstance(last, ModelResponse):
        for part in reversed(last.parts):
            if isinstance(part, ToolCallPart) and part.tool_name == ctx.tool_name:
                return part.args_as_json_str().encode()
        if ctx.tool_name is None:
            texts = [p.content for p in last.parts if isinstance(p, TextPart)]
            if texts:
                return "".join(texts).encode()
    if isinstance(output, BaseModel):
        return output.model_dump_json(by_alias=True).encode()
    return pydantic_core.to_json(output)


def _finish_reason(ctx: RunContext[Any]) -> str | None:
    last = ctx.messages[-1] if ctx.messages else None
    reason = getattr(last, "finish_reason", None)
    return reason if isinstance(reason, str) else None


def _typed(output: OutputT, payload: dict[str, Any], model: BaseModel | None) -> OutputT:
    """The approved payload in the agent's output type (the contract's model if it matches)."""
    kind = type(output)
    if isinstance(model, kind):
        return model
    if isinstance(output, BaseModel):
        typed: OutputT = kind.model_validate(payload)  # type: ignore[attr-defined]
        return typed
    return payload  # type: ignore[return-value]


def approval_gate(
    run: str | os.PathLike[str],
    *,
    from_role: str | None = None,
    to_role: str | None = None,
    idempotency_key: str | None = None,
    key: KeySpec = None,
    withdraw_on_timeout: bool = True,
    **options: Unpack[HandoffOptions],
) -> Validator[Any]:
    """An ``Agent.output_validator`` that submits each final output and waits for a person.

    The keywords and what each outcome returns or raises: docs/integration.md,
    "pydantic-ai: an output validator".
    """
    checked("approval_gate", options, HandoffOptions)
    where = os.fspath(run)
    phase, schema_id, timeout = options["phase"], options["schema_id"], options.get("timeout")
    store, registry, policy = options.get("store"), options.get("registry"), options.get("policy")

    async def validate(ctx: RunContext[Any], output: Any) -> Any:
        if ctx.partial_output:
            return output
        attempt_key = None if idempotency_key is None else f"{idempotency_key}:{ctx.retry}"
        with Gate(store, contracts=registry, policy=policy, key=key) as gate:
            ref = gate.submit(
                where,
                _raw_output(ctx, output),
                phase=phase,
                schema_id=schema_id,
                idempotency_key=attempt_key,
                from_role=from_role,
                to_role=to_role,
                finish_reason=_finish_reason(ctx),
                model=ctx.model.model_name,
                input_tokens=ctx.usage.input_tokens,
                output_tokens=ctx.usage.output_tokens,
                expires_in=options.get("expires_in"),
            )
            result = await wait_or_withdraw(
                gate, where, ref, timeout=timeout, withdraw=withdraw_on_timeout
            )
        if not settled(result, ref.id):
            raise ModelRetry(rejection_text(result))
        assert result.payload is not None  # approved always carries the payload
        return _typed(output, result.payload, result.model)

    return validate
