"""The e-process of the sequential policy: betting against the claim on paired event indicators.

**Payoff.** An event ``E`` of the outputs and an ordered input pair ``(x, x')``: the ``t``-th draw under ``x`` and
the ``t``-th draw under ``x'`` of one batch give ``A_t = 1[Y_t ∈ E]`` and ``B_t = 1[Z_t ∈ E]``, independent
Bernoulli(``p1``) and Bernoulli(``p0``) with ``p1 = P(E|x)``, ``p0 = P(E|x')``. The claim "ε ≤ θ" says
``p1 ≤ e^θ p0`` for every event and pair, i.e. the payoff

    g_θ(A, B) = e^{−θ} A − B ∈ [−1, e^{−θ}]

has mean ``e^{−θ} p1 − p0 ≤ 0``. This is the witness-function e-process of González, Dulce Rubio, Ramdas &
Ribero, "Sequentially auditing differential privacy" (NeurIPS 2025, §3: ``h(Y) − e^ε h(Z) − δ`` for a witness
``h`` with values in [0, 1]), with ``h = 1_E`` (divided by ``e^ε``) and ``δ = 0``. (ε, δ) and μ-GDP claims bet on
``e^{−e}(A − d) − B`` (:func:`null_payoffs`) for the ``(e, d)`` of :mod:`~privcheck.auditor.sequential.nulls`;
everything below holds with it, the bet capped at ``C_MAX / (1 + e^{−e} d)``.

**Wealth.** A bettor with wealth ``W`` stakes the fraction ``c ∈ [0, c_max]`` (``c_max < 1``, so wealth stays
positive) on each pair of a batch: ``W ← W · Π_t (1 + c g_θ(A_t, B_t))``. When ``c`` and ``E`` are fixed before the
batch's draws (*predictable*: functions of earlier batches and of selection draws independent of this batch),
each factor has conditional mean ``1 + c E[g] ≤ 1`` under the claim, so ``W`` is a nonnegative supermartingale
and Ville's inequality gives ``P(sup_t W_t ≥ 1/α) ≤ α``: rejecting when the wealth reaches ``1/α`` at *any* batch
is a level-α test, whatever the stopping rule (Waudby-Smith & Ramdas, "Estimating means of bounded random
variables by betting", JRSS-B 2024, §3–4: testing by betting, capital processes and Ville).

The outcomes of a pair are only four, so a batch's factor is a function of its *joint* counts
``(n11, n10, n01, n00)`` (:func:`log_factor`); the order of the pairs inside a batch does not matter.

**Bets.** :func:`kelly_bet`: the log-optimal fraction for plug-in probabilities (``argmax_c E log(1 + c g)``
for independent A ~ Bern(q1), B ~ Bern(q0), the "GRO/Kelly" bet of WSR §B), the plug-ins coming from earlier
draws only. Several candidate events (*slots*) and two betting strategies (:data:`STRATEGIES`: how much of the
Kelly bet to stake when the plug-in is the selection's, optimistic by construction) run side by side; the
test's wealth is their sum with weights fixed in advance (:func:`slot_weights`, strategies alike, and the
restart weights of :class:`EProcess`), itself a supermartingale under the claim (every event satisfies it):
no union bound over events, and both inputs enter one payoff (no split between two one-sided bounds).

**Lower bound on ε.** Each θ of a grid fixed before any draw (:func:`theta_grid`) has its own bets and wealth.
``rejected[i]``: the wealth at ``θ_i`` reached ``1/α`` at some batch so far. The reported bound is the largest
``θ_i`` with every grid point up to it rejected (:meth:`EProcess.lower_bound`). Validity: for the true ε let
``g*`` be the smallest grid point ≥ ε; the claim "ε ≤ g*" is true, so ``g*`` is rejected with probability ≤ α;
when it is not, no prefix reaches it, so the bound is < g* and hence < ε (the grid point below g* is < ε).
So ``P(some batch reports a bound ≥ ε) ≤ α`` without any monotonicity of the wealth in θ, and the claim
``ε ≤ ε_claimed`` is refuted when the bound exceeds ``ε_claimed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: the largest fraction of wealth staked on one pair (the payoff's low end is −1: wealth stays ≥ 1 − C_MAX)
C_MAX = 0.95
#: the betting strategies run side by side: multiples of the Kelly bet when its plug-in comes from the selection
#: counts (which are optimistic: the events are built from them), and otherwise. "bold" bets half Kelly on the
#: selection's plug-in (a gross violation is refuted on an epoch's first batch); "wary" waits for estimation
#: counts (a subtle one is not spoilt by the selection's optimism)
STRATEGIES = {"bold": (0.5, 1.0), "wary": (0.0, 1.0)}
#: the share of the initial wealth of each strategy (the wary one carries the subtle cases, which need it most)
STRATEGY_WEIGHTS = (0.25, 0.75)
#: the share of the initial wealth of the components that start betting at the first epoch (module docstring)
FIRST_START_WEIGHT = 0.75
#: grid: steps of this fraction of the claimed ε (of 1 for a claim of 0 or ∞) up to ``LINEAR_SPAN`` claims ...
GRID_STEP = 1e-3
LINEAR_SPAN = 2.0
#: ... then geometric steps of this ratio up to ``GRID_TOP``
GRID_RATIO = 1.0 + 1e-3
GRID_TOP = 50.0
#: wealth must exceed 1/α by this relative margin in log (float rounding of the sum of logs)
LOG_MARGIN = 1e-9
#: the share of the initial wealth of the first-ranked slot (the rest split evenly over the other slots)
FIRST_SLOT_WEIGHT = 0.5


def theta_grid(eps_claimed: float) -> np.ndarray:
    """The θ grid of the lower bound, fixed by the claim alone: 0, then ``(i + ½)·h`` for ``h = GRID_STEP·ε``
    (``GRID_STEP`` for ε = 0 or ∞) up to ``LINEAR_SPAN·ε``, then geometric steps of ``GRID_RATIO`` up to
    ``GRID_TOP``. The half step keeps the claimed ε off the grid: refuting it needs a grid point above it."""
    h = GRID_STEP * (eps_claimed if 0 < eps_claimed < math.inf else 1.0)
    n_lin = int(round(LINEAR_SPAN / GRID_STEP))
    lin = (np.arange(n_lin, dtype=np.float64) + 0.5) * h
    top = float(lin[-1])
    geo = np.empty(0)
    if top * GRID_RATIO < GRID_TOP:
        k = int(math.ceil(math.log(GRID_TOP / top) / math.log(GRID_RATIO)))
        geo = top * GRID_RATIO ** np.arange(1, k + 1, dtype=np.float64)
    return np.concatenate([[0.0], lin, geo])


def null_payoffs(theta: np.ndarray, delta: np.ndarray | float = 0.0) -> tuple[np.ndarray, ...]:
    """The payoff ``g(A, B) = e^{−θ}(A − δ) − B`` at the outcomes (1, 1), (1, 0), (0, 1), (0, 0): the claim
    ``p1 ≤ e^θ p0 + δ`` divided by ``e^θ`` (González et al. §3's ``h(Y) − e^ε h(Z) − δ`` with ``h = 1_E``);
    values in ``[−1 − e^{−θ}δ, e^{−θ}(1 − δ)]``. θ, δ: arrays over the grid (or scalars), δ in [0, 1]."""
    v = np.exp(-np.asarray(theta, dtype=np.float64))
    d = np.broadcast_to(np.asarray(delta, dtype=np.float64), v.shape)
    return v * (1.0 - d) - 1.0, v * (1.0 - d), -1.0 - v * d, -v * d


def kelly_bet(
    q1: float, q0: float, theta: np.ndarray, c_max: float = C_MAX, iters: int = 60, delta: np.ndarray | float = 0.0
) -> np.ndarray:
    """The log-optimal bet ``argmax_{c ∈ [0, c_cap]} E log(1 + c g)`` for independent A ~ Bern(q1),
    B ~ Bern(q0), at every θ (0 where the payoff's mean ``e^{−θ}(q1 − δ) − q0`` is ≤ 0), for the payoff
    :func:`null_payoffs` (δ = 0: pure ε).

    q1, q0 in [0, 1]; ``c_cap = c_max / (1 + e^{−θ}δ)`` keeps every factor ≥ 1 − c_max; ``E log(1 + c g)`` is
    concave in c, so the bet is the root of its derivative, found by bisection (``iters`` halvings); ``c_cap``
    when the derivative is still positive there.
    """
    g11, g10, g01, g00 = null_payoffs(theta, delta)
    pr = (q1 * q0, q1 * (1.0 - q0), (1.0 - q1) * q0, (1.0 - q1) * (1.0 - q0))

    def slope(c: np.ndarray) -> np.ndarray:
        out = pr[0] * g11 / (1.0 + c * g11) + pr[1] * g10 / (1.0 + c * g10) + pr[2] * g01 / (1.0 + c * g01)
        return out + pr[3] * g00 / (1.0 + c * g00)

    lo = np.zeros_like(g10)
    cap = c_max / (1.0 - g00)  # 1 − g00 = 1 + e^{−θ}δ
    hi = cap.copy()
    edge = slope(hi) > 0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        up = slope(mid) > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    c = np.where(edge, cap, lo)
    return np.where(slope(np.zeros_like(g10)) > 0, c, 0.0)


def log_factor(
    counts: tuple[int, int, int, int], bet: np.ndarray, theta: np.ndarray, delta: np.ndarray | float = 0.0
) -> np.ndarray:
    """``log Π_t (1 + c g(A_t, B_t))`` of a batch with joint counts ``(n11, n10, n01, n00)`` and bet ``c`` (per θ),
    for the payoff :func:`null_payoffs` at ``(θ, δ)``.

    bet in [0, 1/(1 + e^{−θ}δ)) (an array over θ or a scalar); with δ = 0 the (0, 0) pairs pay 0."""
    n11, n10, n01, n00 = (int(v) for v in counts)
    g11, g10, g01, g00 = null_payoffs(theta, delta)
    bet = np.asarray(bet, dtype=np.float64)
    out = n11 * np.log1p(bet * g11) + n10 * np.log1p(bet * g10) + n01 * np.log1p(bet * g01)
    return out + n00 * np.log1p(bet * g00) if n00 else out


def slot_weights(slots: int) -> np.ndarray:
    """The initial wealth of each slot: :data:`FIRST_SLOT_WEIGHT` to the first-ranked event, the rest evenly
    (all of it to a single slot)."""
    if slots == 1:
        return np.ones(1)
    rest = (1.0 - FIRST_SLOT_WEIGHT) / (slots - 1)
    return np.array([FIRST_SLOT_WEIGHT] + [rest] * (slots - 1))


def start_weight(epoch: int) -> float:
    """The share of the initial wealth of the components that start betting at epoch ``epoch`` ≥ 1:
    :data:`FIRST_START_WEIGHT` for the first, then ``(1 − FIRST_START_WEIGHT) / ((k − 1) k)`` (the shares sum
    to 1 over all epochs)."""
    if epoch == 1:
        return FIRST_START_WEIGHT
    return (1.0 - FIRST_START_WEIGHT) / ((epoch - 1) * epoch)


@dataclass
class EProcess:
    """The test's wealth at every θ of ``theta`` for ``slots`` candidate events and the :data:`STRATEGIES`,
    at level ``alpha``; ``rejected[i]``: the wealth at ``theta[i]`` reached ``1/alpha`` at some batch so far.

    *Restarts*: the wealth is split over components that start betting at epoch 1, 2, … (weights
    :func:`start_weight`, a component waiting for its epoch holds its share unchanged); each then bets on every
    later batch. A bad early epoch (events chosen on few draws) costs the early components only: the test's
    wealth is at least ``start_weight(k)`` times what the evidence from epoch ``k`` on gives. Each component is a
    supermartingale under the claim, hence so is their weighted sum."""

    theta: np.ndarray
    slots: int
    alpha: float
    gain: np.ndarray = field(init=False)
    starts: list = field(default_factory=list)
    rejected: np.ndarray = field(init=False)
    pairs: int = 0

    def __post_init__(self) -> None:
        self.gain = np.zeros((self.slots, len(STRATEGIES), self.theta.size))  # log factors since the first batch
        self.rejected = np.zeros(self.theta.size, dtype=bool)

    @property
    def threshold(self) -> float:
        """``log(1/α)`` raised by the rounding margin."""
        return math.log(1.0 / self.alpha) * (1.0 + LOG_MARGIN) + LOG_MARGIN

    def start(self) -> None:
        """A new epoch: the components of its start begin betting from here (their gains so far are excluded)."""
        self.starts.append(self.gain.copy())

    def components(self) -> np.ndarray:
        """Log wealth of every started component, ``(starts, slots, strategies, θ)``, initial weights included."""
        k = len(self.starts)
        w = np.log(slot_weights(self.slots))[None, :, None, None] + np.log(STRATEGY_WEIGHTS)[None, None, :, None]
        pi = np.log([start_weight(e) for e in range(1, k + 1)])[:, None, None, None]
        return pi + w + (self.gain[None] - np.stack(self.starts))

    def log_wealth(self) -> np.ndarray:
        """The log of the test's wealth at each θ: the started components plus the unstarted share (wealth 1)."""
        k = len(self.starts)
        total = np.logaddexp.reduce(self.components().reshape(-1, self.theta.size), axis=0) if k else None
        waiting = 1.0 - sum(start_weight(e) for e in range(1, k + 1))  # the shares of the epochs to come
        if total is None:
            return np.zeros(self.theta.size)
        return np.logaddexp(total, math.log(waiting)) if waiting > 0 else total

    def slot_wealth(self, index: int) -> np.ndarray:
        """Log wealth held by each slot at grid point ``index`` (over starts and strategies)."""
        comp = self.components()[:, :, :, index]
        return np.logaddexp.reduce(comp.transpose(1, 0, 2).reshape(self.slots, -1), axis=1)

    def update(
        self,
        slot: int,
        counts: tuple[int, int, int, int],
        bet: np.ndarray,
        from_selection: bool,
        null: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """One batch of slot ``slot``: its joint counts, its Kelly bet per θ, whether that bet's plug-in is the
        selection's, and the payoff's ``(e, d)`` per grid point (:mod:`~privcheck.auditor.sequential.nulls`;
        None: ``(θ, 0)``, pure ε) — all fixed before the batch; each strategy stakes its multiple of the bet."""
        e, d = (self.theta, 0.0) if null is None else null
        for g, (on_selection, otherwise) in enumerate(STRATEGIES.values()):
            kappa = on_selection if from_selection else otherwise
            if kappa > 0:
                self.gain[slot, g] += log_factor(counts, kappa * np.asarray(bet), e, d)

    def close_batch(self, pairs: int) -> None:
        """After every slot of a batch of ``pairs`` pairs: mark the θ whose wealth reached ``1/α``."""
        self.pairs += int(pairs)
        self.rejected |= self.log_wealth() >= self.threshold

    def lower_bound(self) -> float:
        """The largest θ with every grid point up to it rejected (−inf when θ = 0 is not): a lower bound on ε
        valid at every batch at once (module docstring)."""
        if not self.rejected[0]:
            return -math.inf
        stop = int(np.argmin(self.rejected)) if not self.rejected.all() else self.theta.size
        return float(self.theta[stop - 1])

    def max_certifiable(self, null: tuple[np.ndarray, np.ndarray] | None = None) -> float:
        """The power statement: the largest θ the first slot's component started at epoch 1 could reach ``1/α``
        at if every one of the pairs so far had separated the inputs (A = 1, B = 0) with the bet at its cap
        (−inf without pairs); ``null``: the payoff's ``(e, d)`` per grid point (None: pure ε, in closed form)."""
        if self.pairs <= 0:
            return -math.inf
        w0 = start_weight(1) * float(slot_weights(self.slots)[0]) * max(STRATEGY_WEIGHTS)
        if null is not None:
            _, g10, _, g00 = null_payoffs(*null)
            ok = math.log(w0) + self.pairs * np.log1p(C_MAX / (1.0 - g00) * g10) >= self.threshold
            return float(self.theta[np.nonzero(ok)[0][-1]]) if ok.any() else -math.inf
        need = math.expm1((self.threshold - math.log(w0)) / self.pairs)  # w0 (1 + c e^{-θ})^n ≥ 1/α
        return math.log(C_MAX / need)
