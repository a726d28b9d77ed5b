"""Certified trade-off curves of the PLD accountant against exact curves.

Oracles (independent of the accountant's code): the μ-GDP closed form G_μ (Dong, Roth & Su 2022,
eq. (2.4)); the Laplace closed form (ibid., Sect. 2.3 example); n-fold binary randomised response
by Neyman–Pearson on the binomial count with mpmath (50 digits); the single Poisson-subsampled
Gaussian as the lower convex hull of the two parametric Neyman–Pearson curves (10⁵ points).
Every interval must contain the exact value (no tolerance on the certified side) at ≥ 200
hypothesis-drawn α per mechanism, and be narrower than a stated width (so a loose answer fails).
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull
from scipy.stats import norm

from accountants.pld import (
    GaussianEvent,
    LaplaceEvent,
    PLDAccountant,
    PoissonSampledEvent,
    RandomizedResponseEvent,
)
from privcheck.base.errors import PrivcheckUsageError

ALPHAS = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=50, max_size=50)
FEW = settings(max_examples=5, deadline=None)


def _gauss(mu, a):
    return norm.cdf(norm.isf(a) - mu)


# ---------------------------------------------------------------- accountants (built once)
@functools.lru_cache(maxsize=None)
def _acc(name: str) -> PLDAccountant:
    if name == "gauss-exact":
        return PLDAccountant().compose(GaussianEvent(sigma=2.0), count=9)  # μ = 1.5
    if name == "gauss-fft":
        return PLDAccountant(method="pld", target_fft_size=2**14).compose(GaussianEvent(sigma=2.0), count=9)
    if name == "laplace":
        return PLDAccountant().compose(LaplaceEvent(eps=1.3))
    if name == "rr":
        return PLDAccountant(target_fft_size=2**14).compose(RandomizedResponseEvent(eps=0.7), count=12)
    if name == "sub-exact":
        return PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma=0.8), q=0.2))
    if name == "sub-fft":
        return PLDAccountant(method="pld", target_fft_size=2**14).compose(
            PoissonSampledEvent(GaussianEvent(sigma=0.8), q=0.2)
        )
    raise KeyError(name)


# ---------------------------------------------------------------- exact curves
def _laplace_curve(eps: float, a: np.ndarray) -> np.ndarray:
    """T(Lap(0,1), Lap(ε,1)) (Dong, Roth & Su 2022, Sect. 2.3)."""
    e = math.exp(-eps)
    return np.where(a < e / 2, 1 - a / e, np.where(a <= 0.5, e / (4 * np.maximum(a, 1e-300)), e * (1 - a)))


@functools.lru_cache(maxsize=None)
def _rr_vertices(eps: float, n: int):
    """Neyman–Pearson vertices (α_j, β_j) of n-fold binary RR (symmetric pair), mpmath 50 digits."""
    with mpmath.workdps(50):
        E = mpmath.e ** mpmath.mpf(eps)
        a, b = E / (E + 1), 1 / (E + 1)
        P = [mpmath.binomial(n, k) * a**k * b ** (n - k) for k in range(n + 1)]
        Q = [mpmath.binomial(n, k) * b**k * a ** (n - k) for k in range(n + 1)]
        al, be = [mpmath.mpf(0)], [mpmath.mpf(1)]
        for k in range(n + 1):  # Q/P = e^{ε(n−2k)} decreases in k: reject P for small k first
            al.append(al[-1] + P[k])
            be.append(be[-1] - Q[k])
        al[-1], be[-1] = mpmath.mpf(1), mpmath.mpf(0)  # ΣP = ΣQ = 1 exactly (the sums carry rounding)
        return al, be


def _rr_curve(eps: float, n: int, alpha: float) -> float:
    al, be = _rr_vertices(eps, n)
    with mpmath.workdps(50):
        x = mpmath.mpf(alpha)
        for j in range(len(al) - 1):
            if al[j] <= x <= al[j + 1]:
                w = (x - al[j]) / (al[j + 1] - al[j])
                return float(be[j] + w * (be[j + 1] - be[j]))
    return 0.0


@functools.lru_cache(maxsize=None)
def _subsampled_hull(mu: float, q: float, n: int = 50_001):
    """Lower convex hull of min(T(A,B), T(B,A)), A = (1−q)N(0,1) + qN(μ,1), B = N(0,1)."""
    c = np.linspace(-12, 14, n)
    # T(B, A): reject B for large x
    a1 = norm.sf(c)
    b1 = (1 - q) * norm.cdf(c) + q * norm.cdf(c - mu)
    # T(A, B): reject A for small x
    a2 = (1 - q) * norm.cdf(c) + q * norm.cdf(c - mu)
    b2 = norm.sf(c)
    pts = np.concatenate([np.stack([a1, b1], 1), np.stack([a2, b2], 1), [[0.0, 1.0], [1.0, 0.0]]])
    hull = ConvexHull(pts)
    v = pts[hull.vertices]
    v = v[np.argsort(v[:, 0])]
    # keep the lower chain: the vertices on or below the chord from (0, 1) to (1, 0)
    v = v[v[:, 1] <= 1 - v[:, 0] + 1e-15]
    return v[:, 0], v[:, 1]


# ---------------------------------------------------------------- containment (≥ 200 points each)
CLOSED_FORMS = {  # accountant: (exact curve, route, width bound)
    "gauss-exact": (lambda a: _gauss(1.5, a), "exact GDP", 1e-8),
    "gauss-fft": (lambda a: _gauss(1.5, a), "pld-profile", 5e-3),
    "laplace": (lambda a: _laplace_curve(1.3, a), "pld-profile", 5e-3),
}


@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
@FEW
@given(alphas=ALPHAS)
def test_contains_closed_form(name, alphas):
    exact, method, width = CLOSED_FORMS[name]
    a = np.array(alphas)
    iv = _acc(name).tradeoff(a, points=121)
    ex = exact(a)
    assert iv.method == method
    assert np.all(iv.lower <= ex) and np.all(ex <= iv.upper)
    assert np.max(iv.upper - iv.lower) < width


@FEW
@given(ALPHAS)
def test_rr_composition_contains_binomial_curve(alphas):
    iv = _acc("rr").tradeoff(np.array(alphas), points=121)
    for a, lo, up in zip(alphas, iv.lower, iv.upper):
        ex = _rr_curve(0.7, 12, a)
        assert lo <= ex <= up, (a, lo, ex, up)
    assert np.max(iv.upper - iv.lower) < 1e-2


@pytest.mark.parametrize("name", ["sub-exact", "sub-fft"])
@FEW
@given(alphas=ALPHAS)
def test_subsampled_gaussian_contains_reference(name, alphas):
    a = np.array(alphas)
    iv = _acc(name).tradeoff(a, points=121)
    hx, hy = _subsampled_hull(1.25, 0.2)
    ref = np.interp(a, hx, hy)  # chords lie above the convex curve: by 3.4e-9 at most vs an 8x denser hull
    assert np.all(iv.lower <= ref) and np.all(ref - 1e-8 <= iv.upper)
    assert np.max(iv.upper - iv.lower) < 5e-3


# ---------------------------------------------------------------- shape, symmetry, refusals
def test_scalar_and_shape():
    acc = _acc("gauss-exact")
    iv = acc.tradeoff(0.1)
    assert isinstance(iv.lower, float) and iv.lower <= _gauss(1.5, 0.1) <= iv.upper
    grid = np.linspace(0, 1, 12).reshape(3, 4)
    assert acc.tradeoff(grid).lower.shape == (3, 4)


def test_curve_is_symmetric_and_trivial_at_ends():
    iv = _acc("sub-fft").tradeoff(np.array([0.0, 1.0]), points=121)
    assert iv.upper[1] == 0.0 and iv.lower[0] > 1 - 1e-6
    # symmetric f: f(f(α)) = α within the interval slack, tested through the exact hull reference
    hx, hy = _subsampled_hull(1.25, 0.2)
    assert np.allclose(np.interp(np.interp(0.3, hx, hy), hx, hy), 0.3, atol=1e-6)


def test_wrong_mu_is_excluded():
    """A curve for μ·1.05 must fall outside the interval somewhere (the interval is informative)."""
    a = np.linspace(0.01, 0.99, 99)
    iv = _acc("gauss-fft").tradeoff(a, points=121)
    assert np.any(_gauss(1.5 * 1.05, a) < iv.lower)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "x", [0.2, 2.0]])
def test_bad_alpha_refused(bad):
    with pytest.raises(PrivcheckUsageError, match="alpha"):
        _acc("gauss-exact").tradeoff(bad)


# ---------------------------------------------------------------- μ-GDP, risk, advantage
def test_gdp_of_gaussian_composition_is_its_mu():
    for name in ("gauss-exact", "gauss-fft"):
        mu, regret = _acc(name).gdp()
        assert 1.5 in mu and mu.width < 5e-3, (name, mu)
        assert regret.lower == 0.0 and regret.upper < 1e-3, (name, regret)


def _hull_mu(a: float) -> float:
    """sup of isf(α) + isf(β) over the reference hull's vertices with a <= α <= β."""
    hx, hy = _subsampled_hull(1.25, 0.2)
    keep = (hx >= a) & (hy >= hx)
    return float(np.max(norm.isf(hx[keep]) + norm.isf(hy[keep])))


@pytest.mark.parametrize("a", [1e-2, 1e-4])
def test_gdp_of_subsampled_gaussian_against_reference(a):
    res = _acc("sub-exact").gdp(alpha_min=a, points=121)
    ref = _hull_mu(a)
    assert res.mu.lower <= ref + 1e-6 and ref <= res.mu.upper, (res.mu, ref)
    assert res.mu.width < 0.02
    # regret of that μ by brute force on the reference (x grid 1e5 points)
    hx, hy = _subsampled_hull(1.25, 0.2)
    x = np.linspace(0, 1, 100_001)
    g = _gauss(ref, x)
    lo, hi = 0.0, 1.0
    for _ in range(40):
        d = 0.5 * (lo + hi)
        if np.all(np.interp(np.minimum(x + d, 1), hx, hy) - d <= g):
            hi = d
        else:
            lo = d
    assert res.regret.lower - 1e-4 <= hi <= res.regret.upper + 1e-4, (res.regret, hi)


def test_strict_mu_grows_as_alpha_min_shrinks():
    """The strict μ is far larger than the μ at a moderate cut for a subsampled mechanism."""
    acc = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma=1.0), q=0.01))
    m3 = acc.gdp(alpha_min=1e-3).mu
    m10 = acc.gdp(alpha_min=1e-10).mu
    assert m10.lower > 4 * m3.upper


def test_risk_and_advantage_of_gaussian():
    acc = _acc("gauss-fft")
    f = np.array([0.0, 1e-6, 1e-3, 0.05, 0.5, 1.0])
    r = acc.risk(fpr=f, points=121)
    tpr = 1 - _gauss(1.5, f)
    assert np.all(r.lower <= tpr) and np.all(tpr <= r.upper)
    iv = acc.tradeoff(f, points=121)
    assert np.array_equal(r.upper, 1 - iv.lower)
    adv = acc.advantage()
    assert (2 * norm.cdf(0.75) - 1) in adv


@pytest.mark.parametrize("kw", [{"fpr": -1}, {"fpr": [0.1, 7]}])
def test_bad_fpr_refused(kw):
    with pytest.raises(PrivcheckUsageError, match="fpr"):
        _acc("gauss-exact").risk(**kw)


@pytest.mark.parametrize("a", [0, 0.5, -1, float("nan")])
def test_bad_alpha_min_refused(a):
    with pytest.raises(PrivcheckUsageError, match="alpha_min"):
        _acc("gauss-exact").gdp(alpha_min=a)


# ---------------------------------------------------------------- CLI
def _cli(*args):
    from click.testing import CliRunner

    from privcheck.cli import main

    return CliRunner().invoke(main, ["budget", "pld", *args])


def test_cli_tradeoff_gdp_risk_json():
    import json

    ev = ("--event", "gaussian:sigma=2x9")
    d = json.loads(_cli(*ev, "--tradeoff", "--alpha", "0.01", "--alpha", "0.2", "--json", "-").output)
    ex = _gauss(1.5, np.array([0.01, 0.2]))
    assert np.all(np.array(d["beta_lower"]) <= ex) and np.all(ex <= np.array(d["beta_upper"]))
    d = json.loads(_cli(*ev, "--gdp", "--json", "-").output)
    assert d["mu_lower"] <= 1.5 <= d["mu_upper"] and d["regret_upper"] >= 0
    d = json.loads(_cli(*ev, "--risk", "--fpr", "0.01", "--json", "-").output)
    assert d["tpr_upper"][0] >= 1 - _gauss(1.5, 0.01) and d["advantage_upper"] >= 2 * norm.cdf(0.75) - 1
    res = _cli(*ev, "--tradeoff")
    assert res.exit_code == 0 and "alpha=     0.5" in res.output


@pytest.mark.parametrize(
    "args, msg",
    [
        (("--tradeoff", "--alpha", "1.5"), "--alpha must be a probability in [0, 1]"),
        (("--risk", "--fpr", "-0.1"), "--fpr must be a probability in [0, 1]"),
        (("--gdp", "--alpha-min", "0.7"), "--alpha-min must be in (0, 0.5)"),
        (("--gdp", "--alpha", "0.1"), "--alpha is only used with --tradeoff"),
        ((), "give at least one of --delta, --eps, --tradeoff, --gdp or --risk"),
        (("--tradeoff", "--delta", "2"), "delta must be"),
    ],
)
def test_cli_bad_curve_flags(args, msg):
    res = _cli("--event", "gaussian:sigma=1", *args)
    assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


# ---------------------------------------------------------------- peers.gdpnum / peers.riskcal judgement
def _row(quantity, value, at=None):
    from privcheck.catalogue.peers.curves import CurveRow

    return CurveRow(f"{quantity}-row", quantity, 2.0, 1.0, 9, at, lambda: value, "lib.call()")


@pytest.mark.parametrize(
    "quantity, value, status",
    [
        ("mu", 1.6, "holds"),
        ("mu", 1.4, "refuted"),
        ("mu", 1.5, "undecided"),
        ("advantage", 0.6, "holds"),
        ("advantage", 0.5, "refuted"),
        ("beta", 0.40, "holds"),
        ("beta", 0.42, "refuted"),
        ("beta", float(_gauss(1.5, 0.1)), "undecided"),
    ],
)
def test_curve_peer_rule(quantity, value, status):
    """μ/advantage are safe when high, β when low; inside the certified interval: undecided."""
    from privcheck.catalogue.peers.curves import certified_interval, judge_curve_row

    row = judge_curve_row(_row(quantity, value, 0.1 if quantity == "beta" else None), certified_interval)
    assert row["status"] == status, row
    if status == "refuted":
        assert "reproducer" in row and row["beyond_interval_by"] > 0


def test_curve_peer_library_failure_and_absence(monkeypatch):
    from privcheck.catalogue.peers import curves as pc
    from privcheck.claims import RunContext

    def boom():
        raise RuntimeError("no")

    r = pc.CurveRow("x", "mu", 2.0, 1.0, 9, None, boom, "lib.call()")
    assert pc.judge_curve_row(r)["status"] == "no_answer"
    monkeypatch.setattr(pc, "missing", lambda *m: m[0])
    out = pc.run_curve_peer(pc._CURVE_PEERS[0], RunContext(quick=True))
    assert out.verdict == "inconclusive" and "pip install" in out.details["reason"]


def test_curve_peers_registered():
    from privcheck.claims import CATALOGUE
    from privcheck.runner import load_catalogue

    load_catalogue()

    assert {"peers.gdpnum", "peers.riskcal"} <= set(CATALOGUE.claims)
    assert all(CATALOGUE.checks[c] for c in ("peers.gdpnum", "peers.riskcal"))


# ---------------------------------------------------------------- plot
def test_tradeoff_figure(tmp_path):
    from privcheck.reports.tradeoff_plot import tradeoff_plot_data, write_tradeoff_figure

    acc = _acc("gauss-exact")
    data = tradeoff_plot_data(acc, points=40)
    a = np.array(data["alpha"])
    assert np.all(np.array(data["beta_lower"]) <= _gauss(1.5, a)) and data["mu_lower"] <= 1.5 <= data["mu_upper"]
    fig = write_tradeoff_figure(acc, str(tmp_path), "tc", boxes=[(0.1, 0.12, 0.2, 0.25)])
    png = (tmp_path / fig.filename).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert "μ ∈ [1.5" in fig.caption or "μ ∈ [1.499" in fig.caption


# ---------------------------------------------------------------- asymmetric finite pair, replace-one
def _np_vertices(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Neyman–Pearson vertices (α, β) of T(P, Q): reject P on outcomes in decreasing Q/P order."""
    order = np.argsort(-(Q / P))
    al = np.concatenate([[0], np.cumsum(P[order])])
    be = np.concatenate([[1], 1 - np.cumsum(Q[order])])
    al[-1], be[-1] = 1.0, 0.0  # the sums are 1 up to rounding
    return np.stack([al, be], 1)


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
def test_asymmetric_finite_composition_contains_hull(relation):
    """3-fold asymmetric pair: the curve is the lower convex hull of T(P,Q) and T(Q,P) (Def. F.1)."""
    from accountants.pld import FiniteEvent

    p, q = np.array([0.6, 0.3, 0.1]), np.array([0.3, 0.3, 0.4])
    P = np.einsum("i,j,k->ijk", p, p, p).ravel()
    Q = np.einsum("i,j,k->ijk", q, q, q).ravel()
    pts = np.concatenate([_np_vertices(P, Q), _np_vertices(Q, P), [[1.0, 1.0]]])
    hull = ConvexHull(pts)
    v = pts[hull.vertices]
    v = v[v[:, 1] <= 1 - v[:, 0] + 1e-12]
    v = v[np.argsort(v[:, 0])]
    acc = PLDAccountant(relation, target_fft_size=2**12).compose(FiniteEvent(p, q), 3)
    a = np.concatenate([v[:, 0], np.linspace(0, 1, 201)])
    ref = np.interp(a, v[:, 0], v[:, 1])  # exact: the hull is piecewise linear between its vertices
    iv = acc.tradeoff(a, points=121)
    assert np.all(iv.lower <= ref + 1e-12) and np.all(ref - 1e-12 <= iv.upper)
    assert np.max(iv.upper - iv.lower) < 2e-2
    # the one-sided curve T(P,Q) alone is not symmetric here: the symmetrisation matters
    one = np.interp(a, *_np_vertices(P, Q).T)
    assert np.max(one - ref) > 1e-3
