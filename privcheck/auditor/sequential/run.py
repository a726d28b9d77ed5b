"""The sequential draw policy: epochs of event selection, batches of fresh pairs, one e-process, stop at any batch.

Schedule (a function of the settings and of earlier batches only). Epoch ``k = 1, 2, …`` has
``Auto.next_size(k, used)`` draws per input (``first·growth^{k−1}``, cut to the budget): its selection share
(``selection_share``, pilot included) chooses the candidate events on streams of its own
(``derive(seed, "sequential", k)``: pilot, selection), then its estimation share is drawn in batches
(:data:`BATCH_SHARES` of it, none above :data:`MAX_BATCH`), each on streams of its own name (``estimation-b``).
After every batch the e-process (:mod:`privcheck.auditor.sequential.wealth`) is updated with the batch's joint
counts (:mod:`privcheck.auditor.sequential.pairs`) and the policy stops when the lower bound exceeds the claim
(refuted), reaches ``target`` times it, or a budget is spent; otherwise the next epoch re-selects on more draws.

Bets: slot ``j`` bets on the ``j``-th ranked event of its epoch with the Kelly fraction for plug-in
probabilities from this epoch's earlier batches of that event, else from an earlier epoch's counts of the same
event (same pair and description), else from its selection counts moved one standard error to the pessimistic
side (Wilson). All of these are fixed before the batch is drawn, which is all the e-process needs; so is the
event itself, chosen on selection draws no batch uses. Re-selecting therefore needs no share of α. Each epoch
also bets on its best half-line event in a slot of its own (:mod:`~privcheck.auditor.sequential.simple`).

Levels: the e-process runs at ``α_e``; the schedule's last epoch is also tested once, after its last batch, by
a fixed-sample Clopper–Pearson test at ``α_f`` (:mod:`~privcheck.auditor.sequential.final`; ``α_e + α_f = α``).

Reproducibility: the result is a function of the seed, the claim and the settings (the seconds budget only
decides where the looks stop; the record lists them).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from privcheck.auditor.adaptive import Auto, auto_settings
from privcheck.auditor.bound import EventStrategy, choose_view, prepare_run, seed_sequence
from privcheck.auditor.defaults import MAX_EVENTS, SELECTION_SHARE
from privcheck.auditor.execution import Execution
from privcheck.auditor.result import MonteCarloBound
from privcheck.auditor.selection import Event, wilson
from privcheck.auditor.sequential.final import final_bound, pool_key, split_alpha
from privcheck.auditor.sequential.nulls import DeltaAt, Gdp, Null, PureEps
from privcheck.auditor.sequential.pairs import batch_counts
from privcheck.auditor.sequential.record import Look, SequentialRecord, budget_line
from privcheck.auditor.sequential.simple import best_threshold_event
from privcheck.auditor.sequential.wealth import (
    EProcess,
    kelly_bet,
    log_factor,
    slot_weights,
    start_weight,
)
from privcheck.auditor.stages.settings import EventSettings
from privcheck.auditor.target import plain, resolve_pairs
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import one_backend_per_call
from privcheck.base.seeding import derive
from privcheck.base.validation import check_confidence, check_int, check_probability

#: an epoch's estimation share is drawn in batches of these fractions (a look after each; the first, small, gives
#: the plug-ins of the next) ...
BATCH_SHARES = (0.125, 0.125, 0.25, 0.5)
#: ... none above this many draws per input (memory: one bit per draw and event is kept until paired)
MAX_BATCH = 1 << 20
#: slots beyond ``max_events``: the selection's one-input event and the reserved half-line
#: (:mod:`~privcheck.auditor.sequential.simple`)
EXTRA_SLOTS = 2
#: standard errors a plug-in is moved to its pessimistic side: selection counts (the events are the selection's
#: best of many: their counts are optimistic) and estimation counts (noise)
Z_SELECTION_PLUG_IN = 3.0
Z_ESTIMATE_PLUG_IN = 0.5


def epoch_batches(n_est: int) -> list[int]:
    """The batch sizes (draws per input) of an epoch's ``n_est`` estimation draws (:data:`BATCH_SHARES`,
    each cut into pieces of at most :data:`MAX_BATCH`)."""
    sizes = [int(n_est * f) for f in BATCH_SHARES[:-1]]
    sizes.append(n_est - sum(sizes))
    out: list[int] = []
    for s in sizes:
        pieces = max(1, math.ceil(s / MAX_BATCH))
        out += [s // pieces + (1 if i < s % pieces else 0) for i in range(pieces)]
    return [s for s in out if s > 0]


@dataclass
class Slot:
    """One candidate event of an epoch: its selection counts (``k1``, ``k0`` of ``n_sel`` per input) and its
    estimation counts so far in this epoch (``e1``, ``e0`` of ``n`` pairs)."""

    event: Event
    k1: int
    k0: int
    n_sel: int
    e1: int = 0
    e0: int = 0
    n: int = 0
    pool: tuple | None = None  # the event's identity across epochs for the final look's pooling (final.pool_key)

    @property
    def key(self) -> tuple:
        """The event's identity across epochs (pair and description), for carrying plug-ins."""
        return (self.event.pair, self.event.description)

    def plug_in(self, carried: dict) -> tuple[float, float, bool]:
        """The plug-in ``(q1, q0)`` of the next bet, moved to its pessimistic side (Wilson bounds), and whether
        it is the selection's: this epoch's estimation counts (:data:`Z_ESTIMATE_PLUG_IN`), else an earlier
        epoch's of the same event, else the selection counts (:data:`Z_SELECTION_PLUG_IN`)."""
        if self.n > 0:
            k1, k0, n, z, sel = self.e1, self.e0, self.n, Z_ESTIMATE_PLUG_IN, False
        elif self.key in carried:
            k1, k0, n = carried[self.key]
            z, sel = Z_ESTIMATE_PLUG_IN, False
        else:
            k1, k0, n, z, sel = self.k1, self.k0, self.n_sel, Z_SELECTION_PLUG_IN, True
        return float(wilson(k1, n, z, "lower")), float(wilson(k0, n, z, "upper")), sel

    def add(self, counts: tuple[int, int, int, int]) -> None:
        """Add a batch's joint counts."""
        n11, n10, n01, n00 = counts
        self.e1 += n11 + n10
        self.e0 += n11 + n01
        self.n += n11 + n10 + n01 + n00


def selection_slots(coded: Any, events: list[Event], n_sel: int, previous: list) -> list[Slot | None]:
    """The epoch's slots: each event with its selection counts under both inputs of its pair. An event the last
    epoch also estimated (same pair and description) keeps its slot, so that slot's wealth stays on it; the
    others fill the free slots in rank order."""
    fresh = []
    for ev in events:
        a, b = ev.pair
        k1 = int(coded.counts[a][ev.family][ev.atoms].sum())
        k0 = int(coded.counts[b][ev.family][ev.atoms].sum())
        fresh.append(Slot(ev, k1, k0, n_sel, pool=pool_key(coded.coding, ev)))
    size = max(len(fresh), len(previous))
    placed: list[Slot | None] = [None] * size
    rest = []
    old = {s.key: j for j, s in enumerate(previous) if s is not None}
    for s in fresh:
        j = old.get(s.key)
        if j is not None and placed[j] is None:
            placed[j] = s
        else:
            rest.append(s)
    for j in range(size):
        if placed[j] is None and rest:
            placed[j] = rest.pop(0)
    return placed


@dataclass
class Context:
    """What every epoch of one sequential audit shares: the sampler at its inputs and pairs, the view, the
    backend, the seed, and the event strategy's settings."""

    sampler: Any
    inputs: list
    ordered: list
    view: Any
    execution: Execution
    seed: np.random.SeedSequence
    max_events: int
    share: float


@dataclass
class State:
    """The running audit: settings, the e-process, the current slots, what was drawn, the looks, why it stopped."""

    auto: Auto
    eps: float  # the claim in the grid's unit: ε, δ at the claimed ε, or μ (``null``)
    alpha: float
    proc: EProcess
    alpha_final: float = 0.0
    null: Null = field(default_factory=PureEps)
    final_eps: float = -math.inf  # the final look's ε bound on the same limits (δ claims: "separated")
    t0: float = field(default_factory=time.perf_counter)
    slots: list = field(default_factory=list)  # Slot or None (a slot without an event this epoch)
    carried: dict = field(default_factory=dict)
    pooled: dict = field(default_factory=dict)  # pool key -> [e1, e0, n] over the completed epochs
    looks: list[Look] = field(default_factory=list)
    used: int = 0
    pending: int = 0  # this epoch's selection draws per input, counted in its first look
    draws: int = 0
    selection: int = 0
    pilots: int = 0
    epochs: int = 0
    reproducible: bool = True
    stopped: str = "draws budget"
    done: bool = False
    final: float = -math.inf  # the final look's bound (:mod:`~privcheck.auditor.sequential.final`), once run
    final_pairs: int = 0  # the most pairs one event of the final look was counted on (pooling included)

    @property
    def bound(self) -> float:
        """The reported lower bound on ε: the e-process's and the final look's, the larger."""
        return max(self.proc.lower_bound(), self.final)

    @property
    def goal(self) -> float | None:
        """The ε the target asks to certify (None for a claim of 0 or ∞: only refutation stops early)."""
        return self.auto.target * self.eps if 0 < self.eps < math.inf else None

    def over_time(self, n: int) -> bool:
        """Whether drawing ``n`` more per input is predicted to overrun the seconds budget (rate so far)."""
        if self.auto.max_seconds is None or self.used + self.pending == 0:
            return False
        elapsed = time.perf_counter() - self.t0
        return elapsed + elapsed / (self.used + self.pending) * n > self.auto.max_seconds

    @property
    def filled(self) -> list[tuple[int, Slot]]:
        """The slots with an event this epoch, with their index (the order their events are counted in)."""
        return [(j, s) for j, s in enumerate(self.slots) if s is not None]

    def start_epoch(self, slots: list, n_sel: int, n_pilot: int, needed: int, reproducible: bool) -> None:
        """Begin an epoch: carry the last epoch's estimation counts, take its slots and selection draws, start
        the e-process components of this epoch."""
        self.proc.start()
        for _, s in self.filled:
            if s.n > 0:
                self.carried[s.key] = (s.e1, s.e0, s.n)
            if s.n > 0 and s.pool is not None:
                acc = self.pooled.setdefault(s.pool, [0, 0, 0])
                acc[0], acc[1], acc[2] = acc[0] + s.e1, acc[1] + s.e0, acc[2] + s.n
        self.slots = slots
        self.epochs += 1
        self.pending += n_sel
        self.selection += n_sel
        self.pilots += n_pilot
        self.draws += n_sel * needed
        self.reproducible &= reproducible

    def final_counts(self) -> list[tuple[int, int, int]]:
        """Each slot's ``(k1, k0, n)`` for the final look: this epoch's estimation counts plus, pooled, those of
        earlier epochs of the same event (:func:`~privcheck.auditor.sequential.final.pool_key`)."""
        out = []
        for _, s in self.filled:
            e1, e0, n = self.pooled.get(s.pool, (0, 0, 0)) if s.pool is not None else (0, 0, 0)
            out.append((s.e1 + e1, s.e0 + e0, s.n + n))
        return out

    def bet(self, counts: list, n: int, used_inputs: int) -> None:
        """One batch: every slot bets (plug-ins from earlier draws) and takes its joint counts; then the looks."""
        for (j, slot), c in zip(self.filled, counts, strict=True):
            q1, q0, from_selection = slot.plug_in(self.carried)
            e, d = self.null.at(self.proc.theta, q0)
            self.proc.update(j, c, kelly_bet(q1, q0, e, delta=d), from_selection, (e, d))
            slot.add(c)
        self.proc.close_batch(n)
        self.pending += n
        self.draws += n * used_inputs

    def look(self, epoch: int, pairs: int, seconds: float) -> None:
        """Record the look after a batch (or an epoch without events) and decide whether to stop."""
        lb = self.bound
        self.used += self.pending
        j, _ = self.best_slot()
        claim_i = int(np.searchsorted(self.proc.theta, self.eps, side="right")) if self.eps < math.inf else None
        log_e = None
        if claim_i is not None and claim_i < self.proc.theta.size:
            log_e = round(float(self.proc.log_wealth()[claim_i]), 6)
        event = self.slots[j].event.description if j is not None else None
        self.looks.append(
            Look(
                len(self.looks) + 1,
                epoch,
                self.pending,
                pairs,
                self.used,
                lb,
                self.max_certifiable(),
                log_e,
                event,
                seconds,
            )
        )
        self.pending = 0
        if lb > self.eps:
            self.stopped, self.done = "claim refuted", True
        elif self.goal is not None and lb >= self.goal and not self.refutation_in_sight():
            self.stopped, self.done = "target reached", True
        elif self.auto.max_seconds is not None and time.perf_counter() - self.t0 >= self.auto.max_seconds:
            self.stopped, self.done = "seconds budget", True

    def max_certifiable(self) -> float:
        """The e-process's power statement (:meth:`EProcess.max_certifiable`) for this audit's null (a GDP bet's
        tangent taken at a plug-in of one in as many as the pairs so far)."""
        if isinstance(self.null, PureEps):
            return self.proc.max_certifiable()
        return self.proc.max_certifiable(self.null.at(self.proc.theta, 1.0 / (self.proc.pairs + 2)))

    def refutation_in_sight(self) -> bool:
        """Whether the best slot's estimate of this epoch (its estimation counts' log ratio) exceeds the claim
        (then a target reached below the claim does not stop the audit: a few more batches may refute it). A
        choice of when to stop, made from earlier draws: it costs no validity (Ville holds at every batch)."""
        j, _ = self.best_slot()
        if j is None or self.slots[j].n == 0:
            return False
        slot = self.slots[j]
        return self.null.estimate(slot.e1, slot.e0, slot.n) > self.eps

    def best_slot(self) -> tuple[int | None, int]:
        """The slot holding the most wealth at the reported bound's grid point (θ = 0 without one), and that
        grid index; None without slots."""
        lb = self.proc.lower_bound()
        i = 0 if lb == -math.inf else int(np.searchsorted(self.proc.theta, lb))
        filled = [j for j, _ in self.filled]
        if not filled:
            return None, i
        wealth = self.proc.slot_wealth(i)
        return max(filled, key=lambda j: wealth[j]), i


def predicted_need(state: State, share: float) -> int | None:
    """Draws per input the best slot's estimated growth predicts the target needs (a prediction, never a bound):
    None when its estimated growth at the target is not positive."""
    goal = state.goal
    j, _ = state.best_slot()
    if goal is None or j is None:
        return None
    slot = state.slots[j]
    i = min(int(np.searchsorted(state.proc.theta, goal)), state.proc.theta.size - 1)
    theta = state.proc.theta[i : i + 1]
    q1, q0, _ = slot.plug_in(state.carried)
    e, d = state.null.at(theta, q0)
    c = kelly_bet(q1, q0, e, delta=d)
    pr = {(1, 1): q1 * q0, (1, 0): q1 * (1 - q0), (0, 1): (1 - q1) * q0, (0, 0): (1 - q1) * (1 - q0)}
    rate = sum(
        p * float(log_factor((a * b, a * (1 - b), (1 - a) * b, (1 - a) * (1 - b)), c, e, d)[0])
        for (a, b), p in pr.items()
    )
    if not rate > 0:
        return None
    weight = math.log(float(slot_weights(state.proc.slots)[0]) * start_weight(state.epochs))
    gap = state.proc.threshold - float(state.proc.log_wealth()[i]) - weight
    return state.used + max(0, math.ceil(max(gap, 0.0) / rate / (1.0 - share)))


def with_threshold(events: list[Event], coded: Any, settings: EventSettings, pairs, view: Any) -> list[Event]:
    """The selection's ranked ``events`` and the best half-line event (:mod:`~privcheck.auditor.sequential.simple`;
    a slot of its own) when it is not among them, all ordered by their predicted bound."""
    labels = view.atom_labels(coded.coding.width) if hasattr(view, "atom_labels") else None
    extra = best_threshold_event(
        coded.coding, coded.counts, coded.sizes, pairs, settings.n_est, settings.ranking_level, labels
    )
    if extra is None or extra.key() in {e.key() for e in events}:
        return list(events)
    return sorted([*events, extra], key=lambda e: -e.predicted)


def run_epoch(state: State, ctx: Context, k: int, size: int) -> None:
    """Epoch ``k`` of ``size`` draws per input: selection, then its batches until a look stops the audit."""
    t = time.perf_counter()
    last = state.auto.next_size(k + 1, state.used + size) is None  # fixed by the schedule before any draw
    run, _ = prepare_run(
        ctx.sampler, ctx.inputs, ctx.ordered, size, derive(ctx.seed, "sequential", k), ctx.view, ctx.execution
    )
    delta_eps = state.null.eps if isinstance(state.null, DeltaAt) else None
    settings = EventSettings(size, 1.0 - state.alpha, ctx.max_events, ctx.share, delta_eps)
    strategy = EventStrategy(settings, ctx.view)
    coded = strategy.code(run)
    sel = strategy.select(run, coded)
    events = with_threshold(sel.events, coded, settings, run.ordered, ctx.view)
    state.start_epoch(
        selection_slots(coded, events, settings.n_sel, state.slots),
        settings.n_sel,
        sel.n_pilot,
        len(run.needed),
        run.reproducible,
    )
    if not events:  # nothing separated the inputs: the next epoch selects on more draws
        state.look(k, 0, round(time.perf_counter() - t, 4))
        return
    events = [s.event for _, s in state.filled]  # in slot order
    used_inputs = len({i for ev in events for i in ev.pair})
    batches = epoch_batches(settings.n_est)
    for b, n in enumerate(batches, 1):
        if state.over_time(n):
            state.stopped, state.done = "seconds budget", True
            return
        counts = batch_counts(run, sel.coding, events, n, f"estimation-{b}")
        state.bet(counts, n, used_inputs)
        if last and b == len(batches):  # the final look: the schedule's last epoch, all its pairs, at alpha_f
            pooled = state.final_counts()
            state.final, state.final_pairs = (
                final_bound(pooled, state.alpha_final, state.null),
                max(c[2] for c in pooled),
            )
            if isinstance(state.null, DeltaAt):
                state.final_eps = final_bound(pooled, state.alpha_final)
        state.look(k, n, round(time.perf_counter() - t, 4))
        t = time.perf_counter()
        if state.done:
            return


def _bound(state: State, ctx: Context, confidence: float) -> MonteCarloBound:
    """The audit's :class:`MonteCarloBound` at stop: the e-process's bound and the best slot's event."""
    j, i = state.best_slot()
    wealth = state.proc.slot_wealth(i) if state.proc.starts else np.zeros(state.proc.slots)
    cands = []
    for s_j, s in state.filled:
        a, b = s.event.pair
        cands.append(
            {
                "pair": [plain(ctx.inputs[a]), plain(ctx.inputs[b])],
                "event": s.event.description,
                "kind": s.event.kind,
                "counts": [s.e1, s.n, s.e0, s.n],
                "selection_counts": [s.k1, s.n_sel, s.k0, s.n_sel],
                "log_wealth": round(float(wealth[s_j]), 6),
                "predicted": s.event.predicted,
            }
        )
    best = state.slots[j] if j is not None else None
    eps_lower, eps_top, delta_eps, delta_lower = state.bound, state.max_certifiable(), None, None
    if isinstance(state.null, DeltaAt):  # the grid bounds δ at the claimed ε; ε from the final look's limits
        delta_eps, delta_lower = state.null.eps, max(0.0, state.bound)
        eps_lower = max(state.final_eps, state.null.eps if state.bound > 0 else -math.inf)
        eps_top = state.proc.max_certifiable()  # of the pure-ε payoff: what these pairs could show about ε
    elif isinstance(state.null, Gdp):  # the grid bounds μ (record.mu_lower); ε is not bounded
        eps_lower, eps_top = -math.inf, -math.inf
    return MonteCarloBound(
        eps_lower=eps_lower,
        confidence=confidence,
        samples_per_input=state.used,
        selection_samples=state.selection,
        estimation_samples=state.proc.pairs,
        eps_max_certifiable=eps_top,
        worst_pair=None
        if best is None
        else (plain(ctx.inputs[best.event.pair[0]]), plain(ctx.inputs[best.event.pair[1]])),
        event=None if best is None else best.event.description,
        counts=None if best is None else (best.e1, best.n, best.e0, best.n),
        candidates=cands,
        reproducible=state.reproducible,
        pilot_samples=state.pilots,
        pairs_audited=len(ctx.ordered),
        draws=state.draws,
        view=getattr(ctx.view, "description", None),
        delta_eps=delta_eps,
        delta_lower=delta_lower,
    )


def _record(state: State, share: float) -> SequentialRecord:
    """The record of the run (with the budget line when a budget stopped it short of the target)."""
    a = state.auto
    rec = SequentialRecord(
        a.target, a.max_draws, a.max_seconds, state.alpha, state.stopped, state.used, state.epochs, state.looks
    )
    rec.alpha_final = state.alpha_final
    rec.log_threshold = math.log(1.0 / (state.alpha - state.alpha_final))
    rec.final_eps_lower = None if state.final == -math.inf else state.final
    rec.final_pairs = state.final_pairs
    rec.bounds = state.null.name
    if isinstance(state.null, Gdp):
        rec.mu_claimed, rec.mu_lower = state.eps, state.bound
        rec.mu_max_certifiable = state.max_certifiable()
    if state.stopped in ("draws budget", "seconds budget"):
        rec.needed_draws = predicted_need(state, share)
        elapsed = time.perf_counter() - state.t0
        rec.message = budget_line(
            a.target,
            state.eps,
            state.bound,
            state.used,
            len(state.looks),
            state.stopped,
            rec.needed_draws,
            elapsed,
        )
    return rec


def _context(sampler: Any, inputs: Any, auto: Auto, ss: np.random.SeedSequence, kw: dict, progress) -> Context:
    """Validate the Monte Carlo keywords and fix what every epoch shares (the view probed once, by output type,
    for the first two epochs' size)."""
    inputs, ordered = resolve_pairs(inputs, kw.get("pairs"), kw.get("neighbours"))
    jobs = kw.get("jobs")
    execution = Execution(None if jobs is None else check_int("jobs", jobs, minimum=1), kw.get("client"), progress)
    view = kw.get("view")
    if view is None:
        first_two = min(auto.max_draws, auto.first_size * auto.growth)
        view = choose_view(
            sampler,
            inputs,
            first_two,
            seed=derive(ss, "autoview"),
            pairs=kw.get("pairs"),
            neighbours=kw.get("neighbours"),
        )
    share = check_probability(
        "selection_share", kw.get("selection_share", SELECTION_SHARE), open_low=True, open_high=True
    )
    max_events = check_int("max_events", kw.get("max_events", MAX_EVENTS), minimum=1)
    return Context(sampler, inputs, ordered, view, execution, ss, max_events, share)


def sequential_null(eps: float, delta: float | None, mu: float | None, delta_eps: float | None) -> tuple[Null, float]:
    """The null family (:mod:`~privcheck.auditor.sequential.nulls`) and the claim in its unit for a claimed ε
    (δ = 0), (ε, δ) with δ in (0, 1), or μ > 0; bad values raise :class:`PrivcheckUsageError` (one line)."""
    if mu is not None:
        m = float(mu)
        if not (0.0 < m < math.inf):
            raise PrivcheckUsageError(f"mu must be a positive finite number, got {mu!r}")
        return Gdp(), m
    e = float(eps)
    if not e >= 0.0:
        raise PrivcheckUsageError(f"eps must be >= 0, got {eps!r}")
    if delta is None or float(delta) == 0.0:
        if delta_eps is not None:
            raise PrivcheckUsageError("delta_eps is for an (eps, delta) claim: give its delta= too")
        return PureEps(), e
    d = check_probability("delta", delta, open_low=True, open_high=True)
    if not e < math.inf:
        raise PrivcheckUsageError("an (eps, delta) claim needs a finite eps")
    if delta_eps is not None and float(delta_eps) != e:
        raise PrivcheckUsageError(
            f"delta_eps {delta_eps!r} must equal the claimed eps {eps!r} (delta is bounded there)"
        )
    return DeltaAt(e), d


@one_backend_per_call
def sequential_bound(
    sampler: Any,
    inputs: Sequence | None,
    auto: Auto | str = "auto",
    *,
    eps: float,
    confidence: float = 0.95,
    seed: int | np.random.SeedSequence = 0,
    progress: Callable[[int], None] | None = None,
    delta: float | None = None,
    mu: float | None = None,
    **mc_kwargs: Any,
) -> tuple[MonteCarloBound, SequentialRecord]:
    """Monte Carlo lower bound on ε from batches tested by one e-process, stopping at the first decisive batch.

    Parameters
    ----------
    sampler, inputs : as for :func:`privcheck.auditor.bound.monte_carlo_bound`.
    auto : ``"auto"`` or an :class:`~privcheck.auditor.adaptive.Auto` (target, budgets, first epoch, growth).
    eps : the claimed ε ≥ 0 (refuted when the bound exceeds it; for ε = 0 or ∞ no target stops early).
    delta : the claimed δ in (0, 1) of an (ε, δ) claim: the grid bounds δ at ``eps`` instead
        (:class:`~privcheck.auditor.sequential.nulls.DeltaAt`; ``bound.delta_lower``); refuted when it exceeds
        ``delta``. ``delta_eps`` (the fixed-sample keyword) must then equal ``eps`` if given.
    mu : the claimed μ > 0 of a μ-GDP claim (``eps`` is then ignored): the grid bounds μ
        (:class:`~privcheck.auditor.sequential.nulls.Gdp`; ``record.mu_lower``); refuted when it exceeds ``mu``.
    confidence : in (0, 1); the bound holds at this level *simultaneously at every batch*, so at the data-dependent
        stopping time too (Ville's inequality; :mod:`privcheck.auditor.sequential.wealth`).
    seed : int or SeedSequence; epoch ``k`` draws below ``derive(seed, "sequential", k)``.
    mc_kwargs : jobs, client, pairs, neighbours, view, max_events (slots: ``max_events`` + 1 for the
        one-input event), selection_share.

    Returns ``(bound, record)``: a :class:`MonteCarloBound` (``eps_lower`` the e-process's bound at stop,
    ``samples_per_input``/``draws`` the totals, ``estimation_samples`` the pairs tested, ``eps_max_certifiable``
    the power statement) and the :class:`~privcheck.auditor.sequential.record.SequentialRecord`.
    """
    null, claim = sequential_null(eps, delta, mu, mc_kwargs.pop("delta_eps", None))
    parsed = auto_settings(auto, mc_kwargs)
    confidence = check_confidence(confidence)
    ss = seed_sequence(seed)
    ctx = _context(sampler, inputs, parsed, ss, mc_kwargs, progress)
    alpha = 1.0 - confidence
    alpha_e, alpha_f = split_alpha(alpha)
    proc = EProcess(null.grid(claim), ctx.max_events + EXTRA_SLOTS, alpha_e)
    state = State(parsed, claim, alpha, proc, alpha_final=alpha_f, null=null)
    k = 0
    while not state.done and (size := parsed.next_size(k + 1, state.used)) is not None:
        k += 1
        if state.over_time(size):
            state.stopped = "seconds budget"
            break
        run_epoch(state, ctx, k, size)
    return _bound(state, ctx, confidence), _record(state, ctx.share)
