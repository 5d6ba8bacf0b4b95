"""The names a run is addressed by: handoff ids and phase names, checked before any use.

An id comes from file names, file contents and arguments alike, and becomes part of a
path; nothing that fails these patterns is ever joined to one.
"""

from __future__ import annotations

import re

#: A phase name, the part of an id after the sequence number. As a pydantic ``pattern``
#: (a Rust regex, anchored with ``$``, which there matches only at the very end).
PHASE_REGEX = r"^[a-z0-9][a-z0-9_-]{0,39}$"
#: A handoff id: ``{seq:04d}-{phase}``. Also the file stem of its handoff and decision.
ID_REGEX = r"^[0-9]{4,}-" + PHASE_REGEX[1:]
#: The same patterns for Python's ``re``, where ``$`` would also accept a final newline.
PHASE_PATTERN = re.compile(PHASE_REGEX[:-1] + r"\Z")
ID_PATTERN = re.compile(ID_REGEX[:-1] + r"\Z")
#: A database run id, the rule for run directory names too (the ``runs`` table checks it).
RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\Z")
#: A contract id, ``name/vN`` (``plan/v1``): the grammar every contract id keeps, checked
#: before a store keeps one (the registry's ``SCHEMA_ID`` is the same).
SCHEMA_ID_PATTERN = re.compile(r"[a-z][a-z0-9_]*/v[0-9]+\Z")


class UnsafePathError(ValueError):
    """An id or path from a file or argument would leave the run directory."""


def validate_id(handoff_id: str) -> str:
    """Return ``handoff_id`` unchanged if it matches ``ID_PATTERN``; raise otherwise."""
    if not ID_PATTERN.match(handoff_id):
        raise UnsafePathError(f"not a handoff id: {handoff_id!r} (expected e.g. 0003-plan)")
    return handoff_id


#: A principal: the first field of an ``allowed_signers`` line, also a file name for
#: that principal's decision.
PRINCIPAL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}\Z")
