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
