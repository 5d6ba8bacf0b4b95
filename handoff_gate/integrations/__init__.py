"""Adapters that put the gate inside agent frameworks, each behind an optional extra.

- ``handoff_gate.integrations.pydantic_ai`` (``pip install 'handoff-gate[pydantic-ai]'``):
  an output validator that holds an agent's output until a person approves it.
- ``handoff_gate.integrations.langgraph`` (``pip install 'handoff-gate[langgraph]'``):
  a gate node that submits once per execution (keyed on LangGraph's ``checkpoint_ns``)
  and interrupts until decided, and ``resume_all`` to resume every decided gate.

Tool calls a person approves before they run, each a tool-call handoff
(``tool_calls``, shared): pydantic-ai's ``tool_approvals`` and
``resolve_tool_approvals``, ``openai_agents.review_interruptions``
(``[openai-agents]``) and ``langchain.review_interrupts`` (``[langchain]``).

Importing this package loads neither framework; each module imports its own.
"""
