"""``ABSENT``: "no value here", where ``None`` would mean JSON ``null``.

One sentinel for the whole core: a missing field, a default that needs other fields, no
upstream payload, no previous payload. Two sentinels once made a caller's "absent" read
as a present value.
"""

from typing import Any, Final

ABSENT: Final[Any] = object()
