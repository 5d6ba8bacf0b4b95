"""A measured figure next to its baseline, its target, and whether the target is met."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from bench.stats import Summary

Stat = Literal["median", "p95"]


@dataclass(frozen=True, slots=True)
class Target:
    """``value.<stat> <= limit`` and ``value.<stat> / baseline.<stat> <= max_ratio``."""

    stat: Stat = "p95"
    limit: float | None = None
    max_ratio: float | None = None

    def describe(self, unit: str) -> str:
        parts = []
        if self.limit is not None:
            parts.append(f"{self.stat}≤{self.limit:g}{unit}")
        if self.max_ratio is not None:
            parts.append(f"≤{self.max_ratio:g}×")
        return " ".join(parts) or "-"


@dataclass(frozen=True, slots=True)
class Figure:
    """One line of the results table.

    ``baseline`` is measured in the same run; ``ratio`` compares the target's statistic
    (p95 for latencies, median for costs). ``error`` replaces the numbers when the
    measurement could not be made, so one broken benchmark never hides the others.
    """

    name: str
    unit: str
    value: Summary | None
    baseline_name: str = ""
    baseline: Summary | None = None
    target: Target | None = None
    note: str = ""
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def stat(self) -> Stat:
        return self.target.stat if self.target else "median"

    @property
    def ratio(self) -> float | None:
        if self.value is None or self.baseline is None:
            return None
        base = getattr(self.baseline, self.stat)
        return getattr(self.value, self.stat) / base if base > 0 else None

    @property
    def met(self) -> bool | None:
        """True/False against the target; None when there is no target or no value."""
        if self.target is None or self.value is None:
            return None
        ok = True
        if self.target.limit is not None:
            ok = ok and getattr(self.value, self.stat) <= self.target.limit
        if self.target.max_ratio is not None:
            ratio = self.ratio
            ok = ok and ratio is not None and ratio <= self.target.max_ratio
        return ok

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "value": self.value.to_json() if self.value else None,
            "baseline_name": self.baseline_name,
            "baseline": self.baseline.to_json() if self.baseline else None,
            "ratio": self.ratio,
            "ratio_stat": self.stat,
            "target": self.target.describe(self.unit) if self.target else None,
            "met": self.met,
            "note": self.note,
            "error": self.error,
            "extra": self.extra,
        }


def failed(name: str, error: str) -> Figure:
    return Figure(name=name, unit="", value=None, error=error)
