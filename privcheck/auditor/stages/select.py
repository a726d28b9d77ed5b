"""Stage 3, select (event family): candidate events from the selection counts, never from estimation draws.

The selection draws after the pilot are coded and counted chunk by chunk (memory independent of ``samples``);
from the atom counts alone, candidate events are chosen for every allowed ordered input pair and the
``max_events`` best are kept (:func:`privcheck.auditor.selection.candidate_events`). Streaming changes only
*which* events are chosen, never the validity argument of the estimate stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.fresh_draws import draw_matrix
from privcheck.auditor.selection import Event, candidate_events
from privcheck.auditor.stages.code import Coded
from privcheck.auditor.stages.draw import DrawRun, check_width
from privcheck.auditor.stages.settings import EventSettings


@dataclass
class Selection:
    """The select stage's result: the coding and the chosen events (functions of the selection draws only)."""

    coding: OutputCoding
    events: list[Event]
    n_pilot: int


def add_counts(total: dict, part: dict) -> dict:
    """``total`` with the atom counts ``part`` added in place (int64; associative, so it folds chunks in any grouping)."""
    for k, v in part.items():
        total[k] = total[k] + v if k in total else v.astype(np.int64)
    return total


def select_events(run: DrawRun, coded: Coded, s: EventSettings, view: Any = None) -> Selection:
    """Count the rest of the selection share (after the pilot) and choose the candidate events.

    ``view``: the run's view; its ``atom_labels`` (an auto view's) name derived columns in the descriptions."""
    coding = coded.coding
    n_rest = s.n_sel - coded.n_pilot
    if n_rest > 0:

        def sel_chunk(smp, x, i, rng, size):
            return coding.count_chunk(check_width(draw_matrix(smp, x, size, rng), coding.width))

        for i, part in run.stage(sel_chunk, "selection", n_rest, reduce=add_counts).items():
            add_counts(coded.counts[i], part)
            coded.sizes[i] = s.n_sel
    labels = view.atom_labels(coding.width) if hasattr(view, "atom_labels") else None
    events = candidate_events(
        coding,
        coded.counts,
        coded.sizes,
        run.ordered,
        s.n_est,
        s.ranking_level,
        max_events=s.max_events,
        delta_eps=s.delta_eps,
        labels=labels,
    )
    return Selection(coding, events, coded.n_pilot)
