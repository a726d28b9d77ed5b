"""Stage 1, draw: the sampler at the audited inputs, in seeded chunks, through one backend.

Draws come in seeded chunks (:mod:`privcheck.base.scheduler`; chunk ``i`` of a stream uses child ``i`` of the
stream's SeedSequence, so results do not depend on the backend or worker count). A :class:`DrawRun` names the
stream of input ``i`` in stage ``name`` ``derive(seed, *prefix, name, i)``: stages with different names draw
from disjoint streams, which is what makes the selection and the estimation draws independent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from privcheck.auditor.fresh_draws import draw_matrix
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import Stream, map_streams
from privcheck.base.seeding import derive

#: what to do about outputs whose width varies
WIDTH_HINT = (
    "outputs of varying length (or sometimes complex); audit them with "
    "view=privcheck.auditor.views.as_atom (each output one atom)"
)

#: a chunk function ``fn(sampler, x, i, rng, size)``: its result for ``size`` draws at input ``x`` (index ``i``)
ChunkFn = Callable[[Any, Any, int, np.random.Generator, int], Any]


def check_width(data: Any, width: int) -> Any:
    """``data`` itself when its rows have ``width`` values; else a usage error (the width changed between chunks)."""
    if data.shape[1] != width:
        raise PrivcheckUsageError(
            f"sampler outputs changed width between chunks ({data.shape[1]} columns, expected {width}): {WIDTH_HINT}"
        )
    return data


def draw_chunk(smp: Callable, x: Any, i: int, rng: np.random.Generator, size: int) -> np.ndarray:
    """A chunk function returning the draws themselves (used where draws are kept: the pilot)."""
    return draw_matrix(smp, x, size, rng)


class AuditShared:
    """What every chunk of an audit needs and no stage changes: the sampler and the inputs it draws at
    (``inputs[i]`` for ``i`` in ``needed``). Passed to :func:`privcheck.base.scheduler.map_streams` as
    ``shared``, so that Dask scatters it once, not with every stage."""

    def __init__(self, sampler: Callable, inputs: Sequence, needed: Sequence[int]):
        self.sampler = sampler
        self.inputs = {i: inputs[i] for i in needed}


def run_stage(
    fn: ChunkFn,
    shared: AuditShared,
    which: Sequence[int],
    n: int,
    seed_of: Callable[[int], np.random.SeedSequence],
    *,
    backend: Any,
    progress: Callable[[int], None] | None = None,
    reduce: Callable | None = None,
) -> dict:
    """One stage of an audit as ONE map over the inputs ``which`` (indices into the audit's inputs).

    Input ``i`` draws ``n`` samples in the chunks of the stream ``seed_of(i)``; chunk results are
    ``fn(sampler, inputs[i], i, rng, size)``. Returns ``{i: chunk results in order}``, or ``{i: their
    fold with reduce}`` (associative, e.g. adding counts). The chunks and their generators are those of
    one ``map_chunks`` per input, so the results do not depend on the fusion or the backend.
    """
    which = list(which)

    def chunk(sh: AuditShared, s: int, rng: np.random.Generator, size: int) -> Any:
        i = which[s]
        return fn(sh.sampler, sh.inputs[i], i, rng, size)

    out = map_streams(
        chunk, [Stream(n, seed_of(i)) for i in which], shared=shared, backend=backend, progress=progress, reduce=reduce
    )
    return dict(zip(which, out))


@dataclass
class DrawRun:
    """The draw stage of one run: ``sampler`` (guarded, viewed) at ``inputs[i]`` for ``i`` in ``needed``, every
    stream below ``seed`` and ``prefix``, on one ``backend``.

    ``ordered`` are the ordered input pairs the run compares; ``reproducible`` and ``width`` what the seeding
    probe found (:func:`privcheck.auditor.fresh_draws.check_seeding`)."""

    sampler: Any
    inputs: list
    ordered: list[tuple[int, int]]
    needed: list[int]
    seed: np.random.SeedSequence
    backend: Any
    progress: Callable[[int], None] | None = None
    prefix: tuple[str, ...] = ()
    reproducible: bool = True
    width: int = 1
    shared: AuditShared = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # every stage is ONE map over all its inputs' chunks; the sampler and the inputs travel once (Dask: scattered)
        self.shared = AuditShared(self.sampler, self.inputs, self.needed)

    def stream(self, name: str, i: int) -> np.random.SeedSequence:
        """The seed stream of input ``i`` in stage ``name``."""
        return derive(self.seed, *self.prefix, name, i)

    def stage(self, fn: ChunkFn, name: str, n: int, which: Sequence[int] | None = None, reduce=None) -> dict:
        """:func:`run_stage` of ``fn`` over ``which`` (default: every needed input), ``n`` draws per input,
        on the streams of stage ``name``."""
        which = self.needed if which is None else list(which)
        return run_stage(
            fn,
            self.shared,
            which,
            n,
            lambda i: self.stream(name, i),
            backend=self.backend,
            progress=self.progress,
            reduce=reduce,
        )

    def matrices(self, name: str, n: int) -> dict[int, np.ndarray]:
        """``n`` draws per needed input from the streams of stage ``name``, kept (one matrix per input)."""
        return {
            i: np.concatenate(parts) if len(parts) > 1 else parts[0]
            for i, parts in self.stage(draw_chunk, name, n).items()
        }
