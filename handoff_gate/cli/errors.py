"""Exit codes, the usage error, and the one wording each mistake gets in every command.

Exit codes are a contract (docs/protocol.md). Text from a payload, a decision or the
disk goes through ``visible`` so it can never drive the terminal.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from handoff_gate.gates.vocab.safe_text import visible

if TYPE_CHECKING:
    from handoff_gate.gates.vocab.findings import Finding

OK, FAIL, USAGE, TIMED_OUT, CHANGED = 0, 1, 2, 3, 4
#: ``wait``: the handoff's deadline passed undecided / the pipeline withdrew it.
EXPIRED, WITHDRAWN = 5, 6
#: ``wait``: a tool call's approval an earlier wait delivered (without ``--redeliver``).
ALREADY_DELIVERED = 7
INTERRUPTED = 130


class UsageError(Exception):
    """A bad argument, missing file or unreadable input: exit 2 with this message."""


class ArgumentError(UsageError):
    """Arguments that do not go together, found after parsing: printed as argparse
    prints its own errors (``PROG: error: ... (see 'PROG --help')``), exit 2."""


def one_line(exc: BaseException) -> str:
    """An exception as one escape-free line."""
    return visible(" ".join(str(exc).split()))


def flat(text: str) -> str:
    """``visible`` text kept on one line, so each finding or field is one greppable line."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def os_problem(action: str, target: str | Path, exc: OSError) -> UsageError:
    """``cannot ACTION TARGET: permission denied`` rather than a raw ``[Errno 13] …``."""
    why = exc.strerror.lower() if exc.strerror else one_line(exc)
    return UsageError(f"cannot {action} {target}: {why}")


def warn(message: str) -> None:
    """A warning the gate raised while the command goes on (``on_warning``): on stderr,
    so stdout stays what a script reads."""
    print(f"warning: {visible(message)}", file=sys.stderr)


def finding_line(f: Finding, severity: bool = True) -> str:
    """A finding as one greppable line, ``[SEVERITY]  CODE  PATH  MESSAGE``, in every
    command that prints one (here, not in ``report_text``, so ``decide`` loads no view)."""
    said = f"{f.code.value}  {flat(f.path) or '(payload)'}  {flat(f.message)}"
    return f"{f.severity.value:5}  {said}" if severity else said


def unknown_schema(schema_id: str) -> UsageError:
    return UsageError(f"unknown schema {schema_id!r}; see: handoff-gate schemas")
