"""The statistical tests of :func:`privcheck.check_sampling`, each an exact (conditional Monte Carlo) test.

Every test returns an :class:`Evidence` with a two-sided p-value ``(1 + #{sim at least as extreme}) / (B + 1)``
under a null that is simulated exactly (Besag & Clifford: such a p-value is valid, P(p ≤ α) ≤ α, for every B),
or an exact binomial test. Nulls:

* ``total`` (Poisson with q given): the number of inclusions S ~ Binomial(n·T, q) — exact binomial test.
* ``batch_sizes`` (Poisson): given S, the batch sizes are multivariate hypergeometric (T groups of n cells;
  under Poisson sampling every (record, step) indicator is i.i.d., so given S the S ones are uniformly placed).
  Statistic Σ (b_t − S/T)²: fixed-size batches are under-dispersed, mixtures of rates over-dispersed.
* ``inclusion_rates``: the per-record counts c_i. Poisson: given S, multivariate hypergeometric (n groups of T
  cells); fixed-size: given the batch sizes, each batch an independent uniform subset (simulated row by row).
  Statistic Σ (c_i − S/n)²: weighted samplers over-disperse, shuffled epochs and cycles under-disperse.
* ``independence``: overlap O = Σ_t |B_t ∩ B_{t+1}|. Given the batch sizes, batches that are independent
  uniform subsets give independent hypergeometric overlaps (each depends on its pair only through the sizes).
  Shuffled epochs give disjoint consecutive batches (too little overlap), repeated or sticky batches too much.
* ``reshuffle`` (shuffle): positions of the records in consecutive epochs; statistic Σ_i pos_e(i)·pos_{e+1}(i)
  over the records of both epochs, null: independent uniform permutations (a permutation test).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Monte Carlo draws of a conditional test: at most this many, fewer when one draw is expensive
B_MAX = 999
B_MIN = 199
#: work budget of one test's simulation (random numbers drawn)
WORK = 4e7


@dataclass
class Evidence:
    """One test: its name, the statistic and its null expectation, the raw p-value (Holm-adjusted later),
    which tail is extreme (``low``/``high``), and a sentence."""

    test: str
    statistic: float
    expected: float
    pvalue: float
    tail: str
    detail: str
    p_adjusted: float | None = None

    def to_dict(self) -> dict:
        return {
            "test": self.test,
            "statistic": self.statistic,
            "expected": self.expected,
            "pvalue": self.pvalue,
            "p_adjusted": self.p_adjusted,
            "tail": self.tail,
            "detail": self.detail,
        }


def _two_sided(obs: float, sims: np.ndarray) -> tuple[float, str]:
    """Monte Carlo two-sided p-value (twice the smaller tail, each tail counting the observation) and the tail."""
    b = sims.size
    lo = (1 + int(np.sum(sims <= obs))) / (b + 1)
    hi = (1 + int(np.sum(sims >= obs))) / (b + 1)
    return min(1.0, 2 * min(lo, hi)), "low" if lo < hi else "high"


def _draws(cost_per_draw: float) -> int:
    return int(max(B_MIN, min(B_MAX, WORK // max(cost_per_draw, 1.0))))


def total_test(S: int, n: int, T: int, q: float) -> Evidence:
    """Exact binomial test of S ~ Binomial(n·T, q) (two-sided, scipy's minlike)."""
    from scipy.stats import binomtest

    p = float(binomtest(S, n * T, q).pvalue)
    exp = n * T * q
    return Evidence(
        "total",
        float(S),
        exp,
        p,
        "low" if S < exp else "high",
        f"{S} inclusions in {T} steps of {n} records; Binomial(n*T, q) expects {exp:.6g}",
    )


def batch_size_test(sizes: np.ndarray, n: int, rng: np.random.Generator) -> Evidence:
    """Dispersion of the batch sizes given their total (multivariate hypergeometric null)."""
    T, S = sizes.size, int(sizes.sum())
    stat = float(np.sum((sizes - S / T) ** 2))
    B = _draws(T)
    sims = rng.multivariate_hypergeometric(np.full(T, n), S, size=B, method="marginals")
    sim_stats = np.sum((sims - S / T) ** 2, axis=1)
    p, tail = _two_sided(stat, sim_stats)
    exp = float(sim_stats.mean())
    what = "fixed-size or too regular batches" if tail == "low" else "sizes vary more than one rate allows"
    return Evidence(
        "batch_sizes",
        stat,
        exp,
        p,
        tail,
        f"sizes {int(sizes.min())}..{int(sizes.max())} (mean {S / T:.4g}); dispersion {stat:.4g} vs {exp:.4g} "
        f"under Poisson given the total ({B} exact draws); extreme side: {what}",
    )


def _count_stat(counts: np.ndarray, S: int, n: int) -> float:
    return float(np.sum((counts - S / n) ** 2))


def inclusion_test(counts: np.ndarray, sizes: np.ndarray, n: int, rng: np.random.Generator, poisson: bool) -> Evidence:
    """Dispersion of the per-record inclusion counts (Poisson: given S; fixed-size: given the batch sizes)."""
    T, S = sizes.size, int(sizes.sum())
    stat = _count_stat(counts, S, n)
    if poisson:
        B = _draws(n)
        sims = rng.multivariate_hypergeometric(np.full(n, T), S, size=B, method="marginals")
        sim_stats = np.sum((sims - S / n) ** 2, axis=1)
    else:
        B = _draws(S + T * 20)
        sim_stats = np.empty(B)
        for j in range(B):
            idx = np.concatenate([rng.choice(n, int(b), replace=False) for b in sizes])
            sim_stats[j] = _count_stat(np.bincount(idx, minlength=n), S, n)
    p, tail = _two_sided(stat, sim_stats)
    exp = float(sim_stats.mean())
    what = "records drawn too evenly (epochs, cycles)" if tail == "low" else "some records drawn more often (weights)"
    return Evidence(
        "inclusion_rates",
        stat,
        exp,
        p,
        tail,
        f"per-record counts {int(counts.min())}..{int(counts.max())} over {T} steps (mean {S / n:.4g}); dispersion "
        f"{stat:.4g} vs {exp:.4g} under uniform independent inclusion ({B} exact draws); extreme side: {what}",
    )


def overlap_test(batches: list[np.ndarray], n: int, rng: np.random.Generator) -> Evidence:
    """Overlap of consecutive batches against independent uniform subsets of the same sizes."""
    sizes = np.array([b.size for b in batches])
    obs = float(sum(np.intersect1d(a, b).size for a, b in zip(batches[:-1], batches[1:])))
    B = _draws(sizes.size)
    good, draws = sizes[:-1], sizes[1:]
    sims = rng.hypergeometric(np.broadcast_to(good, (B, good.size)), n - good, draws).sum(axis=1)
    p, tail = _two_sided(obs, sims)
    exp = float(np.sum(good * draws / n))
    what = "consecutive batches disjoint (epochs without replacement)" if tail == "low" else "batches repeat"
    return Evidence(
        "independence",
        obs,
        exp,
        p,
        tail,
        f"{int(obs)} records shared by consecutive batches vs {exp:.4g} expected for independent draws "
        f"({B} exact draws); extreme side: {what}",
    )


def reshuffle_test(epochs: list[np.ndarray], rng: np.random.Generator) -> Evidence:
    """Correlation of record positions between consecutive epochs against independent uniform shuffles."""
    obs_total, sims_total, pairs = 0.0, None, 0
    B = _draws(sum(e.size for e in epochs))
    for a, b in zip(epochs[:-1], epochs[1:]):
        common = np.intersect1d(a, b)
        if common.size < 3:
            continue
        pa = np.empty(int(max(a.max(), b.max())) + 1)
        pb = np.empty_like(pa)
        pa[a], pb[b] = np.arange(a.size), np.arange(b.size)
        x, y = pa[common], pb[common]
        x, y = x - x.mean(), y - y.mean()
        obs_total += float(x @ y)
        sims = np.array([x @ rng.permutation(y) for _ in range(B)])
        sims_total = sims if sims_total is None else sims_total + sims
        pairs += 1
    if sims_total is None:
        return Evidence("reshuffle", 0.0, 0.0, 1.0, "high", "fewer than two complete epochs: not tested")
    p, tail = _two_sided(obs_total, sims_total)
    what = "the same order every epoch (no reshuffle)" if tail == "high" else "orders reversed"
    return Evidence(
        "reshuffle",
        obs_total,
        0.0,
        p,
        tail,
        f"position covariance between {pairs} pairs of consecutive epochs {obs_total:.4g} (0 expected for "
        f"independent shuffles; {B} permutations); extreme side: {what}",
    )
