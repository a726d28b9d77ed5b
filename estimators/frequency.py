"""Frequency estimation under direct encoding with node sampling — 003 (Biswas, Cormode, Maple).

n nodes hold fixed values; node j is sampled independently with probability
π_j and, if sampled, reports its value through direct encoding (k-RR,
:mod:`estimators.direct_encoding`): its own value w.p. p, each other value
w.p. q. For one value i, every estimator of the paper depends on the reports
only through two counts: C = number of sampled reports equal to i, and
S = number of sampled nodes. Nodes with the same (π_j, holds-i) are
exchangeable, so per group the sampled number is Binomial(n_g, π_g) and the
number of those reporting i is Binomial(sampled, p or q): drawing (C, S) this
way is exact in distribution and costs a few binomial draws per replicate.

Estimators (all vectorised over replicates):
:func:`c_de` (eq. 3), :func:`g_de` (eq. 5), :func:`c_hat` (Thm 3.4),
:func:`t_estimator` (Thm 5.1). Printed formulas: :func:`eq4_mean`,
:func:`thm32_var_star`, :func:`thm51_var_star`. Exact moments of every
estimator (fixed data): :func:`exact_moments`. Figure 3: :func:`figure3_data`.
Open question (iii): :func:`optimal_design`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from estimators.direct_encoding import de_probabilities
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_eps, check_int, check_probability

SOURCE = "003_e5d52747d9985dd0.txt"


# --------------------------------------------------------------------------- designs
@dataclass(frozen=True)
class SamplingGroups:
    """Nodes grouped by sampling probability and whether they hold the value i.

    sizes: nodes per group (ints ≥ 0); pis: each group's π in [0, 1];
    holds: whether the group's nodes hold i. Build with :func:`groups`.
    """

    sizes: np.ndarray
    pis: np.ndarray
    holds: np.ndarray

    @property
    def n(self) -> int:
        return int(self.sizes.sum())

    @property
    def n_i(self) -> int:
        """Number of nodes holding i."""
        return int(self.sizes[self.holds].sum())

    @property
    def sum_pi(self) -> float:
        """Σ_j π_j = E[S]."""
        return float((self.sizes * self.pis).sum())

    @property
    def sum_pi2(self) -> float:
        """Σ_j π_j²."""
        return float((self.sizes * self.pis**2).sum())


def groups(sizes, pis, holds) -> SamplingGroups:
    """Validated :class:`SamplingGroups` (sizes ≥ 0 integers, π in [0, 1], Σπ > 0)."""
    s = np.atleast_1d(np.asarray(sizes))
    p = np.atleast_1d(np.asarray(pis, dtype=float))
    h = np.atleast_1d(np.asarray(holds, dtype=bool))
    if not (s.shape == p.shape == h.shape) or s.ndim != 1:
        raise PrivcheckUsageError("sizes, pis and holds must be 1-D arrays of equal length")
    for v in s:
        check_int("group size", v, minimum=0)
    for v in p:
        check_probability("pi", v)
    g = SamplingGroups(s.astype(np.int64), p, h)
    if g.n < 1 or g.sum_pi <= 0:
        raise PrivcheckUsageError("a design needs at least one node with pi > 0")
    return g


def uniform_groups(n: int, n_i: int, pi: float) -> SamplingGroups:
    """n nodes, n_i of them holding i, all sampled with the same π (Sec. 2–3 of 003)."""
    n = check_int("n", n, minimum=1)
    n_i = check_int("n_i", n_i, minimum=0, maximum=n)
    pi = check_probability("pi", pi, open_low=True)
    return groups([n_i, n - n_i], [pi, pi], [True, False])


def groups_from_nodes(values, pis, i: int) -> SamplingGroups:
    """Group per-node data (values, π_j) for value ``i`` (exact: nodes in a group are exchangeable)."""
    v = np.asarray(values)
    p = np.asarray(pis, dtype=float)
    if v.shape != p.shape or v.ndim != 1:
        raise PrivcheckUsageError("values and pis must be 1-D arrays of equal length")
    key = np.stack([p, (v == i).astype(float)], axis=1)
    uniq, counts = np.unique(key, axis=0, return_counts=True)
    return groups(counts, uniq[:, 0], uniq[:, 1] > 0.5)


# --------------------------------------------------------------------------- sampling
def draw_counts(g: SamplingGroups, p: float, q: float, rng: np.random.Generator, size: int):
    """(C, S) for ``size`` replicates under independent (Poisson) sampling: exact in distribution."""
    C = np.zeros(size, dtype=np.int64)
    S = np.zeros(size, dtype=np.int64)
    for n_g, pi_g, h in zip(g.sizes, g.pis, g.holds):
        if n_g == 0 or pi_g == 0:
            continue
        a = rng.binomial(int(n_g), float(pi_g), size)
        C += rng.binomial(a, p if h else q)
        S += a
    return C, S


def draw_counts_iid(n_by_pi, pis, f_i: float, p: float, q: float, rng: np.random.Generator, size: int):
    """(C, S) when each node's value is i.i.d. (value i w.p. ``f_i``), independent of its π.

    A sampled node reports i w.p. r = f_i p + (1 − f_i) q, independently of
    everything else, so per π-group C | sampled ~ Binomial(sampled, r): exact.
    """
    f_i = check_probability("f_i", f_i)
    r = f_i * p + (1 - f_i) * q
    C = np.zeros(size, dtype=np.int64)
    S = np.zeros(size, dtype=np.int64)
    for n_g, pi_g in zip(n_by_pi, pis):
        a = rng.binomial(int(n_g), float(pi_g), size)
        C += rng.binomial(a, r)
        S += a
    return C, S


def draw_counts_srswor(n: int, n_i: int, B: int, p: float, q: float, rng: np.random.Generator, size: int):
    """(C, S) when exactly B of the n nodes are sampled without replacement (S = B): exact.

    The number of sampled holders of i is Hypergeometric(n_i, n − n_i, B).
    """
    n = check_int("n", n, minimum=1)
    n_i = check_int("n_i", n_i, minimum=0, maximum=n)
    B = check_int("B", B, minimum=1, maximum=n)
    h = rng.hypergeometric(n_i, n - n_i, B, size) if 0 < n_i < n else np.full(size, B if n_i == n else 0)
    C = rng.binomial(h, p) + rng.binomial(B - h, q)
    return C, np.full(size, B, dtype=np.int64)


# --------------------------------------------------------------------------- estimators
def _check_pq(p: float, q: float) -> None:
    if not (0 <= q < p <= 1):
        raise PrivcheckUsageError(f"need 0 <= q < p <= 1, got p={p!r}, q={q!r}")


def c_de(C, n: int, p: float, q: float):
    """c_DE(i) = (Σ_j 1{X_j = i} − nq)/(p − q) — 003 eq. 3 (Wang et al.), applied to the sampled reports."""
    _check_pq(p, q)
    return (np.asarray(C, dtype=float) - n * q) / (p - q)


def g_de(C, n: int, pi: float, p: float, q: float):
    """g_DE(i) = c_DE(i)/π + nq(1 − π)/((p − q)π) — 003 eq. 5."""
    pi = check_probability("pi", pi, open_low=True)
    return c_de(C, n, p, q) / pi + n * q * (1 - pi) / ((p - q) * pi)


def c_hat(C, S, pi: float, p: float, q: float):
    """ĉ_DE(i) = (Σ_j 1{X_j = i} − Sq)/(π(p − q)) — 003 Thm 3.4."""
    _check_pq(p, q)
    pi = check_probability("pi", pi, open_low=True)
    return (np.asarray(C, dtype=float) - q * np.asarray(S, dtype=float)) / (pi * (p - q))


def t_estimator(C, n: int, sum_pi: float, p: float, q: float):
    """T(i) = n h(i)/Σπ_j + nq(n − Σπ_j)/(Σπ_j (p − q)), h(i) = (C − nq)/(p − q) — 003 Thm 5.1."""
    _check_pq(p, q)
    if not sum_pi > 0:
        raise PrivcheckUsageError(f"sum_pi must be > 0, got {sum_pi!r}")
    h = (np.asarray(C, dtype=float) - n * q) / (p - q)
    return n * h / sum_pi + n * q * (n - sum_pi) / (sum_pi * (p - q))


# --------------------------------------------------------------------------- printed formulas
def eq4_mean(n: int, f_i: float, pi: float, p: float, q: float) -> float:
    """E[c_DE(i)] = n f_i π − nq(1 − π)/(p − q) under sampling — 003 eq. 4."""
    return n * f_i * pi - n * q * (1 - pi) / (p - q)


def thm32_var_star(n: int, pi: float, p: float, q: float) -> float:
    """Var*(g_DE(i)) = n(q − q²π)/((p − q)²π) — 003 Thm 3.2 (limit f_i → 0)."""
    return n * (q - q * q * pi) / ((p - q) ** 2 * pi)


def thm51_var_star(g: SamplingGroups, p: float, q: float) -> float:
    """Var*(T(i)) = n² Σ_j qπ_j(1 − qπ_j)/((Σπ_j)²(p − q)²) — 003 Thm 5.1 (limit f_i → 0)."""
    n = g.n
    s = float((g.sizes * q * g.pis * (1 - q * g.pis)).sum())
    return n * n * s / (g.sum_pi**2 * (p - q) ** 2)


def thm35_paper_difference(g: SamplingGroups, pi: float, p: float, q: float) -> float:
    """Var(ĉ) − Var(g_DE) as printed in 003 eq. 6: Var(S)q²/(π²(p − q)²) (no covariance term)."""
    var_s = float((g.sizes * g.pis * (1 - g.pis)).sum())
    return var_s * q * q / (pi * pi * (p - q) ** 2)


# --------------------------------------------------------------------------- exact moments
@dataclass(frozen=True)
class CountMoments:
    """Exact moments of (C, S) for fixed data under independent sampling."""

    mean_C: float
    mean_S: float
    var_C: float
    var_S: float
    cov_CS: float


def count_moments(g: SamplingGroups, p: float, q: float) -> CountMoments:
    """E, Var and Cov of (C, S): C and S are sums of independent Bernoullis (π_j r_j and π_j)."""
    r = np.where(g.holds, p, q)
    pr = g.pis * r
    return CountMoments(
        mean_C=float((g.sizes * pr).sum()),
        mean_S=float((g.sizes * g.pis).sum()),
        var_C=float((g.sizes * pr * (1 - pr)).sum()),
        var_S=float((g.sizes * g.pis * (1 - g.pis)).sum()),
        cov_CS=float((g.sizes * pr * (1 - g.pis)).sum()),
    )


def _linear(m: CountMoments, a: float, b: float, c: float) -> tuple[float, float]:
    mean = a * m.mean_C + b * m.mean_S + c
    var = a * a * m.var_C + b * b * m.var_S + 2 * a * b * m.cov_CS
    return mean, var


def exact_moments(kind: str, g: SamplingGroups, p: float, q: float) -> tuple[float, float]:
    """Exact (mean, variance) of an estimator for fixed data; kind ∈ {c_de, g_de, c_hat, T}.

    Every estimator is a·C + b·S + c, so its moments follow from
    :func:`count_moments`. g_de and c_hat need a uniform design (one π).
    """
    _check_pq(p, q)
    m = count_moments(g, p, q)
    n = g.n
    if kind == "T":
        a = n / (g.sum_pi * (p - q))
        c = -n * n * q / (g.sum_pi * (p - q)) + n * q * (n - g.sum_pi) / (g.sum_pi * (p - q))
        return _linear(m, a, 0.0, c)
    if kind == "c_de":
        return _linear(m, 1 / (p - q), 0.0, -n * q / (p - q))
    pis = np.unique(g.pis[g.sizes > 0])
    if pis.size != 1:
        raise PrivcheckUsageError(f"{kind} needs a uniform sampling probability")
    pi = float(pis[0])
    if kind == "g_de":
        return _linear(m, 1 / (pi * (p - q)), 0.0, -n * q / (pi * (p - q)) + n * q * (1 - pi) / ((p - q) * pi))
    if kind == "c_hat":
        return _linear(m, 1 / (pi * (p - q)), -q / (pi * (p - q)), 0.0)
    raise PrivcheckUsageError(f"kind must be one of c_de, g_de, c_hat, T; got {kind!r}")


def exact_thm35_difference(g: SamplingGroups, p: float, q: float) -> float:
    """Exact Var(ĉ) − Var(g_DE) = (q² Var S − 2q Cov(C, S))/(π²(p − q)²) (uniform π)."""
    return exact_moments("c_hat", g, p, q)[1] - exact_moments("g_de", g, p, q)[1]


def exact_moments_srswor(n: int, n_i: int, B: int, p: float, q: float) -> tuple[float, float]:
    """Exact (mean, var) of T with π_j = B/n when exactly B nodes are sampled without replacement."""
    f = n_i / n
    eh = B * f
    vh = B * f * (1 - f) * (n - B) / (n - 1) if n > 1 else 0.0
    mean_c = eh * (p - q) + B * q
    var_c = eh * p * (1 - p) + (B - eh) * q * (1 - q) + (p - q) ** 2 * vh
    a = n / (B * (p - q))
    return a * (mean_c - B * q), a * a * var_c


# --------------------------------------------------------------------------- Figure 3
@dataclass
class Figure3Data:
    """Curve data of 003 Fig. 3 (TV distance and communication cost against π).

    pis: sampling probabilities; tv_chat / tv_gde: mean TV distance between
    ĉ_DE/n (resp. g_DE/n) and the data's distribution, per π, with
    ``*_interval`` (t intervals at ``confidence``); cost_expected = nπ;
    cost_simulated: mean number of reports; params: n, m, ε, data law, seed.
    """

    pis: list[float]
    tv_chat: list[float]
    tv_chat_interval: list[list[float]]
    tv_gde: list[float]
    tv_gde_interval: list[list[float]]
    cost_expected: list[float]
    cost_simulated: list[float]
    replicates: int
    confidence: float
    params: dict = field(default_factory=dict)
    tv_samples: dict = field(default_factory=dict, repr=False)


def tv_distance(estimates, n: int, f) -> np.ndarray:
    """½ Σ_v |estimate_v/n − f_v| over the last axis: the TV distance of 003 Fig. 3 (raw estimates).

    estimates: counts per value (…, m); n ≥ 1; f: the data's distribution (m,).
    """
    return 0.5 * np.abs(np.asarray(estimates, dtype=float) / n - np.asarray(f, dtype=float)).sum(axis=-1)


def _de_matrix(m: int, p: float, q: float) -> np.ndarray:
    P = np.full((m, m), q)
    np.fill_diagonal(P, p)
    P /= P.sum(axis=1, keepdims=True)  # guard against rounding
    return P


def figure3_data(
    *,
    n: int = 50_000,
    m: int = 100,
    eps: float = 1.0,
    pis=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    replicates: int = 200,
    seed: int | np.random.SeedSequence = 0,
    confidence: float = 0.95,
    chunk: int = 64,
) -> Figure3Data:
    """Reproduce the curves of 003 Fig. 3: TV distance of the estimate vs π, and cost nπ.

    Data: n values drawn once (seeded) from Binomial(100, 0.5) on the domain
    {0, …, m−1} (values ≥ m, probability ~1e−30, are clipped); the paper does
    not state ε, so it is a parameter. For each π and replicate, the sampled
    holders of each value are Binomial(n_v, π) and their reports
    Multinomial(·, row v of the DE matrix): exact in distribution. The TV
    distance is ½ Σ_v |est_v/n − f_v| with the raw (unprojected) estimates.
    """
    from privcheck.base.moments import mean_interval
    from privcheck.base.scheduler import map_chunks
    from privcheck.base.seeding import derive

    n = check_int("n", n, minimum=1)
    m = check_int("m", m, minimum=2)
    eps = check_eps(eps)
    replicates = check_int("replicates", replicates, minimum=10)
    pis = [check_probability("pi", x, open_low=True) for x in pis]
    p, q = de_probabilities(eps, m)
    seed_seq = seed if isinstance(seed, np.random.SeedSequence) else derive(int(seed), "figure3")
    data_rng = np.random.Generator(np.random.PCG64(derive(seed_seq, "data")))
    values = np.minimum(data_rng.binomial(100, 0.5, n), m - 1)
    n_v = np.bincount(values, minlength=m)
    f = n_v / n
    P = _de_matrix(m, p, q)
    out = Figure3Data(
        pis=list(pis),
        tv_chat=[],
        tv_chat_interval=[],
        tv_gde=[],
        tv_gde_interval=[],
        cost_expected=[n * x for x in pis],
        cost_simulated=[],
        replicates=replicates,
        confidence=confidence,
        params={
            "n": n,
            "m": m,
            "eps": eps,
            "p": p,
            "q": q,
            "data": "Binomial(100, 0.5), clipped to m-1",
            "tv": "0.5 * sum_v |estimate_v / n - f_v| (raw estimates, no projection)",
        },
    )
    for pi in pis:

        def run(rng: np.random.Generator, size: int, pi=pi):
            sampled = rng.binomial(n_v, pi, (size, m))
            reports = rng.multinomial(sampled, P).sum(axis=1)  # (size, m): counts per reported value
            S = sampled.sum(axis=1)
            chat = c_hat(reports, S[:, None], pi, p, q)
            gde = g_de(reports, n, pi, p, q)
            return tv_distance(chat, n, f), tv_distance(gde, n, f), S

        parts = map_chunks(run, replicates, derive(seed_seq, "pi", f"{pi:.6f}"), jobs=1, chunk=chunk)
        tv_c = np.concatenate([a for a, _, _ in parts])
        tv_g = np.concatenate([b for _, b, _ in parts])
        S = np.concatenate([s for _, _, s in parts])
        mc = mean_interval(tv_c, confidence=confidence)
        mg = mean_interval(tv_g, confidence=confidence)
        out.tv_chat.append(mc.mean)
        out.tv_chat_interval.append(list(mc.interval))
        out.tv_gde.append(mg.mean)
        out.tv_gde_interval.append(list(mg.interval))
        out.cost_simulated.append(float(S.mean()))
        out.tv_samples[pi] = (tv_c, tv_g)
    return out


# --------------------------------------------------------------------------- open question (iii)
@dataclass(frozen=True)
class DesignComparison:
    """Var*(T) of three designs with the same expected number of reports B = Σπ_j.

    uniform: Poisson sampling, π_j = B/n; optimum: the minimiser of Var*(T)
    over {0 ≤ π_j ≤ 1, Σπ_j = B} (⌊B⌋ nodes with π = 1, one with B − ⌊B⌋);
    srswor: exactly round(B) nodes drawn without replacement (variance at
    f_i → 0, i.e. C ~ Binomial(B, q)); ratios are relative to ``uniform``.
    """

    n: int
    B: float
    q: float
    var_uniform: float
    var_optimum: float
    var_srswor: float
    ratio_optimum: float
    ratio_srswor: float
    ratio_formula: float


def var_star_T(n: int, pis, p: float, q: float) -> float:
    """Var*(T) of Thm 5.1 for explicit per-node π_j (vector)."""
    pis = np.asarray(pis, dtype=float)
    s = pis.sum()
    return float(n * n * (q * pis * (1 - q * pis)).sum() / (s * s * (p - q) ** 2))


def optimal_design(n: int, B: float, p: float, q: float) -> DesignComparison:
    """Open question (iii) of 003: the design minimising Var*(T) for fixed Σπ_j = B.

    With Σπ_j fixed, Var*(T) ∝ Σ qπ_j(1 − qπ_j) = qB − q²Σπ_j², so it is
    minimised by maximising the convex Σπ_j² over the capped simplex: at a
    vertex, ⌊B⌋ nodes with π = 1 and one with the remainder. For integer B
    the minimum equals the f_i → 0 variance of sampling exactly B nodes
    without replacement; the ratio to uniform Poisson is (1 − q)/(1 − qB/n).
    """
    n = check_int("n", n, minimum=1)
    if not (0 < B <= n):
        raise PrivcheckUsageError(f"B must be in (0, n], got {B!r}")
    _check_pq(p, q)
    k = int(math.floor(B))
    frac = B - k
    sum_pi2_opt = k + frac * frac
    base = n * n * q / (B * B * (p - q) ** 2)
    var_uniform = base * (B - q * B * B / n)
    var_opt = base * (B - q * sum_pi2_opt)
    Bi = max(1, int(round(B)))
    var_srs = n * n * q * (1 - q) / (Bi * (p - q) ** 2)
    return DesignComparison(
        n,
        float(B),
        q,
        var_uniform,
        var_opt,
        var_srs,
        var_opt / var_uniform,
        var_srs / var_uniform,
        (1 - q) / (1 - q * B / n),
    )
