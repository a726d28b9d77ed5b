"""The Monte Carlo lower bound on ε (and δ): the event strategy through the stages, black-box and valid.

:func:`monte_carlo_bound` accepts a built-in :class:`~estimators.base.Mechanism` or any plain sampler
``f(x, n, rng) -> outputs``. It validates, chooses the view (by output type unless given: a probe of its own,
:mod:`privcheck.auditor.autoviews`), probes the sampler's seeding (:mod:`privcheck.auditor.fresh_draws`) and
runs :class:`EventStrategy` — pilot coding, selection, fresh estimation (:mod:`privcheck.auditor.stages`) —
on one :class:`~privcheck.auditor.stages.draw.DrawRun`. No stage keeps more than a pilot and the chunks in
flight in memory; every result is a function of the seed alone, whatever the backend.

``view=fn`` audits ``fn(output)`` (valid by post-processing: a view cannot increase ε).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from estimators.base import Mechanism
from privcheck.auditor.autoviews import AutoView, auto_view, probe_size
from privcheck.auditor.defaults import DEFAULT_SAMPLES, MAX_EVENTS, SELECTION_SHARE
from privcheck.auditor.execution import Execution
from privcheck.auditor.fresh_draws import check_seeding
from privcheck.auditor.pipeline import run_strategy
from privcheck.auditor.result import MonteCarloBound
from privcheck.auditor.sizing import check_audit_request
from privcheck.auditor.stages.code import Coded, code_outputs
from privcheck.auditor.stages.draw import DrawRun
from privcheck.auditor.stages.estimate import estimate_events
from privcheck.auditor.stages.select import Selection, select_events
from privcheck.auditor.stages.settings import EventSettings
from privcheck.auditor.target import needed_inputs, resolve_pairs
from privcheck.auditor.user_code import guard_user_code
from privcheck.auditor.views import apply_view
from privcheck.base.scheduler import one_backend_per_call
from privcheck.base.seeding import derive
from privcheck.base.validation import check_confidence, check_int, check_probability


@dataclass
class EventStrategy:
    """The event family as a :class:`~privcheck.auditor.pipeline.Strategy`: atoms (code), candidate events
    (select) and their Clopper–Pearson bounds on fresh draws (estimate). ``view``: the run's view (None, False,
    an auto view or the user's); the pool check runs unless the user gave an explicit view."""

    settings: EventSettings
    view: Any = None

    def code(self, run: DrawRun) -> Coded:
        """Stage 2: the pilot fixes the coding."""
        explicit = self.view is not None and self.view is not False and not isinstance(self.view, AutoView)
        return code_outputs(run, self.settings, pool_check=not explicit)

    def select(self, run: DrawRun, coded: Coded) -> Selection:
        """Stage 3: candidate events from the selection counts."""
        return select_events(run, coded, self.settings, self.view)

    def estimate(self, run: DrawRun, selected: Selection) -> MonteCarloBound:
        """Stage 4: the events on fresh draws, bounded."""
        return estimate_events(run, selected, self.settings, getattr(self.view, "description", None))


def seed_sequence(seed: int | np.random.SeedSequence) -> np.random.SeedSequence:
    """``seed`` as a SeedSequence (an int ≥ 0 becomes ``SeedSequence(seed)``)."""
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))


def guarded(sampler: Any) -> Any:
    """A built-in mechanism as it is; user code wrapped so its failures are reported as the user's, by name."""
    return sampler if isinstance(sampler, Mechanism) else guard_user_code(sampler)


def choose_view(
    sampler: Callable,
    inputs: Sequence | None,
    samples: int,
    *,
    seed: np.random.SeedSequence,
    pairs: Any = None,
    neighbours: Callable | None = None,
) -> Any:
    """The view :func:`monte_carlo_bound` would choose by output type for an audit of ``samples`` draws per
    input (:func:`privcheck.auditor.autoviews.auto_view` on its own probe from ``seed``), as a value to pass
    back as ``view=``: the :class:`~privcheck.auditor.autoviews.AutoView`, or False when raw outputs suffice.
    Used by the adaptive rounds to probe once (sized for their first two rounds) instead of once per round
    (valid: the probe's draws are independent of every round's selection and estimation draws).
    """
    inputs, ordered = resolve_pairs(inputs, pairs, neighbours)
    needed = needed_inputs(ordered)
    view = auto_view(guarded(sampler), [inputs[i] for i in needed], seed, probe=probe_size(samples))
    return False if view is None else view


def prepare_run(
    sampler: Any,
    inputs: list,
    ordered: list[tuple[int, int]],
    samples: int,
    seed: np.random.SeedSequence,
    view: Any,
    execution: Execution,
) -> tuple[DrawRun, Any]:
    """The draw run of one event audit and its view: the view by output type when ``view`` is None (a probe
    from ``derive(seed, "autoview")``), the seeding probe, and the memory check for the probed output width."""
    needed = needed_inputs(ordered)
    sampler = guarded(sampler)
    if view is None:  # views chosen by output type on a probe of their own (privcheck.auditor.autoviews)
        view = auto_view(sampler, [inputs[i] for i in needed], derive(seed, "autoview"), probe=probe_size(samples))
    sampler = apply_view(sampler, view or None)
    backend = execution.backend(sampler)
    reproducible, width = check_seeding(sampler, inputs[needed[0]])
    # the probe showed the output width: refuse what the pilot and the chunks would not fit (huge user outputs)
    check_audit_request(
        sampler, samples, jobs=execution.jobs, width=width, n_inputs=len(needed), distributed=execution.distributed
    )
    run = DrawRun(sampler, inputs, ordered, needed, seed, backend, execution.progress, (), reproducible, width)
    return run, view


@one_backend_per_call
def monte_carlo_bound(
    sampler: Callable,
    inputs: Sequence | None,
    samples: int = DEFAULT_SAMPLES,
    *,
    confidence: float = 0.95,
    seed: int | np.random.SeedSequence = 0,
    jobs: int | None = None,
    selection_share: float = SELECTION_SHARE,
    max_events: int = MAX_EVENTS,
    delta_eps: float | None = None,
    progress: Callable[[int], None] | None = None,
    pairs: Any = None,
    neighbours: Callable | None = None,
    view: Callable | None = None,
    client: Any = None,
) -> MonteCarloBound:
    """A black-box lower bound on ε (and on δ at ``delta_eps``) from samples alone.

    Parameters
    ----------
    sampler : callable ``f(x, n, rng)`` returning ``n`` outputs (shape ``(n,)``
        or ``(n, d)``, numeric; ``NaN`` may mark "no value"; other output types
        through ``privcheck.auditor.outputs.encode_outputs`` when available).
        Its draws must be fresh and i.i.d. (:mod:`privcheck.auditor.fresh_draws`).
    inputs : candidate inputs; without ``pairs``/``neighbours`` all ordered
        pairs are searched (at least two inputs).
    samples : draws per input (≥ 20), split into a selection share (its first
        part, the pilot, fixes the coding) and a fresh estimation share.
    confidence : in (0, 1); the bound holds with at least this probability.
    seed : int or SeedSequence; the result is a function of it alone (for a
        sampler that uses its ``rng``), whatever ``jobs`` or backend.
    max_events : how many (pair, event) candidates reach the estimation
        stage; the Bonferroni correction divides α by this number.
    delta_eps : if given, also bound δ at this ε (events chosen for δ).
    pairs, neighbours : restrict the search to neighbouring inputs (see
        :func:`privcheck.auditor.target.resolve_pairs`).
    view : audit ``view(output)`` instead of the raw output (post-processing); None: the views
        :func:`privcheck.auditor.autoviews.auto_view` picks by output type; False: raw outputs only.
    client : a Dask client (or ``"local"``/an address) for
        :func:`privcheck.base.scheduler.get_backend`; ``None``: threads (or processes
        for samplers with ``prefers_processes = True``).
    """
    confidence = check_confidence(confidence)
    samples = check_int("samples", samples, minimum=20)
    inputs, ordered = resolve_pairs(inputs, pairs, neighbours)
    selection_share = check_probability("selection_share", selection_share, open_low=True, open_high=True)
    settings = EventSettings(
        samples, confidence, check_int("max_events", max_events, minimum=1), selection_share, delta_eps
    )
    if jobs is not None:
        jobs = check_int("jobs", jobs, minimum=1)
    execution = Execution(jobs, client, progress)
    run, view = prepare_run(sampler, inputs, ordered, samples, seed_sequence(seed), view, execution)
    return run_strategy(EventStrategy(settings, view), run)
