"""The sequential policy's estimate stage: one batch of fresh draws, each candidate event's *joint* counts.

The draw under ``x`` and the draw under ``x'`` with the same index in a batch form a pair: both come from the
streams of the batch's stage name (a name no other stage or batch uses: the draws are fresh), and both streams
are cut into the same chunks (:mod:`privcheck.base.scheduler`: same ``n``, same chunk sizes), so chunk ``c`` of
one input pairs with chunk ``c`` of the other. Each chunk returns its rows' event membership packed to bits;
pairing by index is fixed before any draw, so the pairs are i.i.d. with independent coordinates.
"""

from __future__ import annotations

import numpy as np

from privcheck.auditor.coding import OutputCoding
from privcheck.auditor.fresh_draws import draw_matrix
from privcheck.auditor.selection import Event
from privcheck.auditor.stages.draw import DrawRun, check_width

#: popcount of every byte value
_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _ones(bits: np.ndarray) -> np.ndarray:
    """Set bits per column of a packed ``(bytes, m)`` array."""
    return _POP[bits].sum(axis=0)


def joint_counts(a_chunks: list, b_chunks: list, j: int, n: int) -> tuple[int, int, int, int]:
    """``(n11, n10, n01, n00)`` of event column ``j`` over ``n`` pairs: chunk lists of packed membership
    (``np.packbits(members, axis=0)``) of the two inputs, paired chunk by chunk."""
    n11 = n1 = n0 = 0
    for pa, pb in zip(a_chunks, b_chunks, strict=True):
        a, b = pa[:, j], pb[:, j]
        n11 += int(_POP[a & b].sum())
        n1 += int(_POP[a].sum())
        n0 += int(_POP[b].sum())
    return n11, n1 - n11, n0 - n11, n - n1 - n0 + n11


def batch_counts(run: DrawRun, coding: OutputCoding, events: list[Event], n: int, name: str) -> list:
    """Each event's joint counts on ``n`` fresh pairs per ordered pair, from the streams of stage ``name``:
    a list (one entry per event) of ``(n11, n10, n01, n00)``."""
    used = sorted({i for ev in events for i in ev.pair})

    def member_chunk(smp, x, i, rng, size):
        data = check_width(draw_matrix(smp, x, size, rng), coding.width)
        return np.packbits(coding.event_members(data, events), axis=0)

    chunks = run.stage(member_chunk, name, n, used)
    return [joint_counts(chunks[ev.pair[0]], chunks[ev.pair[1]], j, n) for j, ev in enumerate(events)]
