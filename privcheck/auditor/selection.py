"""Choosing output events from selection counts (never from the estimation draws).

For each ordered input pair ``(x, x')`` allowed by the audit, and each event
family of the coding (whole rows, single columns, pairs of columns; see
:mod:`privcheck.auditor.coding`), two kinds of candidate event are built from
the selection counts of the atoms:

- ``union``: the prefix, in decreasing *conservative* likelihood ratio, of the
  atoms that maximises the predicted bound (the empirical Neyman–Pearson event);
- ``threshold``: for one ordered column, the half-line ``{out ≤ t}`` or
  ``{out ≥ t}`` that maximises the predicted bound (robust for long tails).

Ranking: an event's *predicted bound* is the bound it would certify if its
true probabilities were at the pessimistic end of the selection evidence
(Wilson bounds at :data:`Z_SELECTION` standard errors) and were then estimated
on ``n_est`` fresh draws at the estimation stage's level (Wilson bounds at its
normal quantile). Atoms seen a handful of times (rare tail values never seen
under the other input) therefore rank low: a ratio 3 : 0 is no evidence. The
prediction only ranks candidates; the certified bound comes from exact
Clopper–Pearson limits on fresh draws, so the ranking cannot affect validity.

The ``max_events`` candidates sent to estimation are the best event, then the
best of each other kind (rows, column unions, thresholds, column pairs) whose
prediction is within :data:`DIVERSITY_MARGIN` of it, then the best of the rest:
when whole-row atoms and coordinate-pair events predict alike, both reach the
estimation share, which decides among them. One extra slot, on top of ``max_events``, is reserved for the
*one-input* event (:func:`one_input_event`: outputs seen under one input only, an
ε = ∞ candidate) when the selection draws show one; all candidates share the one
Bonferroni correction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from privcheck.auditor.coding import Family, OutputCoding
from privcheck.base.normal import normal_quantile

#: selection-noise allowance of the predicted bound, in standard errors
Z_SELECTION = 3.0
#: at most this many prefixes are scored per ordering (log-spaced beyond the first 128)
MAX_PREFIXES = 512
#: columns whose pairs get joint atoms: the best TOP_COLUMNS per input pair, at most MAX_PAIR_COLUMNS
TOP_COLUMNS = 4
MAX_PAIR_COLUMNS = 8
#: the best event of another kind also reaches estimation if its prediction is within this fraction of the best
DIVERSITY_MARGIN = 0.25


@dataclass
class Event:
    """A data-chosen output event: a union of atoms of one family.

    pair: indices ``(a, b)`` of the inputs ``(x, x')`` (likelihood ratio
    ``P(E|x) / P(E|x')``); family: ``()`` rows, ``(j,)`` a column, ``(i, j)``
    a column pair; atoms: boolean mask over the family's atoms; predicted: its
    predicted bound; kind: rows / union / threshold / pair / one-input.
    """

    pair: tuple[int, int]
    family: Family
    atoms: np.ndarray
    predicted: float
    kind: str
    description: str = ""

    @property
    def columns(self):
        """The columns of the event (``None`` for whole rows; kept for older callers)."""
        return None if self.family == () else self.family

    def key(self) -> tuple:
        """Identity used to drop duplicate candidates."""
        return (self.pair, self.family, self.atoms.tobytes())


def wilson(k, n, z: float, side: str):
    """Wilson score bound on a proportion (vectorised; ranking only, never reported as a bound)."""
    k = np.asarray(k, dtype=np.float64)
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    half = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z2 / (4.0 * n * n))
    if side == "lower":
        return np.maximum((centre - half) / (1 + z2 / n), 0.0)
    return np.minimum((centre + half) / (1 + z2 / n), 1.0)


def delta_gap(lo, hi, eps: float):
    """``lo − e^eps · hi`` (a δ lower bound at ε from bounds on two event probabilities), never overflowing.

    lo, hi: probabilities in [0, 1] (scalars or arrays); eps ≥ 0 may exceed
    709 (e^eps overflows a float). ``hi = 0`` gives ``lo``; when ``e^eps · hi``
    exceeds the float range the result is ``-inf`` (no δ can be certified),
    so the value is never above the exact expression. Returns a float for
    scalar inputs, else an array.
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    with np.errstate(divide="ignore"):
        log_term = eps + np.log(hi)  # -inf when hi == 0
    out = np.where(log_term > 709.0, -np.inf, lo - np.exp(np.minimum(log_term, 709.0)))
    return float(out) if out.ndim == 0 else out


def predicted_bound(k1, n1: int, k0, n0: int, n_est: int, alpha: float, delta_eps: float | None = None):
    """Predicted ε (or, with ``delta_eps``, δ) bound of events with selection counts ``k1/n1`` and ``k0/n0``.

    The selection proportions are first moved :data:`Z_SELECTION` standard errors
    to their pessimistic side, then bounded as the estimation stage will
    (``n_est`` draws, one-sided level ``alpha/2``).
    """
    z = normal_quantile(1 - alpha / 2)
    p1 = wilson(k1, n1, Z_SELECTION, "lower")
    p0 = wilson(k0, n0, Z_SELECTION, "upper")
    lo = wilson(p1 * n_est, n_est, z, "lower")
    hi = wilson(p0 * n_est, n_est, z, "upper")
    if delta_eps is not None:
        return delta_gap(lo, hi, delta_eps)
    with np.errstate(divide="ignore"):
        return np.where(lo > 0, np.log(np.maximum(lo, 1e-300) / np.maximum(hi, 1e-300)), -np.inf)


def _cut_points(m: int) -> np.ndarray:
    if m <= MAX_PREFIXES:
        return np.arange(m)
    head = np.arange(128)
    tail = np.unique(np.geomspace(128, m - 1, MAX_PREFIXES - 128).astype(np.int64))
    return np.unique(np.concatenate([head, tail, [m - 1]]))


def _best_prefixes(order, valid_len, c1, n1, c0, n0, n_est, alpha, delta_eps):
    """Best prefix of each row's atom ``order`` (only the first ``valid_len`` atoms may enter).

    All arrays are 2-D ``(families, atoms)``; returns ``(masks, scores)``.
    """
    f, k = order.shape
    cuts = _cut_points(k)
    k1 = np.cumsum(np.take_along_axis(c1, order, axis=1), axis=1)[:, cuts]
    k0 = np.cumsum(np.take_along_axis(c0, order, axis=1), axis=1)[:, cuts]
    score = np.asarray(predicted_bound(k1, n1, k0, n0, n_est, alpha, delta_eps), dtype=np.float64)
    score = np.where(cuts[None, :] < np.asarray(valid_len)[:, None], score, -np.inf)
    j = np.argmax(score, axis=1)
    best = score[np.arange(f), j]
    take = (np.arange(k)[None, :] <= cuts[j][:, None]) & np.isfinite(best)[:, None]
    mask = np.zeros((f, k), bool)
    np.put_along_axis(mask, order, take, axis=1)
    return mask, best


def union_events(
    c1: np.ndarray, n1: int, c0: np.ndarray, n0: int, n_est: int, alpha: float, delta_eps: float | None = None
):
    """For each row of atom counts ``(families, atoms)``: the prefix of atoms in decreasing
    conservative ratio maximising the predicted bound. Returns ``(masks, predicted)``
    (``-inf`` where no event helps)."""
    valid = (c1 + c0) > 0
    lo = wilson(c1, n1, Z_SELECTION, "lower")
    hi = wilson(c0, n0, Z_SELECTION, "upper")
    key = np.where(valid, lo / np.maximum(hi, 1e-300), -1.0)
    raw = np.where(valid, ((c1 + 0.5) / (n1 + 1)) / ((c0 + 0.5) / (n0 + 1)), -1.0)
    order = np.lexsort((-raw, -key), axis=-1)
    return _best_prefixes(order, valid.sum(axis=1), c1, n1, c0, n0, n_est, alpha, delta_eps)


def threshold_events(
    keys: np.ndarray,
    c1: np.ndarray,
    n1: int,
    c0: np.ndarray,
    n0: int,
    n_est: int,
    alpha: float,
    delta_eps: float | None = None,
):
    """For each row: the best half-line event ``{key ≤ t}`` or ``{key ≥ t}`` over atoms with an
    order key (``NaN`` keys never enter; the whole line is not an event). Returns ``(masks, predicted)``."""
    valid = ~np.isnan(keys) & ((c1 + c0) > 0)
    filled = np.where(valid, keys, 0.0)
    nvalid = valid.sum(axis=1) - 1
    (best_mask, best), (mask, score) = (
        _best_prefixes(np.lexsort((sign * filled, ~valid), axis=-1), nvalid, c1, n1, c0, n0, n_est, alpha, delta_eps)
        for sign in (1.0, -1.0)
    )
    better = score > best
    best_mask[better], best[better] = mask[better], score[better]
    return best_mask, best


def best_union(
    c1: np.ndarray, n1: int, c0: np.ndarray, n0: int, n_est: int, alpha: float, delta_eps: float | None = None
):
    """One family's best union of atoms: ``(mask, predicted)`` (see :func:`union_events`)."""
    m, s = union_events(np.asarray(c1, float)[None], n1, np.asarray(c0, float)[None], n0, n_est, alpha, delta_eps)
    return m[0], float(s[0])


def best_threshold(
    keys: np.ndarray,
    c1: np.ndarray,
    n1: int,
    c0: np.ndarray,
    n0: int,
    n_est: int,
    alpha: float,
    delta_eps: float | None = None,
):
    """One ordered column's best half-line event: ``(mask, predicted)`` (see :func:`threshold_events`)."""
    m, s = threshold_events(
        np.asarray(keys, float)[None],
        np.asarray(c1, float)[None],
        n1,
        np.asarray(c0, float)[None],
        n0,
        n_est,
        alpha,
        delta_eps,
    )
    return m[0], float(s[0])


def _column_groups(coding: OutputCoding) -> list[list[int]]:
    """Columns grouped by their number of atoms (each group is scored as one 2-D batch)."""
    groups: dict[int, list[int]] = {}
    for j in range(coding.width):
        groups.setdefault(int(coding.n_codes[j]), []).append(j)
    return list(groups.values())


def _stack(counts: dict, cols: list[int]) -> np.ndarray:
    return np.stack([counts[(j,)] for j in cols]).astype(np.float64)


def pair_columns(
    coding: OutputCoding,
    counts: list[dict],
    n: list[int],
    pairs,
    n_est: int,
    alpha: float,
    delta_eps: float | None = None,
) -> tuple[int, ...]:
    """Columns whose pairs get joint atoms, chosen on pilot counts: the best :data:`TOP_COLUMNS`
    single columns of every input pair, at most :data:`MAX_PAIR_COLUMNS` overall (all columns when few)."""
    if coding.width <= 1:
        return ()
    if coding.width <= TOP_COLUMNS:
        return tuple(range(coding.width))
    best: dict[int, float] = {}
    groups = _column_groups(coding)
    for a, b in pairs:
        scores = []
        for cols in groups:
            _, sc = union_events(_stack(counts[a], cols), n[a], _stack(counts[b], cols), n[b], n_est, alpha, delta_eps)
            scores += list(zip(sc.tolist(), cols))
        for s, j in sorted(scores, reverse=True)[:TOP_COLUMNS]:
            if np.isfinite(s):
                best[j] = max(best.get(j, -np.inf), s)
    top = sorted(best, key=lambda j: -best[j])[:MAX_PAIR_COLUMNS]
    return tuple(sorted(top))


def one_input_event(
    coding: OutputCoding,
    counts: list[dict],
    n: list[int],
    pairs,
    n_est: int,
    alpha: float,
    delta_eps: float | None = None,
) -> Event | None:
    """The union of the atoms one input produced in the selection draws and the other never did, over the
    family and ordered pair where that union was seen most often (at least :data:`MIN_ONE_INPUT` times),
    or None. Such an event has likelihood ratio ∞ if its zero count is real; its predicted bound (which
    counts the zero as Z_SELECTION standard errors of evidence at most) ranks it too low to reach
    estimation on merit, so :func:`candidate_events` reserves it a slot (issue 20 §2)."""
    best = None
    for a, b in pairs:
        for fam in coding.families():
            c1, c0 = np.asarray(counts[a][fam]), np.asarray(counts[b][fam])
            mask = (c0 == 0) & (c1 > 0)
            k = int(c1[mask].sum())
            if k >= MIN_ONE_INPUT and (best is None or k > best[0]):
                best = (k, (a, b), fam, mask)
    if best is None:
        return None
    k, pair, fam, mask = best
    pred = float(predicted_bound(k, n[pair[0]], 0, n[pair[1]], n_est, alpha, delta_eps))
    return Event(pair, fam, mask, pred, "one-input")


#: a one-input event needs this many selection draws in it
MIN_ONE_INPUT = 8


_COLUMN = re.compile(r"out\[(\d+)\](?:=(-?\d+)(?![\d.eE]))?")


def label_columns(description: str, labels: list | None) -> str:
    """``description`` with each ``out[j]`` of a derived column replaced by its human name: ``out[j]=v`` by
    ``text(v)`` and ``out[j]`` before any other atom text (``<v``, ``in [a, b)``) by ``name``.

    labels: per column None (a raw column: kept as ``out[j]``) or ``(name, text)`` with ``text(int) -> str``
    (:meth:`privcheck.auditor.autoviews.AutoView.atom_labels`)."""
    if not labels:
        return description

    def sub(m):
        j = int(m.group(1))
        lab = labels[j] if j < len(labels) else None
        if lab is None:
            return m.group(0)
        return lab[1](int(m.group(2))) if m.group(2) is not None else lab[0]

    return _COLUMN.sub(sub, description)


def _all_events(coding: OutputCoding, counts: list, n: list[int], pairs, n_est: int, alpha: float, delta_eps):
    """Every candidate event of every ordered pair (single-column unions and thresholds, whole rows, column
    pairs) with a finite prediction, best first."""
    found: list[Event] = []
    groups = _column_groups(coding)
    keys = {tuple(cols): np.stack([coding.columns[j].order_keys() for j in cols]) for cols in groups}
    multi = [f for f in coding.families() if len(f) != 1]
    for a, b in pairs:
        for cols in groups:  # single columns, a 2-D batch per group
            c1, c0 = _stack(counts[a], cols), _stack(counts[b], cols)
            for kind, (masks, sc) in (
                ("union", union_events(c1, n[a], c0, n[b], n_est, alpha, delta_eps)),
                ("threshold", threshold_events(keys[tuple(cols)], c1, n[a], c0, n[b], n_est, alpha, delta_eps)),
            ):
                for r, j in enumerate(cols):
                    if np.isfinite(sc[r]):
                        found.append(Event((a, b), (j,), masks[r], float(sc[r]), kind))
        for fam in multi:  # whole rows and column pairs
            mask, score = best_union(counts[a][fam], n[a], counts[b][fam], n[b], n_est, alpha, delta_eps)
            if np.isfinite(score):
                found.append(Event((a, b), fam, mask, score, "rows" if fam == () else "pair"))
    found.sort(key=lambda e: -e.predicted)
    return found


def _unique(events: list[Event]) -> list[Event]:
    """``events`` without repeats of the same (pair, family, atoms), first occurrence kept."""
    unique, seen = [], set()
    for e in events:
        if e.key() not in seen:
            seen.add(e.key())
            unique.append(e)
    return unique


def _diverse_best(unique: list[Event], max_events: int) -> list[Event]:
    """Up to ``max_events`` of the ranked events: the best of each kind whose prediction is within
    :data:`DIVERSITY_MARGIN` of the best, first; then the best of the rest."""
    chosen: list[Event] = []
    kinds_done: set = set()
    floor = unique[0].predicted - DIVERSITY_MARGIN * abs(unique[0].predicted) if unique else 0.0
    for e in unique:  # the best event of each kind whose prediction is close to the best, first
        if len(chosen) >= max_events:
            break
        if e.kind not in kinds_done and (not chosen or e.predicted >= floor):
            kinds_done.add(e.kind)
            chosen.append(e)
    for e in unique:
        if len(chosen) >= max_events:
            break
        if not any(e is c for c in chosen):
            chosen.append(e)
    return chosen


def candidate_events(
    coding: OutputCoding,
    counts: list[dict],
    n: list[int],
    pairs,
    n_est: int,
    alpha: float,
    *,
    max_events: int,
    delta_eps: float | None = None,
    labels: list | None = None,
) -> list[Event]:
    """Choose up to ``max_events`` events over the allowed ordered input ``pairs``, plus the reserved
    one-input event (:func:`one_input_event`) when there is one.

    ``counts[i]`` maps each family of ``coding`` to the atom counts of input
    ``i`` on its ``n[i]`` selection draws. The events depend on these counts
    only; the caller must estimate their probabilities on fresh draws.
    ``labels``: human names of derived columns for the descriptions (see :func:`label_columns`).
    """
    ranked = _unique(_all_events(coding, counts, n, pairs, n_est, alpha, delta_eps))
    chosen = _diverse_best(ranked, max_events)
    only = one_input_event(coding, counts, n, pairs, n_est, alpha, delta_eps)
    if only is not None and only.key() not in {c.key() for c in chosen}:
        # the reserved slot comes on top of max_events rather than displacing a ranked candidate (displacing
        # the third-best lost the float-representation leaks of pure-ldp/multi-freq-ldpy HE, whose best event
        # ranks third behind a chance one-input union of binned whole-row atoms); the estimation's Bonferroni
        # correction is over len(events), so it counts this event too
        chosen.append(only)
    chosen.sort(key=lambda e: -e.predicted)
    for e in chosen:
        e.description = label_columns(coding.describe(e.family, e.atoms), labels)
    return chosen
