"""The sequential policy's *final look*: one fixed-sample test at the end of the schedule's last epoch.

An e-process pays for being allowed to stop at every batch: at a fixed budget its wealth must reach ``1/α``
where a fixed-sample test of the same draws needs only a Clopper–Pearson tail of level ``α``. So that an audit
which spends its whole draws budget loses little against the rounds policy (one complete audit of about the
same size), the level is split in advance (:data:`FINAL_SHARE`):

- the e-process runs at ``α_e = (1 − FINAL_SHARE)·α`` (Ville: ``P(some batch rejects) ≤ α_e``);
- the schedule's last epoch — a function of the settings and of selection draws only (:meth:`Auto.next_size`
  depends on the budget and the draws so far; an epoch whose selection finds no event draws no estimation
  share; the stopping rule only ends the audit before it) — is also tested once, after all its batches, as a fixed-sample audit at ``α_f = FINAL_SHARE·α``: each of its ``m`` events (chosen on that epoch's
  selection draws, disjoint from its estimation pairs) is bounded by one-sided Clopper–Pearson limits at
  ``α_f/(2m)`` each on all of the epoch's estimation pairs (as :mod:`privcheck.auditor.stages.estimate`).

*Pooling.* An event of the last epoch that an earlier epoch also estimated — the same set of outputs: same
input pair, one column coded identically (:func:`pool_key`), same atoms — is counted on that epoch's estimation
pairs too. Every epoch's events are functions of its own selection draws only, so which earlier estimation draws
are pooled is decided by selection draws alone: conditionally on them the pooled counts are still independent
binomials of the event's two probabilities, and the Clopper–Pearson limits stay exact. (Reaching the last epoch
at all depends on the data; the test's level does not need it not to: see below.)

Validity: conditionally on the selection draws (which fix the last epoch, its events and what is pooled), the
final test's estimation counts are independent binomials, so it is valid at level ``α_f`` whether or not the
audit reaches it; the reported bound is the larger of the two, so by the union bound
``P(reported bound ≥ ε) ≤ α_e + α_f = α`` at whatever batch the audit stops.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.selection import Event
from privcheck.base.stats import log_ratio_lower_bound

#: the share of α the final look takes (the e-process keeps the rest)
FINAL_SHARE = 0.75


def split_alpha(alpha: float) -> tuple[float, float]:
    """``(α_e, α_f)``: the e-process's level and the final look's, summing to ``alpha`` ∈ (0, 1)."""
    alpha_f = FINAL_SHARE * alpha
    return alpha - alpha_f, alpha_f


def final_bound(counts: Iterable[tuple[int, int, int]], alpha_final: float, null: Any = None) -> float:
    """The final look's lower bound on ε: the largest ``log(lower/upper)`` over the epoch's events, each from its
    estimation counts ``(k1, k0, n)`` (``k1`` of ``n`` pairs under ``x``, ``k0`` under ``x'``) with one-sided
    Clopper–Pearson limits at ``alpha_final/(2m)`` each (Bonferroni over the ``m`` events); −inf without any.
    ``null`` (:mod:`~privcheck.auditor.sequential.nulls`; None: pure ε) bounds δ at the claimed ε or μ instead,
    from the same limits (its ``final``)."""
    rows = [(int(k1), int(k0), int(n)) for k1, k0, n in counts if n > 0]
    if not rows:
        return -math.inf
    a_each = alpha_final / len(rows)
    if null is not None:
        return max(null.final(k1, k0, n, a_each) for k1, k0, n in rows)
    return max(log_ratio_lower_bound(k1, n, k0, n, a_each) for k1, k0, n in rows)


def pool_key(coding: OutputCoding, event: Event) -> tuple[Any, ...] | None:
    """An identity of ``event`` as a set of outputs that holds across epochs (whose codings are fitted on pilots
    of their own): its pair, its column, that column's whole coding and its atoms; None for whole-row and
    column-pair events (never pooled)."""
    if len(event.family) != 1:
        return None
    col = coding.columns[event.family[0]]
    coder = (col.kind, int(col.lo), int(col.size), col.values.tobytes(), col.edges.tobytes())
    return (event.pair, event.family, coder, event.atoms.tobytes())
