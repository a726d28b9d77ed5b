"""Audits of the trade-off-curve libraries: claims ``peers.gdpnum`` and ``peers.riskcal``.

gdpnum (Gomez et al. 2025, arXiv:2503.10945) reports DP-SGD as μ-GDP ("a pessimistic value for
μ, i.e. so that f_μ <= T(P,Q)", over the curve's breakpoints with α, β > 1e−10) with a worst-case
regret, and the symmetrised curve β(α); riskcal (Kulynych et al. 2024, arXiv:2407.02191) reports
β(α) and the attack advantage. Both read dp_accounting's connect-the-dots PLD. Each answer is
placed against privcheck's certified interval (accountants.pld: ``gdp``, ``tradeoff``,
``advantage``) for the same Poisson-subsampled Gaussian composition (add/remove):

- a privacy claim on the **safe side** of the whole interval holds (μ or advantage above the
  certified upper end; β below the certified lower end);
- one on the **unsafe side** of the whole interval is refuted (μ below the certified lower end:
  G_μ is above the true curve somewhere in the range; β above the upper end; advantage below the
  lower end) — the row carries the interval and a reproducer;
- inside the interval: ``undecided`` (the certified interval is not narrow enough to judge);
- a value no mechanism can have is ``impossible`` (and refutes the claim) before any interval is
  consulted: β(α) above 1 − α (a test whose power 1 − β is below its false-positive rate α: TPR
  below FPR) or below 0, an advantage outside [0, 1], a negative μ — beyond
  :data:`IMPOSSIBLE_ABS` (a few units in the last place at 1).

The grids reach the tails where the libraries' numerics give way (issue 29): long horizons
(T = 10⁴), large ε (q = 0.5, σ = 0.5) and tiny α (down to 1e-12); ``--quick`` keeps one long-horizon
composition at a few tail α.

A claim is refuted when any row is, holds when at least one row holds and none is refuted,
inconclusive otherwise; without the library: inconclusive with the install hint
(``pip install 'privcheck[peers]'``). gdpnum's regret is not judged (gdpnum documents it as an
underestimate).
"""

from __future__ import annotations

import contextlib
import io
import math
import time
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from privcheck.catalogue.peers.core import missing, skipped, versions
from privcheck.catalogue.peers.events import REL_FLOAT
from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

__all__ = [
    "QUICK_GRID",
    "FULL_GRID",
    "CurveRow",
    "judge_curve_row",
    "impossible",
    "gdpnum_rows",
    "riskcal_rows",
    "run_curve_peer",
]

ALPHAS = (1e-6, 1e-4, 1e-3, 1e-2, 0.1, 0.3)
#: the full grid's α: the tails (down to 1e-12, where β is within 1e-12 of 1) and the upper half too
FULL_ALPHAS = (1e-12, 1e-10, 1e-8) + ALPHAS + (0.5, 0.9)
#: ((σ, q, T), α values): the Poisson-subsampled Gaussian compositions asked of both libraries in --quick runs
QUICK_GRID = (
    ((1.0, 0.01, 1), ALPHAS),
    ((1.1, 0.01, 100), ALPHAS),
    ((1.1, 0.01, 10_000), (1e-10, 1e-6, 0.1)),  # a long horizon's tail
)
#: the full grid: short and long horizons (T up to 10⁴), large ε (q = 0.5, σ = 0.5), α from 1e-12 to 0.9
FULL_GRID = tuple(
    (c, FULL_ALPHAS)
    for c in (
        (1.0, 0.01, 1),
        (1.1, 0.01, 1000),
        (2.0, 1.0, 9),
        (1.1, 0.01, 10_000),
        (0.8, 0.01, 10_000),
        (0.5, 0.5, 100),
    )
)
#: which side of the interval is safe for each quantity ("high": a larger answer claims less privacy)
SAFE = {"mu": "high", "advantage": "high", "beta": "low"}
#: how far (absolutely) a value may pass the bounds every mechanism obeys before it is called impossible: a few
#: units in the last place at 1 (β near 1 − α and advantages near 1 are computed as differences near 1)
IMPOSSIBLE_ABS = 4 * 2.0**-52


def impossible(quantity: str, value: float, alpha: float | None) -> str | None:
    """Why ``value`` cannot be the ``quantity`` of any mechanism (None when it can).

    β(α) ∈ [0, 1 − α] for every trade-off curve (a test at least as good as ignoring the data: TPR ≥ FPR);
    the advantage (max TPR − FPR) ∈ [0, 1]; μ ≥ 0. Each bound is relaxed by :data:`IMPOSSIBLE_ABS`.
    """
    if quantity == "beta":
        a = float(alpha)
        if value > 1.0 - a + IMPOSSIBLE_ABS:
            return (
                f"beta({a:g}) = {value!r} is above 1 - alpha = {1.0 - a!r}: a test with TPR {1.0 - value:.3g} below "
                f"its FPR {a:g}, impossible for any mechanism"
            )
        if value < -IMPOSSIBLE_ABS:
            return f"beta({a:g}) = {value!r} is negative"
    elif quantity == "advantage" and not -IMPOSSIBLE_ABS <= value <= 1.0 + IMPOSSIBLE_ABS:
        return f"advantage {value!r} is outside [0, 1]"
    elif quantity == "mu" and value < 0:
        return f"mu {value!r} is negative"
    return None


@dataclass
class CurveRow:
    """One library answer: ``quantity`` ∈ mu/beta/advantage at ``at`` (α for beta), for the
    composition (σ, q, T); ``ask`` returns the library's number; ``code`` reproduces the call."""

    label: str
    quantity: str
    sigma: float
    q: float
    steps: int
    at: float | None
    ask: Callable[[], float]
    code: str


def _accountant(sigma: float, q: float, steps: int):
    from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent

    ev = GaussianEvent(sigma=sigma) if q == 1.0 else PoissonSampledEvent(GaussianEvent(sigma=sigma), q=q)
    return PLDAccountant().compose(ev, steps)


_ACCS: dict = {}


def certified_interval(quantity: str, sigma: float, q: float, steps: int, at: float | None):
    """privcheck's certified Interval on ``quantity`` for the composition (one accountant per composition)."""
    key = (sigma, q, steps)
    if key not in _ACCS:
        _ACCS.clear()  # one composition at a time: the accountants hold large arrays
        _ACCS[key] = _accountant(sigma, q, steps)
    acc = _ACCS[key]
    if quantity == "mu":
        return acc.gdp(alpha_min=1e-10).mu
    if quantity == "beta":
        return acc.tradeoff(at)
    return acc.advantage()


def judge_curve_row(row: CurveRow, certify: Callable = certified_interval) -> dict:
    """Ask the library and place its answer against the certified interval (module docstring)."""
    out = {"query": row.label, "quantity": row.quantity, "sigma": row.sigma, "q": row.q, "steps": row.steps}
    if row.at is not None:
        out["alpha"] = row.at
    buf = io.StringIO()
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(buf):
            warnings.simplefilter("ignore")
            value = float(np.asarray(row.ask()).ravel()[0])
    except Exception as exc:  # the library's failure is a finding, not our error
        out.update(status="no_answer", error=f"{type(exc).__name__}: {exc}"[:300], code=row.code)
        return out
    out["answer"] = value
    if math.isnan(value):
        out.update(status="no_answer", error="NaN", code=row.code)
        return out
    iv = certify(row.quantity, row.sigma, row.q, row.steps, row.at)
    out.update(certified=[iv.lower, iv.upper], certified_by=iv.method)
    lo = iv.lower - REL_FLOAT * abs(iv.lower)
    up = iv.upper + REL_FLOAT * abs(iv.upper)
    high_safe = SAFE[row.quantity] == "high"
    why = impossible(row.quantity, value, row.at)
    if why is not None:  # no mechanism has this value, whatever the interval says
        out.update(status="impossible", reason=why)
        out["reproducer"] = row.code + f"\n# impossible: {why}"
    elif (value >= up) if high_safe else (value <= lo):
        out["status"] = "holds"
    elif (value < lo) if high_safe else (value > up):
        out["status"] = "refuted"
        out["beyond_interval_by"] = (iv.lower - value) if high_safe else (value - iv.upper)
        out["reproducer"] = (
            row.code + f"\n# privcheck: {row.quantity} in [{iv.lower!r}, {iv.upper!r}] ({iv.method}), "
            f"accountants.pld PLDAccountant + PoissonSampledEvent(GaussianEvent(sigma={row.sigma}), q={row.q}) x {row.steps}"
        )
    else:
        out["status"] = "undecided"
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def grid(ctx: RunContext) -> tuple:
    """The ((σ, q, T), α values) asked: :data:`QUICK_GRID` under ``--quick``, else :data:`FULL_GRID`."""
    return QUICK_GRID if ctx.quick else FULL_GRID


def gdpnum_rows(ctx: RunContext) -> list[CurveRow]:
    """gdpnum's μ (get_mu_and_regret_for_dpsgd) and symmetrised β (PLDConverter.get_beta)."""
    rows = []
    for (sigma, q, T), alphas in grid(ctx):
        call = f"get_mu_and_regret_for_dpsgd({sigma}, {q}, {T})"
        code = f"from gdpnum.dpsgd import get_mu_and_regret_for_dpsgd\n{call}[0]"
        rows.append(
            CurveRow(f"mu: {call}", "mu", sigma, q, T, None, lambda s=sigma, p=q, t=T: _gdpnum_mu(s, p, t), code)
        )
        for a in alphas:
            code = (
                "from dp_accounting.pld.privacy_loss_distribution import from_gaussian_mechanism\n"
                "from gdpnum.converter import PLDConverter\n"
                f"pld = from_gaussian_mechanism({sigma}, sampling_prob={q}, use_connect_dots=True, "
                f"value_discretization_interval=1e-4).self_compose({T})\nPLDConverter(pld).get_beta({a})"
            )
            rows.append(
                CurveRow(
                    f"beta({a:g}): PLDConverter(sigma={sigma}, q={q}, T={T})",
                    "beta",
                    sigma,
                    q,
                    T,
                    a,
                    lambda s=sigma, p=q, t=T, x=a: _gdpnum_beta(s, p, t, x),
                    code,
                )
            )
    return rows


def _ctd_pld(sigma: float, q: float, steps: int):
    from dp_accounting.pld.privacy_loss_distribution import from_gaussian_mechanism

    return from_gaussian_mechanism(
        standard_deviation=sigma, sampling_prob=q, use_connect_dots=True, value_discretization_interval=1e-4
    ).self_compose(steps)


_CONVERTERS: dict = {}


def _gdpnum_beta(sigma, q, steps, alpha):
    from gdpnum.converter import PLDConverter

    key = (sigma, q, steps)
    if key not in _CONVERTERS:
        _CONVERTERS.clear()
        _CONVERTERS[key] = PLDConverter(_ctd_pld(sigma, q, steps))
    return _CONVERTERS[key].get_beta(alpha)


def _gdpnum_mu(sigma, q, steps):
    from gdpnum.dpsgd import get_mu_and_regret_for_dpsgd

    return get_mu_and_regret_for_dpsgd(sigma, q, steps)[0]


def riskcal_rows(ctx: RunContext) -> list[CurveRow]:
    """riskcal's β(α) (calibration.dpsgd.get_beta_for_dpsgd) and advantage (get_advantage_for_dpsgd).

    riskcal builds the composition's PLD on every call; the α values of one composition are asked in
    one call (get_beta_for_dpsgd takes an array of α: the same computation, one PLD), each row's
    reproducer the scalar call.
    """
    rows = []
    for (sigma, q, T), alphas in grid(ctx):
        call = f"get_advantage_for_dpsgd({sigma}, {q}, {T})"
        rows.append(
            CurveRow(
                f"advantage: {call}",
                "advantage",
                sigma,
                q,
                T,
                None,
                lambda s=sigma, p=q, t=T: _riskcal("get_advantage_for_dpsgd", s, p, t),
                f"from riskcal.calibration.dpsgd import get_advantage_for_dpsgd\n{call}",
            )
        )
        for a in alphas:
            call = f"get_beta_for_dpsgd({sigma}, {q}, {T}, alpha={a})"
            rows.append(
                CurveRow(
                    f"beta({a:g}): {call}",
                    "beta",
                    sigma,
                    q,
                    T,
                    a,
                    lambda s=sigma, p=q, t=T, x=a, xs=tuple(alphas): _riskcal_beta(s, p, t, x, xs),
                    f"from riskcal.calibration.dpsgd import get_beta_for_dpsgd\n{call}",
                )
            )
    return rows


def _riskcal(name, sigma, q, steps, **kw):
    from riskcal.calibration import dpsgd

    return getattr(dpsgd, name)(sigma, q, steps, **kw)


_BETAS: dict = {}


def _riskcal_beta(sigma, q, steps, alpha, alphas):
    """riskcal's β at ``alpha`` from one array call over all ``alphas`` of the composition (cached)."""
    key = (sigma, q, steps, alphas)
    if key not in _BETAS:
        _BETAS.clear()
        _BETAS[key] = np.asarray(_riskcal("get_beta_for_dpsgd", sigma, q, steps, alpha=np.array(alphas))).ravel()
    return _BETAS[key][alphas.index(alpha)]


def fold(rows: list[dict], library: str, dists: tuple[str, ...], statement: str) -> Outcome:
    """Verdict from the judged rows (refuted if any row is, holds if any holds, else inconclusive)."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    bad_status = ("refuted", "impossible")
    verdict = (
        "refuted" if any(counts.get(k) for k in bad_status) else ("holds" if counts.get("holds") else "inconclusive")
    )
    measured = ", ".join(
        f"{counts[k]} {k.replace('_', ' ')}"
        for k in ("impossible", "refuted", "holds", "undecided", "no_answer")
        if counts.get(k)
    )
    extra: dict = {"counts": counts}
    bad = [r for r in rows if r["status"] == "impossible"] + [r for r in rows if r["status"] == "refuted"]
    if bad:
        r0 = bad[0]
        if r0["status"] == "impossible":
            measured = f"{r0['query']}: {r0['reason']}; " + measured
        else:
            measured = f"{r0['query']}: {r0['answer']:.6g} outside the certified {r0['certified']}; " + measured
        extra.update(
            first_refuted={k: r0[k] for k in ("query", "answer", "certified")},
            interval=r0["certified"],
            reproducer=r0["reproducer"],
        )
    return Outcome(
        verdict,
        claimed=statement,
        measured=measured,
        details={
            "library": library,
            "versions": versions(*dists),
            **extra,
            "rows": rows,
            "float_allowance_rel": REL_FLOAT,
            "rule": "a value no mechanism has (beta above 1 - alpha or below 0, advantage outside [0, 1], "
            "negative mu): impossible, refuted; mu/advantage below the certified lower end or beta above the "
            "certified upper end: refuted; on the safe side of the whole interval: holds; inside: undecided",
        },
    )


@dataclass(frozen=True)
class _CurvePeer:
    claim_id: str
    library: str
    dists: tuple[str, ...]
    where: str
    statement: str
    build: Callable[[RunContext], list[CurveRow]]


_CURVE_PEERS = (
    _CurvePeer(
        "peers.gdpnum",
        "gdpnum",
        ("gdpnum", "dp-accounting"),
        "dpsgd.get_mu_and_regret_for_dpsgd, converter.PLDConverter",
        "gdpnum's μ is pessimistic (G_μ below the true curve wherever α, β >= 1e-10) and its symmetrised "
        "β(α) is not above the true curve (so never above 1 − α)",
        gdpnum_rows,
    ),
    _CurvePeer(
        "peers.riskcal",
        "riskcal",
        ("riskcal", "dp-accounting"),
        "calibration.dpsgd.get_beta_for_dpsgd, get_advantage_for_dpsgd",
        "riskcal's β(α) is not above the true trade-off curve (so never above 1 − α) and its advantage is not "
        "below the true advantage (nor above 1)",
        riskcal_rows,
    ),
)


def run_curve_peer(peer: _CurvePeer, ctx: RunContext) -> Outcome:
    """Run one curve peer: skip with the install hint when its library is absent, else judge its rows."""
    if missing(peer.library) is not None:
        out = skipped(peer.library)
        out.details["versions"] = versions(*peer.dists)
        return out
    rows = [judge_curve_row(r) for r in peer.build(ctx)]
    _ACCS.clear()
    _CONVERTERS.clear()
    _BETAS.clear()
    return fold(rows, peer.library, peer.dists, peer.statement)


def _register(peer: _CurvePeer) -> None:
    CATALOGUE.add_claim(Claim(peer.claim_id, peer.library, peer.where, "bound", peer.statement, ("numeric",)))
    check(peer.claim_id, "numeric")(lambda ctx, _p=peer: run_curve_peer(_p, ctx))


for _p in _CURVE_PEERS:
    _register(_p)
