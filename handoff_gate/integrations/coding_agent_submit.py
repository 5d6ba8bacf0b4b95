"""A coding agent's tool call stored as a tool-call handoff, before anything waits on it.

Its own module, over the configuration alone (``gates.setup.Setup``), so that a hook
stores the call having loaded no more than ``handoff-gate submit`` does; the hook's
waiting half loads after (``integrations.coding_agent_hook``), while a reviewer is being
asked. The same ``Setup`` backs the ``Gate`` the hook waits through.
"""

from __future__ import annotations

import os

from handoff_gate.gates.setup import Setup
from handoff_gate.gates.submit.tool_call import TOOL_PHASE, ToolCallSpec, submit_tool_call
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.integrations.coding_agents import Harness, ToolEvent, canonical


def submit_event(
    setup: Setup, run: str | os.PathLike[str], harness: Harness, event: ToolEvent
) -> HandoffRef:
    """Store the call under the harness's contract for the tool (else the free-form
    object), signed and given a deadline as the policy says for tool calls."""
    schema, description = harness.contract(event.tool)
    call = ToolCallSpec(
        event.tool, event.call_id, schema, description, harness.name, event.session, True
    )  # the hook is the call's one consumer: approvable only while it waits
    return submit_tool_call(
        setup.store,
        run,
        call,
        canonical(event.args).encode(),
        registry=setup.contracts,
        signing=setup.signing(TOOL_PHASE),
        expires_in=setup.expires_in(TOOL_PHASE, None),
    )
