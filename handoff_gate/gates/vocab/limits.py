"""Size caps shared by every reader and writer, so a file is judged the same everywhere."""

#: The cap on a handoff file read from a run (payload plus envelope) and on a payload read
#: by ``check``: larger files are blocked as ``oversize`` without being parsed.
MAX_HANDOFF_BYTES = 32 * 1024 * 1024
#: The cap on a decision file; a decision's size does not depend on its payload.
MAX_DECISION_BYTES = 256 * 1024
#: The cap on one audit log line. The gate's own lines are a few hundred bytes (a decision
#: event repeats at most a decision's fields); a longer line is not a record, so readers
#: skip its bytes instead of holding them, and an append never reads back further than this.
MAX_LOG_LINE = 1024 * 1024
#: How long each free-text part of a tool call may be (a name or an id is a line, not a
#: page); here, not beside ``vocab.envelope``'s model, so a hook reading an event checks
#: it without loading pydantic.
MAX_TOOL_TEXT = 200
MAX_TOOL_DESCRIPTION = 2000
#: A coding agent's hook event around the tool's arguments: its ids, paths and mode, never
#: near this; the hook reads at most ``MAX_HANDOFF_BYTES`` plus this from stdin.
HOOK_EVENT_SLACK = 64 * 1024
