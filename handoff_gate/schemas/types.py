"""Field types shared by the built-in contracts.

Closed sets are ``Literal`` and timestamps are patterned strings, never ``Enum`` or
``datetime``: inspection validates the parsed JSON in strict python mode, where those
types would reject the very strings a producer sends. Every text type has an upper
bound, because a runaway value (a model looping, a document pasted whole) is a bug the
gate should stop rather than pass on.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

#: One line of human text (a title, a goal, a question): no line breaks.
Line = Annotated[
    str, StringConstraints(min_length=1, max_length=500, pattern=r"^[^\r\n]*\S[^\r\n]*$")
]

#: Prose that may span lines (a brief, a rationale, a description).
Text = Annotated[str, StringConstraints(min_length=1, max_length=20_000, pattern=r"\S")]

#: A reference such as ``log-17``, ``kb-44`` or a URL: no whitespace at all.
Ref = Annotated[str, StringConstraints(min_length=1, max_length=300, pattern=r"^\S+$")]

#: A machine name for a step, a role or a claim.
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
]

#: A file path inside the project; whether it stays inside is a cross-field check,
#: so the message can name the exact offending element.
FilePath = Annotated[
    str, StringConstraints(min_length=1, max_length=300, pattern=r"^[^\r\n]*\S[^\r\n]*$")
]

#: ISO-8601 date and time with an explicit offset (``Z`` or ``+02:00``), so the order of
#: two stamps from different machines is never a guess.
Timestamp = Annotated[
    str,
    StringConstraints(
        max_length=40,
        pattern=(
            r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
            r"T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?"
            r"(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
        ),
    ),
]
