"""A report and a decision as plain, escape-free text for a terminal or a log.

Shared by ``check`` and ``show`` so a handoff reads the same wherever it is printed. The
brief form (``check``, ``show --brief``) is a first look: one line a field, long values
cut visibly. The full form (``show``) is what a reviewer decides on, so it hides nothing:
every value whole, wrapped (``wrap``) instead of cut, keeping every character.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

import jiter
from rich.cells import cell_len

from handoff_gate.cli.errors import finding_line, flat
from handoff_gate.gates.view.fields import field_rows
from handoff_gate.gates.vocab.envelope import Envelope
from handoff_gate.gates.vocab.report import FieldState, Report
from handoff_gate.gates.vocab.safe_text import elide, preview

#: Beyond this many field rows a brief report is cut with a visible ``…``.
MAX_ROWS = 400
#: How much of a field's ``description`` (what the contract says it is for) a brief row shows.
DESCRIPTION_LIMIT = 160
#: How much of a value a brief row shows.
VALUE_LIMIT = 80
#: The width a full report wraps to when stdout is not a terminal (a pipe, a file).
PIPE_WIDTH = 100
#: Never wrap text narrower than this, however deep its indent or narrow the terminal.
MIN_TEXT_WIDTH = 20
#: A continuation line's extra indent, so a wrapped value reads as one row.
HANG = "    "
#: Words, each with the spaces after it; an unsafe character's token is never split.
_WORDS = re.compile(r"\S+\s*|\s+")
_PIECES = re.compile(r"⟨[A-Z0-9+]{1,8}⟩|.", re.DOTALL)


def terminal_width() -> int:
    """The terminal's columns when stdout is one (that says a size), else ``PIPE_WIDTH``."""
    try:
        if sys.stdout.isatty():
            return os.get_terminal_size(sys.stdout.fileno()).columns or PIPE_WIDTH
    except (OSError, ValueError, AttributeError):
        pass
    return PIPE_WIDTH


def wrap(text: str, width: int, indent: str = "", hang: str = "") -> list[str]:
    """``text`` as lines of at most ``width`` cells: the first starting with ``indent``,
    the others with ``indent + hang``. Lines break after a word's spaces, or inside a word
    longer than a line; no character is dropped, so the lines without their indents join
    back into ``text`` exactly (trailing spaces included: they are part of the value).
    One pass over the text, so a megabyte without a space costs no more than its size."""
    rooms = (
        max(width - cell_len(indent), MIN_TEXT_WIDTH),
        max(width - cell_len(indent + hang), MIN_TEXT_WIDTH),
    )
    lines: list[str] = []
    current, used = "", 0
    for word in _WORDS.findall(text):
        size = cell_len(word)
        if used + size <= rooms[bool(lines)]:
            current, used = current + word, used + size
            continue
        if current:
            lines.append(current)
            current, used = "", 0
        if size <= rooms[bool(lines)]:
            current, used = word, size
            continue
        for head in _pieces(word, rooms[bool(lines)], rooms[1]):
            lines.append(head)
        current = lines.pop()
        used = cell_len(current)
    lines.append(current)
    leads = [indent] + [indent + hang] * (len(lines) - 1)
    return [lead + line for lead, line in zip(leads, lines, strict=True)]


def _pieces(word: str, first: int, room: int) -> list[str]:
    """``word`` cut into runs of at most ``first``, then ``room``, cells (a run of one
    wider piece excepted), never inside an unsafe character's token."""
    heads: list[str] = []
    if word.isascii():  # one cell a character, and no token (tokens are not ASCII)
        heads.append(word[:first])
        heads += [word[i : i + room] for i in range(first, len(word), room)]
        return heads
    start, used, limit = 0, 0, first
    for piece in _PIECES.finditer(word):
        size = cell_len(piece.group())
        if used + size > limit and piece.start() > start:
            heads.append(word[start : piece.start()])
            start, used, limit = piece.start(), 0, room
        used += size
    heads.append(word[start:])
    return heads


@dataclass(frozen=True)
class Out:
    """Where a report's lines go: ``width`` ``None`` prints each line as it is (the
    brief form, one greppable line per field), else each is wrapped to ``width``."""

    width: int | None = None

    @property
    def full(self) -> bool:
        return self.width is not None

    def line(self, text: str, indent: str = "") -> None:
        if self.width is None:
            print(indent + text)
            return
        print("\n".join(wrap(text, self.width, indent, HANG)))


def _value_text(value: Any, child_count: int, full: bool) -> str:
    if full:  # the rows below show a container's inside; everything else in full
        if isinstance(value, dict) and child_count:
            return f"{{{child_count} inside, below}}"
        if isinstance(value, list | tuple) and child_count:
            return f"[{child_count} inside, below]"
        return preview(value, sys.maxsize)
    text = preview(value, VALUE_LIMIT)
    if isinstance(value, dict | list) and child_count:
        return f"{text}  ({child_count} inside)"
    return text


def _print_rows(report: Report, parent: str, depth: int, budget: list[int], out: Out) -> None:
    for row in field_rows(report, parent):
        if not out.full and budget[0] <= 0:
            print("  …")
            return
        budget[0] -= 1
        states = ",".join(s.value for s in row.states)
        line = f"{flat(row.key)}  [{states}]  "
        absent = FieldState.MISSING in row.states
        line += "(absent)" if absent else _value_text(row.value, row.child_count, out.full)
        if row.message:
            line += f"  — {flat(row.message)}"
        if row.description:  # the contract's words: untrusted too; cut in the brief form
            about = row.description if out.full else elide(row.description, DESCRIPTION_LIMIT)
            line += f"  · about: {flat(about)}"
        out.line(line, "  " * (depth + 1))
        if row.child_count:
            _print_rows(report, row.path, depth + 1, budget, out)


def payload_sha256(handoff: bytes, report: Report) -> str | None:
    """The sha256 of the producer's exact bytes inside the handoff file ``handoff``, when
    these are the bytes ``report`` inspected (a file rewritten between the two reads
    gives ``None``: a digest of other bytes must never stand beside the report's), and
    the envelope carries them (``None`` for one upstream handed a parsed payload)."""
    if hashlib.sha256(handoff).hexdigest() != report.sha256:
        return None
    try:
        parsed = jiter.from_json(handoff, catch_duplicate_keys=True, allow_inf_nan=False)
        produced = Envelope.model_validate(parsed).producer_bytes()
    except ValueError:  # pydantic's ValidationError is one; so is a duplicate key
        return None
    return None if produced is None else hashlib.sha256(produced).hexdigest()


def digest_lines(report: Report, payload_sha256: str | None, in_envelope: bool) -> list[str]:
    """What each sha256 is of: ``sha256`` the bytes inspected (the handoff file a
    decision binds to, or a bare payload's bytes), and the payload's own digest."""
    if not in_envelope:
        return [f"sha256 {report.sha256}  of the payload bytes (submit stores them in a "
                "handoff file, whose own sha256 a decision binds to)"]  # fmt: skip
    lines = [f"sha256 {report.sha256}  of the handoff file: a decision binds to it "
             "(decide --sha256, wait --sha256)"]  # fmt: skip
    if payload_sha256 is not None:
        lines.append(f"payload sha256 {payload_sha256}  of the producer's bytes inside it")
    return lines


def print_report(
    name: str,
    report: Report,
    out: Out | None = None,
    *,
    payload_sha256: str | None = None,
    in_envelope: bool = True,
) -> None:
    """A field-by-field rendering: verdict, size and hashes, findings, then every field
    (``out``: brief by default). ``in_envelope``: the bytes inspected are a handoff file,
    not a bare payload, which decides what the ``sha256`` line says it is of."""
    out = out or Out()
    schema = flat(report.schema_id or "?")
    out.line(f"{flat(name)}: {report.verdict.value.upper()}  schema {schema}")
    out.line(f"{report.size} bytes (~{report.approx_tokens} tokens)", "  ")
    for line in digest_lines(report, payload_sha256, in_envelope):
        out.line(line, "  ")
    if report.findings:
        print("findings:")
    for f in report.findings:
        out.line(finding_line(f), "  ")
    budget = [MAX_ROWS]
    print("fields:")
    _print_rows(report, "", 0, budget, out)
    if budget[0] != MAX_ROWS:
        return
    if out.full and report.payload is not None:  # a payload that is not an object
        out.line(f"(the payload)  {preview(report.payload, sys.maxsize)}", "  ")
    else:
        print("  (none: nothing parsed into an object)")
