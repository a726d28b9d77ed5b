"""Stage 2, code (event family): the pilot — the first selection draws — fixes how outputs become atoms.

For each input, a first batch of selection draws (at most :data:`~privcheck.auditor.defaults.PILOT` per input,
and at most :data:`~privcheck.auditor.defaults.PILOT_VALUES` values over all inputs) fixes the output coding
(:mod:`privcheck.auditor.coding`: per-column atoms, column pairs worth joint atoms, whole-row atoms when few
distinct rows occur) and gives the first atom counts. The pilot is also where the fresh-draws contract is
checked for resampled pools (:func:`privcheck.auditor.fresh_draws.check_pool`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.defaults import PILOT, PILOT_VALUES
from privcheck.auditor.fresh_draws import check_pool
from privcheck.auditor.selection import pair_columns
from privcheck.auditor.stages.draw import WIDTH_HINT, DrawRun
from privcheck.auditor.stages.settings import EventSettings
from privcheck.base.errors import PrivcheckUsageError


@dataclass
class Coded:
    """The code stage's result: the coding, each input's atom counts (``counts[i]``: family → counts; None for
    inputs no pair uses) on ``sizes[i]`` draws, and the pilot size."""

    coding: OutputCoding
    counts: list
    sizes: list[int]
    n_pilot: int


def pilot_size(n_sel: int, n_inputs: int, width: int) -> int:
    """Pilot draws per input: the selection share, at most :data:`PILOT`, and at most :data:`PILOT_VALUES`
    values over all inputs (but 2048 draws at least)."""
    return min(n_sel, PILOT, max(2048, PILOT_VALUES // max(1, n_inputs * width)))


def code_outputs(run: DrawRun, s: EventSettings, *, pool_check: bool = True) -> Coded:
    """Draw the pilot, check it (one width; no resampled pool unless ``pool_check`` is off), fit the coding,
    add joint atoms for the column pairs worth them (:func:`privcheck.auditor.selection.pair_columns`) and
    count the pilot's atoms."""
    n_pilot = pilot_size(s.n_sel, len(run.needed), run.width)
    pilot = run.matrices("pilot", n_pilot)
    widths = {p.shape[1] for p in pilot.values()}
    if len(widths) != 1:
        raise PrivcheckUsageError(
            f"sampler outputs have different widths for different inputs ({sorted(widths)} columns): {WIDTH_HINT}"
        )
    if pool_check:
        check_pool(pilot, run.ordered, run.inputs, run.sampler)
    coding = OutputCoding.fit(np.concatenate([pilot[i] for i in run.needed]))
    counts: list = [None] * len(run.inputs)
    sizes = [0] * len(run.inputs)
    for i in run.needed:
        counts[i], sizes[i] = coding.count_chunk(pilot[i]), n_pilot
    cols = pair_columns(coding, counts, sizes, run.ordered, s.n_est, s.ranking_level, s.delta_eps)
    if cols:
        coding = coding.with_pair_columns(cols)
        for i in run.needed:
            counts[i] = coding.count_chunk(pilot[i])
    return Coded(coding, counts, sizes, n_pilot)
