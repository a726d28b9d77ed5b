"""The estimator checker: simulate a data-generating process and test an estimator's moments.

A :class:`Scenario` describes the whole pipeline of one claim — data, sampling
of nodes or users, the randomiser — as a vectorised ``draw(rng, size)`` that
returns the observations of ``size`` independent replicates at once (usually
sufficient statistics such as counts, which is exact in distribution and much
faster than simulating every node). An *estimator* maps those observations to
one estimate per replicate (shape ``(size,)``, or ``(size, k)`` for a vector).

:func:`check_estimator` runs the replicates in seeded chunks
(:func:`privcheck.base.scheduler.map_chunks`, identical for any number of workers) and
returns an :class:`EstimatorCheckResult` with, side by side, the claimed, the
exact (where the scenario can compute it) and the simulated mean and variance:

- bias against the claimed mean: Student-t interval and two-sided test;
- "unbiased within ``tolerance``": TOST (statsmodels);
- variance against the claimed formula: Bonett's kurtosis-adjusted interval
  (no normality assumption) and the test obtained by inverting it, plus an
  equivalence statement (interval inside ``[v/(1+r), v·(1+r)]``).

:func:`decide` turns one or several results into a verdict, correcting the
refutation tests for multiplicity (Bonferroni through statsmodels, so that the
reported simultaneous intervals and the decisions agree). The equivalence
("holds") side is an intersection–union test: each equivalence at level α
proves all of them at level α, no correction needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.moments import mean_interval, tost_equivalence, variance_interval
from privcheck.base.scheduler import map_chunks
from privcheck.base.seeding import derive
from privcheck.base.stats import adjust_pvalues
from privcheck.base.validation import check_confidence, check_int, check_positive

Estimator = Callable[[Any], np.ndarray]


#: temporaries per estimate while one chunk is drawn and estimated (observations, estimator intermediates)
_CHUNK_TEMPORARIES = 8


@dataclass
class Scenario:
    """A data-generating process and what is claimed about an estimator under it.

    name: short label; draw(rng, size): observations of ``size`` replicates
    (any object the estimator understands); target: the true quantity
    (scalar or length-k array); claimed_mean: what the claim says E[estimate]
    is (defaults to ``target``: an unbiasedness claim); claimed_variance: the
    claimed variance formula's value (> 0) or None; exact_mean /
    exact_variance: values computed exactly for this scenario (closed form or
    enumeration), or None; tolerance: TOST margin (> 0, in the estimate's
    units) for "unbiased within tolerance", or None; var_rel_tol: relative
    margin r > 0 for "variance equals the claim" (interval inside
    [v/(1+r), v(1+r)]); test_bias: whether a bias ≠ claimed_mean refutes
    (False for claims about the variance only); params: the scenario's
    parameters, for the record.
    """

    name: str
    draw: Callable[[np.random.Generator, int], Any]
    target: Any
    claimed_mean: Any = None
    claimed_variance: Any = None
    exact_mean: Any = None
    exact_variance: Any = None
    tolerance: Any = None
    var_rel_tol: float = 0.1
    test_bias: bool = True
    params: dict = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        if not callable(self.draw):
            raise PrivcheckUsageError(f"scenario {self.name!r}: draw must be a callable draw(rng, size)")
        self.target = _vec("target", self.target)
        self.claimed_mean = self.target if self.claimed_mean is None else _vec("claimed_mean", self.claimed_mean)
        if self.claimed_mean.shape != self.target.shape:
            raise PrivcheckUsageError(f"scenario {self.name!r}: claimed_mean must have the shape of target")
        for nm in ("claimed_variance", "exact_variance"):
            v = getattr(self, nm)
            if v is not None:
                v = _vec(nm, v)
                if np.any(v <= 0):
                    raise PrivcheckUsageError(f"scenario {self.name!r}: {nm} must be > 0, got {v.tolist()}")
                setattr(self, nm, np.broadcast_to(v, self.target.shape).copy())
        if self.exact_mean is not None:
            self.exact_mean = np.broadcast_to(_vec("exact_mean", self.exact_mean), self.target.shape).copy()
        if self.tolerance is not None:
            tol = _vec("tolerance", self.tolerance)
            if np.any(tol <= 0):
                raise PrivcheckUsageError(f"scenario {self.name!r}: tolerance must be > 0, got {tol.tolist()}")
            self.tolerance = np.broadcast_to(tol, self.target.shape).copy()
        self.var_rel_tol = check_positive("var_rel_tol", self.var_rel_tol)


def _vec(name: str, value) -> np.ndarray:
    try:
        arr = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise PrivcheckUsageError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if arr.ndim != 1 or not np.all(np.isfinite(arr)):
        raise PrivcheckUsageError(f"{name} must be finite numbers (scalar or 1-D), got {value!r}")
    return arr


@dataclass
class ComponentResult:
    """The moments of one component of an estimator (all numbers plain floats)."""

    claimed_mean: float
    exact_mean: float | None
    mean: float
    mean_interval: tuple[float, float]
    bias: float
    bias_interval: tuple[float, float]
    p_bias: float
    tolerance: float | None
    p_tost: float | None
    equivalent: bool | None
    claimed_variance: float | None
    exact_variance: float | None
    variance: float
    variance_interval: tuple[float, float]
    kurtosis: float
    p_variance: float | None
    variance_equivalent: bool | None
    p_mean_vs_exact: float | None
    p_variance_vs_exact: float | None


@dataclass
class EstimatorCheckResult:
    """What :func:`check_estimator` measured for one scenario.

    components: one :class:`ComponentResult` per estimate component;
    confidence: the level of the intervals after the Bonferroni adjustment
    for ``family`` simultaneous tests; replicates: number of simulated
    replicates; estimates: the raw estimates when ``keep`` was requested.
    """

    scenario: str
    estimator: str
    replicates: int
    confidence: float
    nominal_confidence: float
    family: int
    components: list[ComponentResult]
    params: dict
    seconds: float = 0.0
    estimates: np.ndarray | None = None
    test_bias: bool = True

    def refutation_pvalues(self) -> dict[str, float]:
        """The p-values whose rejection refutes the claim (bias ≠ claimed, variance ≠ claimed)."""
        out = {}
        for i, c in enumerate(self.components):
            suffix = f"[{i}]" if len(self.components) > 1 else ""
            if self.test_bias:
                out[f"{self.scenario}:{self.estimator}:bias{suffix}"] = c.p_bias
            if c.p_variance is not None:
                out[f"{self.scenario}:{self.estimator}:variance{suffix}"] = c.p_variance
        return out

    def record(self) -> dict:
        """JSON-friendly summary: claimed / exact / simulated side by side with intervals."""
        comps = []
        for c in self.components:
            comps.append(
                {
                    "mean": {
                        "claimed": c.claimed_mean,
                        "exact": c.exact_mean,
                        "simulated": c.mean,
                        "interval": list(c.mean_interval),
                    },
                    "bias": {
                        "simulated": c.bias,
                        "interval": list(c.bias_interval),
                        "p": c.p_bias,
                        "tost_tolerance": c.tolerance,
                        "tost_p": c.p_tost,
                        "equivalent": c.equivalent,
                    },
                    "variance": {
                        "claimed": c.claimed_variance,
                        "exact": c.exact_variance,
                        "simulated": c.variance,
                        "interval": list(c.variance_interval),
                        "p": c.p_variance,
                        "equivalent": c.variance_equivalent,
                        "kurtosis": c.kurtosis,
                    },
                    "simulation_vs_exact": {"p_mean": c.p_mean_vs_exact, "p_variance": c.p_variance_vs_exact},
                }
            )
        return {
            "scenario": self.scenario,
            "estimator": self.estimator,
            "replicates": self.replicates,
            "confidence": self.confidence,
            "family": self.family,
            "params": self.params,
            "components": comps[0] if len(comps) == 1 else comps,
        }


def simulate_estimates(
    estimators: Mapping[str, Estimator] | Estimator | None,
    scenario: Scenario,
    replicates: int,
    *,
    seed: int | np.random.SeedSequence = 0,
    jobs: int = 1,
    chunk: int = 1 << 16,
) -> dict[str, np.ndarray]:
    """Draw ``replicates`` replicates of ``scenario`` and apply each estimator to the *same* draws.

    estimators: a name → callable mapping, one callable, or None (then
    ``draw`` must return the estimates itself). Chunk ``i`` uses child ``i`` of
    the seed, so the output does not depend on ``jobs``. Returns name →
    array of shape (replicates,) or (replicates, k).
    """
    replicates = check_int("replicates", replicates, minimum=10)
    chunk = check_int("chunk", chunk, minimum=1)
    if estimators is None:
        ests: dict[str, Estimator | None] = {"estimate": None}
    elif callable(estimators):
        ests = {getattr(estimators, "__name__", "estimator"): estimators}
    else:
        ests = dict(estimators)
        if not ests:
            raise PrivcheckUsageError("estimators must name at least one estimator")
    seed_seq = seed if isinstance(seed, np.random.SeedSequence) else derive(int(seed), "estimator_check")
    k = scenario.target.size
    check_replicates_memory(replicates, k, len(ests), chunk)

    def run(rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        obs = scenario.draw(rng, size)
        out = {}
        for name, fn in ests.items():
            est = np.asarray(obs if fn is None else fn(obs), dtype=float)
            est = est.reshape(size, -1) if est.ndim > 1 or k > 1 else est.reshape(size)
            if (est.ndim == 2 and est.shape[1] != k) or (est.ndim == 1 and k != 1):
                raise PrivcheckUsageError(
                    f"estimator {name!r} returned shape {est.shape}, expected ({size},) or ({size}, {k})"
                )
            out[name] = est
        return out

    parts = map_chunks(run, replicates, seed_seq, jobs=jobs, chunk=chunk)
    return {name: np.concatenate([p[name] for p in parts]) for name in ests}


def _checked_estimates(estimates: np.ndarray, scenario: Scenario, estimator: str) -> tuple[np.ndarray, np.ndarray]:
    """The estimates as floats and as (replicates, components); raises when some are non-finite or the
    component count does not match the scenario's target."""
    est = np.asarray(estimates, dtype=float)
    est2 = est.reshape(est.shape[0], -1)
    bad = int((~np.isfinite(est2)).any(axis=1).sum())
    if bad:
        raise PrivcheckUsageError(
            f"estimator {estimator!r} is undefined (NaN/inf) on {bad} of {est2.shape[0]} replicates; "
            "state a convention for those draws"
        )
    if est2.shape[1] != scenario.target.size:
        raise PrivcheckUsageError(
            f"estimates have {est2.shape[1]} components, scenario target has {scenario.target.size}"
        )
    return est, est2


def _opt(values, j: int) -> float | None:
    """Component j of an optional per-component array, as a float (None when the array is None)."""
    return None if values is None else float(values[j])


def _component(x: np.ndarray, scenario: Scenario, j: int, confidence: float, conf_adj: float) -> ComponentResult:
    """Mean and variance intervals (at the family-corrected ``conf_adj``), TOST equivalence (at the
    nominal ``confidence``) and tests against the exact moments, for component j's draws x."""
    cm = float(scenario.claimed_mean[j])
    mt = mean_interval(x, null=cm, confidence=conf_adj)
    tol = _opt(scenario.tolerance, j)
    tost = tost_equivalence(x, cm, tol, alpha=1 - confidence) if tol is not None else None
    cv = _opt(scenario.claimed_variance, j)
    vt = variance_interval(x, null=cv, confidence=conf_adj)
    veq = None
    if cv is not None:
        r = scenario.var_rel_tol
        veq = bool(vt.interval[0] >= cv / (1 + r) and vt.interval[1] <= cv * (1 + r))
    em = _opt(scenario.exact_mean, j)
    ev = _opt(scenario.exact_variance, j)
    p_me = mean_interval(x, null=em, confidence=conf_adj).pvalue if em is not None else None
    p_ve = variance_interval(x, null=ev, confidence=conf_adj).pvalue if ev is not None else None
    return ComponentResult(
        claimed_mean=cm,
        exact_mean=em,
        mean=mt.mean,
        mean_interval=mt.interval,
        bias=mt.mean - cm,
        bias_interval=(mt.interval[0] - cm, mt.interval[1] - cm),
        p_bias=mt.pvalue,
        tolerance=tol,
        p_tost=None if tost is None else tost.pvalue,
        equivalent=None if tost is None else tost.equivalent,
        claimed_variance=cv,
        exact_variance=ev,
        variance=vt.variance,
        variance_interval=vt.interval,
        kurtosis=vt.kurtosis,
        p_variance=vt.pvalue,
        variance_equivalent=veq,
        p_mean_vs_exact=p_me,
        p_variance_vs_exact=p_ve,
    )


def summarise(
    estimates: np.ndarray,
    scenario: Scenario,
    *,
    estimator: str = "estimator",
    confidence: float = 0.95,
    family: int = 1,
    keep: bool = False,
) -> EstimatorCheckResult:
    """Moments, intervals and tests of simulated ``estimates`` under ``scenario``.

    confidence: nominal level in (0, 1); family: number of refutation tests
    the caller will correct for (intervals are reported at
    1 − (1 − confidence)/family, matching :func:`decide`). Non-finite
    estimates (an estimator undefined on some draws) raise an error naming
    how many there were: decide and state a convention in the estimator.
    """
    confidence = check_confidence(confidence)
    family = check_int("family", family, minimum=1)
    est, est2 = _checked_estimates(estimates, scenario, estimator)
    alpha = (1 - confidence) / family
    conf_adj = 1 - alpha
    comps = [_component(est2[:, j], scenario, j, confidence, conf_adj) for j in range(est2.shape[1])]
    return EstimatorCheckResult(
        scenario=scenario.name,
        estimator=estimator,
        replicates=int(est2.shape[0]),
        confidence=conf_adj,
        nominal_confidence=confidence,
        family=family,
        components=comps,
        params=dict(scenario.params),
        estimates=est if keep else None,
        test_bias=scenario.test_bias,
    )


def check_replicates_memory(replicates: int, k: int = 1, n_estimators: int = 1, chunk: int = 1 << 16) -> None:
    """Refuse up front (one line, :class:`~privcheck.base.resources.ResourceLimitError`) a simulation that cannot fit.

    Every estimate is kept (chunk results, then their concatenation), so :func:`simulate_estimates` holds
    about ``replicates × k × n_estimators`` floats twice plus one chunk's temporaries. replicates ≥ 1,
    k ≥ 1 (estimates per replicate), n_estimators ≥ 1, chunk ≥ 1 (replicates per chunk). Used by
    :func:`simulate_estimates` and by claim files at load (:mod:`privcheck.claimsfile`).
    """
    from privcheck.base.resources import check_memory

    check_memory(
        f"simulating {replicates:.3g} replicates of {k} estimate(s) for {n_estimators} estimator(s)",
        float(replicates) * k * n_estimators * 8 * 2 + min(replicates, chunk) * k * 8 * _CHUNK_TEMPORARIES,
        "lower replicates",
    )


def check_estimator(
    estimator: Estimator | None,
    scenario: Scenario,
    replicates: int,
    *,
    seed: int | np.random.SeedSequence = 0,
    confidence: float = 0.95,
    family: int | None = None,
    jobs: int = 1,
    chunk: int = 1 << 16,
    keep: bool = False,
    name: str | None = None,
) -> EstimatorCheckResult:
    """Simulate ``replicates`` replicates of ``scenario``, apply ``estimator`` and test its moments.

    estimator: callable mapping the observations of a chunk to estimates
    (None when ``scenario.draw`` returns estimates); replicates ≥ 10;
    seed: int or SeedSequence (results are reproducible and independent of
    ``jobs``); confidence, family: see :func:`summarise` — ``family`` defaults
    to the number of refutation tests this scenario makes (bias and/or
    variance per component), so ``decide([result], confidence)`` is valid for
    a single result. Returns an :class:`EstimatorCheckResult`.
    """
    if family is None:
        k = int(np.asarray(scenario.target).size)
        family = max(1, k * int(scenario.test_bias) + k * int(scenario.claimed_variance is not None))
    import time

    t0 = time.perf_counter()
    label = name or (getattr(estimator, "__name__", "estimator") if estimator is not None else "estimate")
    sims = simulate_estimates(
        {label: estimator} if estimator is not None else None, scenario, replicates, seed=seed, jobs=jobs, chunk=chunk
    )
    est = sims[label] if estimator is not None else sims["estimate"]
    res = summarise(est, scenario, estimator=label, confidence=confidence, family=family, keep=keep)
    res.seconds = time.perf_counter() - t0
    return res


@dataclass
class Decision:
    """A verdict from several results: adjusted p-values, and why.

    verdict: holds / refuted / inconclusive; adjusted: name → Bonferroni
    adjusted p-value of each refutation test; rejected: the names rejected;
    reason: one sentence.
    """

    verdict: str
    adjusted: dict[str, float]
    rejected: list[str]
    reason: str


def decide(
    results: list[EstimatorCheckResult],
    confidence: float = 0.95,
    *,
    extra_pvalues: Mapping[str, float] | None = None,
    require_equivalence: bool = True,
    require_variance_equivalence: bool = True,
) -> Decision:
    """Verdict from the refutation tests of ``results`` (and ``extra_pvalues``), corrected together.

    refuted: some Bonferroni-adjusted p-value (statsmodels) < 1 − confidence.
    holds: nothing refuted, and (if required) every component with a TOST
    tolerance is shown equivalent and every claimed variance is shown within
    its relative margin. inconclusive: otherwise.
    """
    confidence = check_confidence(confidence)
    alpha = 1 - confidence
    pv: dict[str, float] = {}
    for r in results:
        pv.update(r.refutation_pvalues())
    if extra_pvalues:
        pv.update({k: float(v) for k, v in extra_pvalues.items()})
    m = len(pv)
    family_sizes = {r.family for r in results}
    if any(f != m for f in family_sizes):
        raise PrivcheckUsageError(
            f"results were summarised for families {sorted(family_sizes)} but {m} tests are decided"
        )
    names = list(pv)
    if m:
        rej, padj = adjust_pvalues([pv[n] for n in names], alpha, method="bonferroni")
        adjusted = {n: float(p) for n, p in zip(names, padj)}
        rejected = [n for n, r in zip(names, rej) if r]
    else:
        adjusted, rejected = {}, []
    if rejected:
        return Decision(
            "refuted",
            adjusted,
            rejected,
            f"{len(rejected)} of {m} tests reject the claim at family-wise level {alpha:g} (Bonferroni)",
        )
    missing = []
    for r in results:
        for i, c in enumerate(r.components):
            if require_equivalence and c.equivalent is False:
                missing.append(f"{r.scenario}:{r.estimator}[{i}] bias not shown within ±{c.tolerance:g}")
            if require_variance_equivalence and c.variance_equivalent is False:
                missing.append(f"{r.scenario}:{r.estimator}[{i}] variance not shown within its relative margin")
    if missing:
        return Decision("inconclusive", adjusted, [], "not refuted, but " + "; ".join(missing[:3]))
    return Decision("holds", adjusted, [], f"no test rejects (family of {m}); equivalence shown where required")


def sd_tolerance(sd: float, fraction: float = 0.05) -> float:
    """TOST margin as a fraction of the estimator's standard deviation.

    A bias of ``fraction``·sd changes the mean squared error by a factor
    1 + fraction² (0.25 % for the default 0.05): negligible in practice, so
    this is the margin used for "unbiased" claims unless a claim states its own.
    """
    sd = check_positive("sd", sd)
    return float(fraction * sd)


def required_replicates(fraction: float = 0.05, confidence: float = 0.95, power_z: float = 1.645) -> int:
    """Replicates needed for TOST at margin ``fraction``·sd to have good power when the bias is 0."""
    from scipy import stats

    z = float(stats.norm.ppf(confidence))
    return int(math.ceil(((z + power_z) / fraction) ** 2))
