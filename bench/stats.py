"""Robust summaries for noisy machines: medians and p95, never means."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Summary:
    """Median and p95 of one series of samples, in the series' own unit."""

    n: int
    median: float
    p95: float
    minimum: float
    maximum: float

    def to_json(self) -> dict[str, float | int]:
        return {
            "n": self.n,
            "median": self.median,
            "p95": self.p95,
            "min": self.minimum,
            "max": self.maximum,
        }


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: always an observed value, so p95 of 20 samples is the 19th."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarize(samples: Sequence[float]) -> Summary:
    return Summary(
        n=len(samples),
        median=statistics.median(samples),
        p95=percentile(samples, 95),
        minimum=min(samples),
        maximum=max(samples),
    )
