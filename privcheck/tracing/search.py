"""Searching for the worst neighbouring pair with hypothesis: ``trace(..., neighbours=strategy)``.

Each example of the strategy is a pair ``(x, x2)``; it is traced like a given pair (a few coupled runs),
its distance is passed to :func:`hypothesis.target` so that the search climbs towards larger distances,
and a pair that refutes (a distance above the declared sensitivity, a data-dependent noise scale, a
non-finite output) fails the example, which hypothesis then shrinks to a simplest refuting pair.

Reproducible and clean: the search is seeded from the trace's seed (``hypothesis.seed``), keeps no
example database (``database=None``: nothing is written into the user's project) and prints nothing.
A function that *raises* on an example refuses that input (a correct answer for NaN or out-of-bounds
records): counted, not a finding.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Iterator

from privcheck.base.errors import PrivcheckUsageError, UserCodeError
from privcheck.tracing.tally import Reading

#: coupled runs per search example (the given pairs get the trace's ``runs``)
RUNS_PER_EXAMPLE = 2


@contextlib.contextmanager
def _private_storage() -> Iterator[None]:
    """Point hypothesis' storage (its cache of source constants; there is no database here) at a temporary
    directory for the block, removed afterwards: nothing is written into the user's project."""
    from hypothesis import configuration

    saved = getattr(configuration, "__hypothesis_home_directory", None)
    tmp = tempfile.mkdtemp(prefix="privcheck-hypothesis-")
    configuration.set_hypothesis_home_dir(tmp)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(saved)
        shutil.rmtree(tmp, ignore_errors=True)


class _Refutes(AssertionError):
    """Raised in an example that refutes, so that hypothesis shrinks it."""


@dataclass
class SearchRecord:
    """What the search saw: ``examples`` tried, ``refused`` (the function raised), the shrunk refuting pair's
    readings (``refuting``, empty when none refuted) and every reading (``readings``, for the tally)."""

    examples: int = 0
    refused: int = 0
    refuting: list[Reading] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    note: str | None = None


def search(
    strategy,
    examples: int,
    seed: int,
    trace_pair: Callable[[object, object], list[Reading]],
    passthrough: tuple[type[BaseException], ...] = (),
) -> SearchRecord:
    """Run the hypothesis search (see the module docstring); ``trace_pair(x, x2)`` returns its readings;
    exceptions of the ``passthrough`` types raised by it end the search and are re-raised."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
    from hypothesis import seed as hseed

    rec = SearchRecord()

    def body(pair) -> None:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise PrivcheckUsageError(f"the neighbours strategy must give pairs (x, x2), it gave {type(pair).__name__}")
        rec.examples += 1
        try:
            readings = trace_pair(pair[0], pair[1])
        except UserCodeError as exc:
            if exc.kind != "raised":
                raise
            rec.refused += 1
            return
        rec.readings.extend(readings)
        dists = [r.distance for r in readings if r.distance is not None]
        if dists:
            target(max(dists), label="distance")
        if any(r.refutes for r in readings):
            rec.refuting = readings
            raise _Refutes()

    test = given(strategy)(body)
    test = settings(
        database=None,
        max_examples=examples,
        deadline=None,
        derandomize=False,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.target, Phase.shrink),
        report_multiple_bugs=False,
    )(test)
    test = hseed(seed)(test)
    try:
        with _private_storage():
            test()
    except _Refutes:
        pass  # rec.refuting holds the last (shrunk) refuting example
    except (PrivcheckUsageError, UserCodeError):
        raise
    except BaseException as exc:
        if isinstance(exc, passthrough) or not isinstance(exc, Exception):
            raise
        # hypothesis' own complaints (flaky, unsatisfiable): one line
        if not rec.refuting:
            rec.note = f"the search stopped: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    return rec
