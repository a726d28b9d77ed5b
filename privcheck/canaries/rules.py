"""Canary scores in, candidate decision rules out: validation, directions, threshold rules.

A *score* is any number that should be larger for canaries included in training ("in") than for
those left out ("out"). Decision rules:

- binary rules (Clopper–Pearson and GDP methods): "in" when score ≥ t, for every threshold t;
- guess rules (one-run methods): "in" for the scores ≥ t_in, "out" for the scores ≤ t_out,
  abstain in between. Two shapes on a geometric grid of guess counts k (ratio :data:`K_RATIO`,
  fixed before looking at the data): top-k guessed in (no out-guesses), and top-k in with bottom-k
  out.

Both directions of the ROC: the *reverse* rules ("in" when the score is low) are the same rules on
the negated scores, bounded separately with their own share of the error level.

Threshold rules (``thresholds=``): ``"bonferroni"`` (default: every rule tried, the error level
divided over all of them — for binary rules over every possible count value, which makes the
bounds simultaneous over *all* thresholds; see :mod:`privcheck.canaries.binary`), ``"split"`` /
``"split:F"`` (choose the rule on a random fraction F = 0.5 of the canaries, seeded, and bound it on
the rest at the full level) or a number (one fixed threshold, forward direction only, no
correction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

__all__ = [
    "K_RATIO",
    "ThresholdRule",
    "check_scores",
    "parse_thresholds",
    "parse_sides",
    "k_grid",
    "guess_candidates",
    "split_scores",
]

#: ratio of the geometric grid of guess counts tried by the one-run methods
K_RATIO = 1.1
SIDES = ("both", "forward")


def check_scores(name: str, scores) -> np.ndarray:
    """A 1-d float array of finite scores, or a one-line :class:`PrivcheckUsageError`."""
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise PrivcheckUsageError(f"{name} must be numbers (a 1-d array of scores)") from None
    if arr.ndim != 1:
        raise PrivcheckUsageError(f"{name} must be a 1-d array of scores, got shape {arr.shape}")
    if arr.size == 0:
        raise PrivcheckUsageError(f"{name} is empty: give at least one score")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise PrivcheckUsageError(f"{name} has a non-finite value ({arr[bad[0]]}) at index {int(bad[0])}")
    return arr


@dataclass(frozen=True)
class ThresholdRule:
    """How the decision rule is chosen: ``bonferroni``, ``split`` (fraction, seed) or ``explicit`` (threshold)."""

    kind: str
    fraction: float = 0.5
    seed: int = 0
    threshold: float | None = None

    def describe(self) -> str:
        """The rule in words, for the record."""
        if self.kind == "explicit":
            return f"fixed threshold {self.threshold:g} (forward direction, no correction)"
        if self.kind == "split":
            return (
                f"held-out split: rule chosen on a random {self.fraction:g} of the canaries (seed {self.seed}), "
                "bounded on the rest"
            )
        return "Bonferroni over every rule tried"


def parse_thresholds(thresholds, seed: int = 0) -> ThresholdRule:
    """``"bonferroni"``, ``"split"``, ``"split:F"`` (F in (0, 1)) or a finite number."""
    if isinstance(thresholds, ThresholdRule):
        return thresholds
    if isinstance(thresholds, (int, float)) and not isinstance(thresholds, bool):
        if not math.isfinite(thresholds):
            raise PrivcheckUsageError(f"thresholds: a fixed threshold must be finite, got {thresholds!r}")
        return ThresholdRule("explicit", threshold=float(thresholds))
    if isinstance(thresholds, str):
        t = thresholds.strip().lower()
        if t == "bonferroni":
            return ThresholdRule("bonferroni")
        if t == "split" or t.startswith("split:"):
            frac = 0.5
            if ":" in t:
                try:
                    frac = float(t.split(":", 1)[1])
                except ValueError:
                    frac = math.nan
            if not 0.0 < frac < 1.0:
                raise PrivcheckUsageError(f"thresholds: split fraction must be in (0, 1), got {thresholds!r}")
            return ThresholdRule("split", fraction=frac, seed=int(seed))
        try:
            return parse_thresholds(float(t))
        except ValueError:
            pass
    raise PrivcheckUsageError(f"thresholds must be 'bonferroni', 'split', 'split:F' or a number, got {thresholds!r}")


def parse_sides(sides: str) -> tuple[int, ...]:
    """Directions as signs: ``"both"`` → (1, −1) (forward, reverse), ``"forward"`` → (1,)."""
    if sides not in SIDES:
        raise PrivcheckUsageError(f"sides must be one of {', '.join(SIDES)}, got {sides!r}")
    return (1, -1) if sides == "both" else (1,)


def k_grid(limit: int) -> np.ndarray:
    """Guess counts 1, 2, … on a geometric grid of ratio :data:`K_RATIO` up to ``limit`` (included)."""
    if limit < 1:
        return np.zeros(0, dtype=int)
    ks, k = [], 1.0
    while k < limit:
        ks.append(int(round(k)))
        k = max(k * K_RATIO, k + 1.0)
    ks.append(int(limit))
    return np.unique(np.asarray(ks, dtype=int))


def guess_candidates(s_in: np.ndarray, s_out: np.ndarray) -> dict:
    """The guess rules of the one-run methods on these scores (forward direction).

    Returns arrays over candidates: ``t_in`` / ``t_out`` thresholds (guess in when score ≥ t_in,
    out when score ≤ t_out; t_out = −inf for top-only rules), ``guesses`` c' and ``correct`` c,
    and ``shape`` (0 top-only, 1 top-and-bottom). Ties at a threshold are all guessed alike, so a
    rule depends on the scores only, never on which canary is in.
    """
    pooled = np.sort(np.concatenate([s_in, s_out]))
    n = pooled.size
    in_sorted, out_sorted = np.sort(s_in), np.sort(s_out)
    rows = []
    for shape, ks in ((0, k_grid(n)), (1, k_grid(n // 2))):
        t_in = pooled[n - ks]  # the k-th largest score
        t_out = pooled[ks - 1] if shape == 1 else np.full(ks.size, -np.inf)
        n_in_hi = in_sorted.size - np.searchsorted(in_sorted, t_in, side="left")
        n_out_hi = out_sorted.size - np.searchsorted(out_sorted, t_in, side="left")
        n_in_lo = np.searchsorted(in_sorted, t_out, side="right")
        n_out_lo = np.searchsorted(out_sorted, t_out, side="right")
        overlap = t_out >= t_in  # the two sides meet: guess in wins
        n_in_lo = np.where(overlap, 0, n_in_lo)
        n_out_lo = np.where(overlap, 0, n_out_lo)
        guesses = n_in_hi + n_out_hi + n_in_lo + n_out_lo
        correct = n_in_hi + n_out_lo
        rows.append((t_in, t_out, guesses, correct, np.full(ks.size, shape)))
    t_in, t_out, g, c, sh = (np.concatenate(x) for x in zip(*rows))
    key = np.unique(np.stack([t_in, np.where(np.isinf(t_out), -1e308, t_out)], 1), axis=0, return_index=True)[1]
    key = np.sort(key)
    return {"t_in": t_in[key], "t_out": t_out[key], "guesses": g[key], "correct": c[key], "shape": sh[key]}


def apply_guess_rule(s_in: np.ndarray, s_out: np.ndarray, t_in: float, t_out: float) -> tuple[int, int]:
    """(guesses, correct) of one guess rule on these scores."""
    hi_in, hi_out = int(np.sum(s_in >= t_in)), int(np.sum(s_out >= t_in))
    if t_out >= t_in:
        lo_in = lo_out = 0
    else:
        lo_in, lo_out = int(np.sum(s_in <= t_out)), int(np.sum(s_out <= t_out))
    return hi_in + hi_out + lo_in + lo_out, hi_in + lo_out


def split_scores(s_in: np.ndarray, s_out: np.ndarray, fraction: float, seed: int):
    """((sel_in, sel_out), (est_in, est_out)): a random ``fraction`` of each side for selection."""
    from privcheck.base.seeding import generator

    rng = generator(seed, "canaries-split")
    parts = []
    for arr in (s_in, s_out):
        perm = rng.permutation(arr.size)
        cut = int(math.floor(arr.size * fraction))
        parts.append((arr[perm[:cut]], arr[perm[cut:]]))
    (a_sel, a_est), (b_sel, b_est) = parts
    if min(a_sel.size, b_sel.size, a_est.size, b_est.size) == 0:
        raise PrivcheckUsageError("thresholds='split' needs at least 2 scores on each side (in and out)")
    return (a_sel, b_sel), (a_est, b_est)
