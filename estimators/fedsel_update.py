"""FedSel's local update with the adapted accumulation — 000 (Liu et al.), Alg. 1, Sec. 3.3 (Thm 2), Thm 3.

Local update (Alg. 1 lines 13–19), vectorised over replicates:
r^t = r^{t−1} + g^t (adapted; the classic accumulation adds αg^t),
j = SelectOracle(r^t), s_j = r^t_j + η r^{t−1}_j, s*_j = ValuePerturbation(clip(s_j)),
r^t_j ← 0. The selector and the value perturbation are the registered
mechanisms (``fedsel-exp``/``fedsel-pe``/``fedsel-ps``, ``pm``/``duchi``/``hm``).

Thm 2 compares the update of the global parameter from one client,
Δ_T w = (α/m)·M(clip(s)) (adapted) with Δ'_T w = (1/m)·M(clip(αs)) (classic):
:func:`thm2_variances` gives both exactly from the mechanism's variance,
:func:`sample_thm2_updates` draws them. :func:`thm3_max_error` simulates
max_j |s̃_j − X_j| of Thm 3.
"""

from __future__ import annotations

import numpy as np

from estimators.registry import mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_eps, check_in_interval, check_int, check_positive

SOURCE = "000_55a5a0ab95d522af.txt"
VALUE_MECHANISMS = ("pm", "duchi", "hm")


def clip(x):
    """Clip to the perturbation input range [−1, 1] (Sec. 3.3)."""
    return np.clip(np.asarray(x, dtype=float), -1.0, 1.0)


def _value_mech(name: str, eps2: float):
    if name not in VALUE_MECHANISMS:
        raise PrivcheckUsageError(f"value perturbation must be one of {', '.join(VALUE_MECHANISMS)}, got {name!r}")
    return mechanism(name, eps=check_eps(eps2, "eps2"))


def mechanism_variance(name: str, t, eps: float) -> np.ndarray:
    """Var[M(t)] of a value perturbation (closed forms from :mod:`estimators.piecewise`)."""
    from estimators import piecewise as pw

    t = np.asarray(t, dtype=float)
    if name == "pm":
        return np.asarray(pw.pm_variance(t, eps), dtype=float)
    if name == "duchi":
        return np.asarray(pw.duchi_variance(t, eps), dtype=float)
    if name == "hm":
        return np.vectorize(lambda v: float(pw.hm_exact_moments(float(v), eps)[1]))(t)
    raise PrivcheckUsageError(f"mechanism must be one of {', '.join(VALUE_MECHANISMS)}, got {name!r}")


def local_update(
    r_prev,
    g,
    *,
    selector,
    eps2: float,
    rng: np.random.Generator,
    value_mech: str = "pm",
    eta: float = 0.0,
    k: int = 1,
    accumulation: str = "adapted",
    alpha: float = 1.0,
):
    """One LocalUpdate of Alg. 1 for R clients/replicates at once.

    r_prev, g: (R, d) accumulated vector r^{t−1} and gradient g^t; selector: a
    built selector mechanism (its ``sample`` is applied per row to the Top-k
    status vector); accumulation: 'adapted' (r += g) or 'classic' (r += αg).
    Returns (s_star (R, d), r_new (R, d), j (R,), −1 for ⊥).
    """
    from estimators.fedsel_selection import topk_status

    r_prev = np.atleast_2d(np.asarray(r_prev, dtype=float))
    g = np.atleast_2d(np.asarray(g, dtype=float))
    if r_prev.shape != g.shape:
        raise PrivcheckUsageError("r_prev and g must have the same shape (R, d)")
    if accumulation not in ("adapted", "classic"):
        raise PrivcheckUsageError(f"accumulation must be 'adapted' or 'classic', got {accumulation!r}")
    R, d = g.shape
    r = r_prev + (g if accumulation == "adapted" else alpha * g)
    j = np.empty(R, dtype=np.int64)
    # rows sharing a status vector are sampled together (the selectors are vectorised per input)
    status = np.array([topk_status(row, k) for row in r])
    keys, inv = np.unique(status, axis=0, return_inverse=True)
    for u, z in enumerate(keys):
        rows = np.flatnonzero(inv.ravel() == u)
        x = z if selector.name != "fedsel-exp" else _ranking(r[rows[0]])
        j[rows] = selector.sample(x, rows.size, rng)
    ok = j >= 0
    s = np.zeros(R)
    s[ok] = r[ok, j[ok]] + eta * r_prev[ok, j[ok]]
    vm = _value_mech(value_mech, eps2)
    s_star = np.zeros((R, d))
    if ok.any():
        s_star[ok, j[ok]] = vm.sample(clip(s[ok]), int(ok.sum()), rng)
    r_new = r.copy()
    r_new[ok, j[ok]] = 0.0
    return s_star, r_new, j


def _ranking(v):
    from estimators.fedsel_selection import ranking_from_vector

    return ranking_from_vector(v)


def thm2_variances(s, alpha: float, m: int, eps2: float, value_mech: str = "pm") -> tuple[np.ndarray, np.ndarray]:
    """Exact (Var[Δ_T w], Var[Δ'_T w]) = (α²/m²·Var M(clip s), 1/m²·Var M(clip αs)) — 000 Sec. 3.3."""
    alpha = check_in_interval("alpha", alpha, 0.0, 1.0, closed="neither")
    m = check_int("m", m, minimum=1)
    s = np.asarray(s, dtype=float)
    va = alpha**2 / m**2 * mechanism_variance(value_mech, clip(s), eps2)
    vc = 1.0 / m**2 * mechanism_variance(value_mech, clip(alpha * s), eps2)
    return va, vc


def sample_thm2_updates(
    s: float, alpha: float, m: int, eps2: float, n: int, rng: np.random.Generator, value_mech: str = "pm"
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` draws each of Δ_T w = (α/m)·M(clip s) and Δ'_T w = (1/m)·M(clip αs) (independent draws)."""
    alpha = check_in_interval("alpha", alpha, 0.0, 1.0, closed="neither")
    m = check_int("m", m, minimum=1)
    vm = _value_mech(value_mech, eps2)
    a = alpha / m * vm.sample(np.full(n, float(clip(s))), n, rng)
    c = 1.0 / m * vm.sample(np.full(n, float(clip(alpha * s))), n, rng)
    return a, c


def thm3_max_error(
    m: int,
    d: int,
    k: int,
    eps1: float,
    eps2: float,
    reps: int,
    rng: np.random.Generator,
    *,
    selector: str = "fedsel-ps",
    topk: str = "random",
    v_top: float = 0.8,
    v_rest: float = 0.05,
    value_mech: str = "pm",
) -> np.ndarray:
    """``reps`` draws of max_j |s̃_j − X_j| (Thm 3) for m clients, dimension d.

    Each client's true sparse vector carries v_top on its Top-k coordinates and
    v_rest elsewhere; it selects one coordinate with ``selector`` (ε1) and
    perturbs the value with ``value_mech`` (ε2). topk='common': every client
    has the same Top-k set (coordinates 0..k−1); 'random': each client's Top-k
    set is a uniform k-subset, so (selectors being symmetric within the Top-k
    and non-Top-k groups) the selected coordinate is uniform on [d] given its
    group — drawn that way, exact in distribution.
    """
    m, d = check_int("m", m, minimum=1), check_int("d", d, minimum=2)
    k = check_int("k", k, minimum=1, maximum=d)
    reps = check_int("reps", reps, minimum=1)
    if topk not in ("random", "common"):
        raise PrivcheckUsageError(f"topk must be 'random' or 'common', got {topk!r}")
    sel = mechanism(selector, d=d, k=k, eps=check_eps(eps1, "eps1"))
    z = np.array([1] * k + [0] * (d - k))
    x = z if selector != "fedsel-exp" else np.concatenate([np.arange(d - k + 1, d + 1), np.arange(1, d - k + 1)])
    j = sel.sample(x, reps * m, rng)
    ok = j >= 0
    top = np.isin(j, np.flatnonzero(z == 1) if selector != "fedsel-exp" else np.arange(k))
    vals = np.where(top, v_top, v_rest)
    if topk == "random":
        j = np.where(ok, rng.integers(0, d, j.size), -1)
    vm = _value_mech(value_mech, eps2)
    err = np.zeros(j.size)
    err[ok] = vm.sample(vals[ok], int(ok.sum()), rng) - vals[ok]
    rows = np.repeat(np.arange(reps), m)
    acc = np.bincount(rows[ok] * d + j[ok], weights=err[ok], minlength=reps * d).reshape(reps, d) / m
    return np.abs(acc).max(axis=1)


def thm3_rate(m, d, eps2: float, beta: float) -> np.ndarray:
    """The claimed rate √(log(d/β)) / (ε2 √(m d)) of Thm 3 (up to its constant)."""
    beta = check_in_interval("beta", beta, 0.0, 1.0, closed="neither")
    eps2 = check_positive("eps2", eps2)
    m, d = np.asarray(m, dtype=float), np.asarray(d, dtype=float)
    return np.sqrt(np.log(d / beta)) / (eps2 * np.sqrt(m * d))
