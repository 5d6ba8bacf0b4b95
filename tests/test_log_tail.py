"""The log's head a signed decision names: the last line, however the log is cut up.

A reviewer would notice a signature over the wrong log head (``audit --verify`` and
``show`` disagree) or a batch of signed approvals that slows down as the log grows.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from handoff_gate.gates.store.log_lines import LogLine, split_lines, tail_line

LINES = st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"x")), max_size=8)


def _expected(data: bytes, cap: int) -> LogLine | None:
    tail = deque(split_lines([data], cap), maxlen=1)
    return tail[0] if tail else None


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in pairwise(edges)]


@given(LINES, st.booleans(), st.lists(st.integers(0, 120), max_size=10), st.integers(1, 16))
def test_the_tail_is_the_last_line_split_lines_reads(
    lines: list[bytes], torn: bool, cuts: list[int], cap: int
) -> None:
    data = b"".join(line + b"\n" for line in lines)
    if torn:
        data += b"torn"
    assert tail_line(_cut(data, cuts), cap) == _expected(data, cap)


def test_an_empty_log_has_no_tail_and_a_long_last_line_only_its_digest() -> None:
    assert tail_line([]) is None and tail_line([b""]) is None
    found = tail_line([b'{"a": 1}\n', b"y" * 40, b"y" * 40 + b"\n"], cap=16)
    assert found is not None and found.raw is None and found.number == 2 and found.size == 80
    assert found == _expected(b'{"a": 1}\n' + b"y" * 80 + b"\n", 16)
