"""A certified interval ``lower <= exact value <= upper``: what every accountant query answers."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Interval:
    """A certified interval ``lower <= exact value <= upper``; ``method`` and ``notes`` explain it."""

    lower: float
    upper: float
    method: str = ""
    notes: tuple = field(default=())

    def __iter__(self):
        return iter((self.lower, self.upper))

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def __contains__(self, value) -> bool:
        return self.lower <= value <= self.upper
