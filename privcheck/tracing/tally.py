"""Reading one coupled pair (:func:`read_pair`) and adding the readings up (:class:`Tally`) into a verdict.

A reading's distance is the larger of the location distance (the draw parameters) and the output
distance (when the streams stayed in step and no other parameter differed), in the trace's norm. It is a
*measured* distance between what the noise was added to on two neighbouring inputs, so the largest one
is a certain lower bound on the sensitivity; it refutes the declared Δ when it exceeds
:func:`privcheck.tracing.compare.allowed` (Δ·(1 + 1e−9) plus the float rounding of the values compared).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcheck.tracing.compare import PairReading, allowed, as_vector, compare_draws, norm, rounding_slack
from privcheck.tracing.coupling import Run, short
from privcheck.tracing.plan import same_size
from privcheck.tracing.result import Divergence, NonFinite


@dataclass
class Reading:
    """One pair, one run: ``distance`` (None: nothing numeric to measure) and the ``limit`` it is held
    to (None without a declared sensitivity), the divergences, the non-finite outputs, the output
    difference (for the additivity note) and whether the streams parted (``desynced``)."""

    distance: float | None
    limit: float | None
    run: int
    pair: tuple
    divergences: list[Divergence] = field(default_factory=list)
    nonfinite: list[NonFinite] = field(default_factory=list)
    diff: np.ndarray | None = None
    desynced: bool = False

    @property
    def exceeds(self) -> bool:
        """Whether the distance refutes the declared sensitivity."""
        return self.distance is not None and self.limit is not None and self.distance > self.limit

    @property
    def refutes(self) -> bool:
        """Whether this reading alone refutes (distance, a finding divergence, a non-finite output)."""
        return self.exceeds or any(d.finding for d in self.divergences) or bool(self.nonfinite)


def read_pair(ra: Run, rb: Run, xa: Any, xb: Any, run: int, kind: str, sensitivity: float | None) -> Reading:
    """Compare the coupled runs ``ra`` (at ``xa``) and ``rb`` (at ``xb``) of run number ``run``."""
    cmp: PairReading = compare_draws(ra.draws, rb.draws, (xa, xb), run, same_size(xa, xb))
    rd = Reading(None, None, run, (xa, xb), divergences=cmp.divergences, desynced=not cmp.synced)
    dist, mag, size = None, 0.0, 0
    if cmp.location is not None and cmp.location.size:
        if np.all(np.isfinite(cmp.location)):
            dist, mag, size = norm(cmp.location, kind), cmp.location_scale, cmp.location.size
    va, vb = as_vector(ra.output), as_vector(rb.output)
    for v, x, other, out in ((va, xa, xb, ra.output), (vb, xb, xa, rb.output)):
        if v is not None and not np.all(np.isfinite(v)):
            rd.nonfinite.append(NonFinite(short(x, 40), short(other, 40), short(out, 60), run))
    if cmp.synced and cmp.additive and va is not None and vb is not None and va.size == vb.size and not rd.nonfinite:
        diff = va - vb
        d_out = norm(diff, kind)
        rd.diff = diff
        if dist is None or d_out > dist:
            dist, size = d_out, va.size
        mag = max(mag, float(np.max(np.abs(np.concatenate([va, vb])), initial=0.0)))
    rd.distance = dist
    if dist is not None and sensitivity is not None:
        rd.limit = allowed(sensitivity, mag, max(size, 1), kind)
    return rd


class Tally:
    """The readings of a trace added up: the largest distance and its pair, the divergences (one entry per
    kind, call, parameter, site and pair, with a count of runs), the non-finite outputs, and the
    additivity of each pair's output difference across runs."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.best: Reading | None = None
        self.first_excess: Reading | None = None
        self.divergences: dict[tuple, Divergence] = {}
        self.nonfinite: list[NonFinite] = []
        self.readings = 0
        self.measured = 0
        self.desynced = 0
        self._diffs: dict[int, np.ndarray] = {}
        self.varying: list[str] = []

    def add(self, rd: Reading, pair_key: int | None = None) -> None:
        """Add one reading (``pair_key``: which pair, for the additivity note; None: not tracked)."""
        self.readings += 1
        self.desynced += rd.desynced
        if rd.distance is not None and math.isfinite(rd.distance):
            self.measured += 1
            if self.best is None or rd.distance > (self.best.distance or 0.0):
                self.best = rd
            if rd.exceeds and (self.first_excess is None or rd.distance > (self.first_excess.distance or 0.0)):
                self.first_excess = rd
        for d in rd.divergences:
            known = self.divergences.get(d.key())
            if known is None:
                self.divergences[d.key()] = d
            else:
                known.count += 1
        for n in rd.nonfinite:  # one entry per (input, neighbour)
            if len(self.nonfinite) < 20 and all((m.input, m.clean) != (n.input, n.clean) for m in self.nonfinite):
                self.nonfinite.append(n)
        if pair_key is not None and rd.diff is not None:
            self._note_additivity(pair_key, rd)

    def _note_additivity(self, key: int, rd: Reading) -> None:
        if rd.diff is None:
            return
        first = self._diffs.setdefault(key, rd.diff)
        if first is rd.diff or first.shape != rd.diff.shape:
            return
        spread = float(np.max(np.abs(first - rd.diff), initial=0.0))
        mag = float(np.max(np.abs(np.concatenate([first, rd.diff])), initial=0.0))
        if spread > rounding_slack(max(mag, 1.0), 1, "linf") and len(self.varying) < 5:
            self.varying.append(
                f"pair ({short(rd.pair[0], 30)}, {short(rd.pair[1], 30)}): the output difference changes with the "
                f"noise (by {spread:.4g} between runs): the noise is not only added last, so output distances are "
                "those of the released values"
            )
            self._diffs[key] = np.full_like(first, np.nan)  # noted once per pair

    def findings(self) -> list[Divergence]:
        """The divergences that refute."""
        return [d for d in self.divergences.values() if d.finding]
