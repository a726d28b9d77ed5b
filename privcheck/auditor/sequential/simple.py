"""The sequential policy's reserved *threshold* slot: the best half-line event of one ordered column.

The selection stage ranks unions of atoms by a prediction from the selection counts; on the few hundred
selection draws of a first epoch, unions of fine atoms (exact float outputs, mantissa bytes of an auto view)
fit the selection noise and can outrank the half-line ``{out ≤ t}`` that separates a continuous mechanism's
outputs (Laplace: the e-process needs a few dozen pairs of that half-line, hundreds of a noisy union). The
sequential policy therefore always bets on the best half-line too, in a slot of its own: the test's wealth is a
weighted *sum* over slots (:mod:`~privcheck.auditor.sequential.wealth`), so one more slot costs a share of the
initial wealth, never a union bound. The half-line is chosen on the epoch's selection counts only (the same
counts as the ranked events), so it is fixed before any of the epoch's estimation draws.
"""

from __future__ import annotations

import numpy as np

from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.selection import Event, label_columns, threshold_events


def best_threshold_event(
    coding: OutputCoding, counts: list, sizes: list[int], pairs, n_est: int, alpha: float, labels: list | None = None
) -> Event | None:
    """The half-line event of one ordered column with the best predicted bound over the ordered input ``pairs``
    (:func:`privcheck.auditor.selection.threshold_events` on each column's selection counts ``counts[i][(j,)]``
    of ``sizes[i]`` draws; ``n_est``, ``alpha``: the ranking's estimation size and level); None when no column
    is ordered or no half-line has a finite prediction. Described like the selection's events."""
    best: Event | None = None
    for j in range(coding.width):
        keys = coding.columns[j].order_keys()
        if int((~np.isnan(keys)).sum()) < 2:
            continue
        for a, b in pairs:
            c1 = np.asarray(counts[a][(j,)], np.float64)[None]
            c0 = np.asarray(counts[b][(j,)], np.float64)[None]
            masks, score = threshold_events(keys[None], c1, sizes[a], c0, sizes[b], n_est, alpha)
            s = float(score[0])
            if np.isfinite(s) and (best is None or s > best.predicted):
                best = Event((a, b), (j,), masks[0], s, "threshold")
    if best is not None:
        best.description = label_columns(coding.describe(best.family, best.atoms), labels)
    return best
