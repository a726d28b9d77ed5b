"""Stage 4, estimate (event family): each candidate event counted on *fresh* draws, bounded exactly.

On fresh draws (a different seed stream, disjoint from the pilot and selection draws), each candidate's count
under ``x`` and ``x'`` is taken chunk by chunk, ``P(E|x)`` is bounded from below and ``P(E|x')`` from above
with one-sided Clopper–Pearson limits at level ``α/(2m)`` each (Bonferroni over the ``m`` candidates).

Validity: the events are a function of the pilot and selection draws only, which are independent of the
estimation draws; conditionally on the events the estimation counts are independent binomials, so with
probability at least ``1 − α`` every candidate's ``log(lower/upper)`` is ≤ its true log-ratio ≤ ε (union bound
over the ``m`` candidates and the two limits each). For (ε, δ) claims the same events give a lower bound on δ
at the claimed ε: ``P(E|x) − e^ε P(E|x') ≤ δ(ε)``.
"""

from __future__ import annotations

import math

import numpy as np

from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.fresh_draws import draw_matrix
from privcheck.auditor.result import MonteCarloBound
from privcheck.auditor.selection import Event, delta_gap
from privcheck.auditor.stages.draw import DrawRun, check_width
from privcheck.auditor.stages.select import Selection
from privcheck.auditor.stages.settings import EventSettings
from privcheck.auditor.target import plain
from privcheck.base.stats import clopper_pearson, max_certifiable_log_ratio


def count_events(run: DrawRun, coding: OutputCoding, events: list[Event], n: int, name: str = "estimation") -> dict:
    """``{input index: counts of each event}`` on ``n`` fresh draws per input of the events' pairs, from the
    streams of stage ``name`` (a later batch of a sequential policy takes a name of its own)."""

    def est_chunk(smp, x, i, rng, size):
        return coding.count_events(check_width(draw_matrix(smp, x, size, rng), coding.width), events)

    return run.stage(est_chunk, name, n, sorted({i for ev in events for i in ev.pair}), reduce=np.add)


def event_candidates(inputs: list, events: list[Event], counts: dict, n: int, s: EventSettings) -> list[dict]:
    """Every event's record: its counts, Clopper–Pearson limits at ``α/(2m)`` each and the ε (and δ) bounds."""
    a_each = s.alpha / len(events)
    cands = []
    for j, ev in enumerate(events):
        a, b = ev.pair
        k1, k0 = int(counts[a][j]), int(counts[b][j])
        lo = clopper_pearson(k1, n, a_each / 2, "lower")
        hi = clopper_pearson(k0, n, a_each / 2, "upper")
        cands.append(
            {
                "pair": [plain(inputs[a]), plain(inputs[b])],
                "event": ev.description,
                "kind": ev.kind,
                "counts": [k1, n, k0, n],
                "p_lower": lo,
                "p_upper": hi,
                "eps_lower": math.log(lo / hi) if lo > 0 else -math.inf,
                "delta_lower": delta_gap(lo, hi, s.delta_eps) if s.delta_eps is not None else None,
                "predicted": ev.predicted,
            }
        )
    return cands


def best_candidate(cands: list[dict], by_delta: bool) -> int:
    """The index of the candidate with the best bound (on δ when ``by_delta``, else on ε; the first on ties)."""
    key = "delta_lower" if by_delta else "eps_lower"
    best = 0
    for j, c in enumerate(cands):
        if c[key] > cands[best][key]:
            best = j
    return best


def no_event_bound(run: DrawRun, s: EventSettings, n_pilot: int, cert: float) -> MonteCarloBound:
    """The bound when selection found no event: ``-inf`` (δ 0 when asked), nothing estimated."""
    return MonteCarloBound(
        -math.inf,
        s.confidence,
        s.samples,
        s.n_sel,
        s.n_est,
        cert,
        None,
        None,
        None,
        [],
        s.delta_eps,
        0.0 if s.delta_eps is not None else None,
        run.reproducible,
        n_pilot,
        len(run.ordered),
        s.n_sel * len(run.needed),
    )


def estimate_events(run: DrawRun, sel: Selection, s: EventSettings, view_description: str | None) -> MonteCarloBound:
    """Count the selected events on fresh draws and return the certified :class:`MonteCarloBound`."""
    events = sel.events
    cert = max_certifiable_log_ratio(s.n_est, s.n_est, s.alpha / max(1, len(events) or 1))
    if not events:
        return no_event_bound(run, s, sel.n_pilot, cert)
    counts = count_events(run, sel.coding, events, s.n_est)
    cands = event_candidates(run.inputs, events, counts, s.n_est, s)
    bj = best_candidate(cands, s.delta_eps is not None)
    ev = events[bj]
    return MonteCarloBound(
        eps_lower=max(c["eps_lower"] for c in cands),
        confidence=s.confidence,
        samples_per_input=s.samples,
        selection_samples=s.n_sel,
        estimation_samples=s.n_est,
        eps_max_certifiable=cert,
        worst_pair=(plain(run.inputs[ev.pair[0]]), plain(run.inputs[ev.pair[1]])),
        event=ev.description,
        counts=tuple(cands[bj]["counts"]),
        candidates=cands,
        delta_eps=s.delta_eps,
        delta_lower=max(0.0, cands[bj]["delta_lower"]) if s.delta_eps is not None else None,
        reproducible=run.reproducible,
        pilot_samples=sel.n_pilot,
        pairs_audited=len(run.ordered),
        draws=s.n_sel * len(run.needed) + s.n_est * len(counts),
        view=view_description,
    )
