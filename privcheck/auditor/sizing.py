"""How much an audit holds in memory, estimated from its parameters before it runs.

:func:`estimate_audit_memory` sizes an audit from the mechanism's parameters and the auditor's own
stage sizes (:data:`privcheck.auditor.defaults.SELECTION_SHARE`, the pilot); :func:`check_audit_request`
and :func:`check_run_samples` refuse, with one line, a request above the memory limit of
:mod:`privcheck.base.resources`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privcheck.auditor.defaults import PILOT, PILOT_VALUES, SELECTION_SHARE
from privcheck.base.resources import (
    RAISE_HINT,
    ResourceLimitError,
    check_samples,
    dimension_of,
    format_bytes,
    memory_limit,
)
from privcheck.base.seeding import DEFAULT_CHUNK

#: bytes per element of a candidate input held as a Python tuple (pointer + int object) or array
_BYTES_PER_INPUT_ELEMENT = 40
#: temporaries per drawn value (sampler intermediates, coding, event indicators)
_TEMPORARIES = 8


@dataclass(frozen=True)
class MemoryEstimate:
    """An estimate in bytes, with the parts it adds up (for the refusal message)."""

    total: int
    inputs: int
    selection: int
    chunk: int
    dimension: int


def _output_width(mech: Any, d: int) -> int:
    kind = getattr(mech, "output_kind", "discrete")
    return d if kind == "vector" else (2 if kind == "index_value" else 1)


def estimate_audit_memory(
    mech: Any, samples: int, *, jobs: int | None = 1, n_inputs: int | None = None, width: int | None = None
) -> MemoryEstimate:
    """Bytes an audit of ``mech`` with ``samples`` draws per input holds at once (an over-estimate).

    Computed from the mechanism's parameters only (its candidate inputs are not
    built: for ``d = 10^9`` building them is what exhausts memory). Parts: the
    candidate inputs (≤ 4 vectors of ``d`` elements for large ``d``), the stored
    selection draws (the auditor's pilot: ``min(n_sel, PILOT, max(2048,
    PILOT_VALUES / (inputs × width)))`` rows per input, as
    :func:`privcheck.auditor.stages.code.pilot_size` takes it), and one chunk of
    fresh draws per worker with its temporaries. ``width``: the values per
    output when known (a user sampler's probe); default from the mechanism.
    """
    d = dimension_of(mech)
    width = _output_width(mech, d) if width is None else max(1, int(width))
    k = n_inputs if n_inputs is not None else (4 if d > 4 else 24)
    inputs = k * d * _BYTES_PER_INPUT_ELEMENT
    n_sel = max(10, int(round(samples * float(SELECTION_SHARE))))
    n_pilot = min(n_sel, PILOT, max(2048, PILOT_VALUES // max(1, k * width)))
    selection = k * n_pilot * width * 8 * 2
    workers = max(1, int(jobs or 1))
    chunk = workers * min(samples, DEFAULT_CHUNK) * width * 8 * _TEMPORARIES
    return MemoryEstimate(
        total=inputs + selection + chunk, inputs=inputs, selection=selection, chunk=chunk, dimension=d
    )


def check_audit_request(
    mech: Any,
    samples: int,
    *,
    jobs: int | None = 1,
    max_memory: int | None = None,
    monte_carlo: bool = True,
    width: int | None = None,
    n_inputs: int | None = None,
    distributed: bool = False,
) -> MemoryEstimate:
    """Raise :class:`ResourceLimitError` (one line) when an audit would exceed ``max_memory`` bytes.

    ``max_memory`` defaults to :func:`memory_limit`; ``width`` and ``n_inputs``
    as in :func:`estimate_audit_memory` (the auditor passes them once a user
    sampler's probe has shown its output width); ``distributed``: the draws run
    on a Dask cluster (:func:`check_samples`). Returns the estimate otherwise.
    """
    if monte_carlo:
        check_samples(samples, distributed=distributed)
    limit = memory_limit() if max_memory is None else int(max_memory)
    est = estimate_audit_memory(mech, samples if monte_carlo else 0, jobs=jobs, width=width, n_inputs=n_inputs)
    if est.total > limit:
        name = getattr(mech, "name", None) or getattr(mech, "__name__", type(mech).__name__)
        size = f"d={est.dimension}" if width is None else f"outputs of {width} values"
        workers = f" on {jobs} workers" if (jobs or 1) > 1 else ""
        raise ResourceLimitError(
            f"auditing {name} with {size} and {samples:g} samples/input{workers} needs about "
            f"{format_bytes(est.total)} (inputs {format_bytes(est.inputs)}, draws {format_bytes(est.selection + est.chunk)}), "
            f"more than the limit {format_bytes(limit)}; lower {'d' if width is None else 'the output size'}"
            f"{', --jobs' if (jobs or 1) > 1 else ''} or --samples, or {RAISE_HINT}"
        )
    return est


class _ScalarMechanism:
    """Stand-in for the typical catalogue check: scalar outputs, a handful of inputs."""

    name = "a catalogue check"
    output_kind = "discrete"
    params: dict = {}


def check_run_samples(
    samples: int | None, *, jobs: int | None = 1, max_memory: int | None = None, distributed: bool = False
) -> None:
    """Refuse a ``verify --samples`` override whose per-check audit would not fit ``max_memory``.

    Every Monte Carlo check of a run may use ``samples`` draws per input; the
    estimate is that of a scalar-output audit with a few inputs, times the
    worker processes running at once.
    """
    if samples is None:
        return
    check_samples(samples, distributed=distributed)
    limit = memory_limit() if max_memory is None else int(max_memory)
    workers = max(1, int(jobs or 1))
    est = estimate_audit_memory(_ScalarMechanism(), samples, jobs=1, n_inputs=4)
    if est.total * workers > limit:
        raise ResourceLimitError(
            f"--samples {samples:g} needs about {format_bytes(est.total * workers)} across {workers} worker(s), "
            f"more than the limit {format_bytes(limit)}; lower --samples or --jobs, or {RAISE_HINT}"
        )
