"""Checks of the catalogue — 002 (SPriFed-OMP) end to end: the algorithm, its §7 claims and its privacy.

Every check runs the reconstruction in :mod:`estimators.spriFed_omp` (its choices, with the sentences
of the paper they rest on, are in ``docs/site/spriFed-omp.md``; each outcome's ``details["reconstruction"]``
says which parts it rests on). Comparisons are paired over Monte Carlo trials (same instance, own
noise) and decided by exact sign tests: the Clopper–Pearson interval (:func:`privcheck.base.stats.clopper_pearson`)
of the share of trials in which the paper's statement holds, ties dropped, Bonferroni over the
tests of one check. A statement *holds* when every interval lies above ½, is *refuted* when one lies
below ½, and is inconclusive otherwise.
"""

from __future__ import annotations

import math

import numpy as np

from privcheck.base.stats import bonferroni_alpha, clopper_pearson
from privcheck.catalogue.estimation.common import seed_for
from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

P002 = "002_53ad70670a94e98a.txt"
RECON = "docs/site/spriFed-omp.md"
#: cap on the trials a --samples override may ask for (each trial runs whole algorithms)
MAX_TRIALS = 400

for _c in (
    Claim(
        "spriFed.omp.enhancement1",
        P002,
        "§3 Enhancement 1, §7.1 Table 1",
        "estimator",
        "re-privatising the chosen features' artifacts with the low noise level (Alg. 3 line 14) gives lower "
        "test MSE and recovers more of the true basis than using the high-noise artifacts of lines 5 and 11",
        ("mc",),
    ),
    Claim(
        "spriFed.omp.enhancement2",
        P002,
        "§3.1 Enhancement 2, §7.1 Fig. 1",
        "estimator",
        "over the iterations of non-private OMP the gradient norm decreases while the correlation "
        "(covariance) norms of the chosen features stay roughly constant",
        ("mc",),
    ),
    Claim(
        "spriFed.omp.figure2",
        P002,
        "§7.2 Fig. 2",
        "estimator",
        "at n ≪ d, SPriFed-OMP and SPriFed-OMP-GRAD reach lower test MSE than DP-SGD-ℓ1 and DP-GCD at the same "
        "total GDP μ",
        ("mc",),
    ),
    Claim(
        "spriFed.omp.recovery",
        P002,
        "§7.2 Figs. 3–4",
        "estimator",
        "the number of true basis elements recovered grows with n; the n needed grows slowly with d (doubling n "
        "suffices when d grows tenfold); SPriFed-OMP-GRAD is more robust to a larger σₑ than SPriFed-OMP",
        ("mc",),
    ),
    Claim(
        "spriFed.omp.theorems",
        P002,
        "Thms 7–8",
        "estimator",
        "under RIP (RIC of order s+1 below a bound), a sample-size condition and a noise condition, SPriFed-OMP and "
        "SPriFed-OMP-GRAD recover the true basis with high probability",
        ("mc",),
    ),
    Claim(
        "spriFed.omp.privacy",
        P002,
        "Thm 6, Def. 2.1",
        "privacy",
        "the whole SPriFed-OMP run, as a central mechanism on datasets differing in one client, is μ-GDP with "
        "μ = √(n1μ1² + n2μ2²) of Theorem 6, hence (ε, δ(ε))-DP by Lemma 2",
        ("mc",),
    ),
):
    CATALOGUE.add_claim(_c)


def _trials(ctx: RunContext, default: int, quick: int) -> tuple[int, str]:
    R = ctx.n(default=default, quick=quick)
    if R > MAX_TRIALS:
        return MAX_TRIALS, f"--samples asked for {R} trials; capped at {MAX_TRIALS} (each trial runs whole algorithms)"
    return max(R, 2), ""


def sign_test(wins: int, losses: int, alpha: float) -> dict:
    """Exact sign test of P(win) > ½ over non-tied trials: Clopper–Pearson interval and decision.

    wins, losses ≥ 0 (ties dropped); alpha ∈ (0, 1) two-sided. ``decision`` is 'supports' (interval
    above ½), 'contradicts' (below ½) or 'undecided' (no non-tied trial or interval covers ½).
    """
    m = wins + losses
    if m == 0:
        return {"wins": wins, "losses": losses, "interval": None, "decision": "undecided"}
    lo, hi = clopper_pearson(wins, m, alpha)
    dec = "supports" if lo > 0.5 else "contradicts" if hi < 0.5 else "undecided"
    return {"wins": wins, "losses": losses, "share": wins / m, "interval": [lo, hi], "decision": dec}


def _paired(a, b, better="lower") -> tuple[int, int]:
    """(wins, losses) of series a over b, trial by trial (ties dropped)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    w = int(np.sum(a < b) if better == "lower" else np.sum(a > b))
    l_ = int(np.sum(a > b) if better == "lower" else np.sum(a < b))
    return w, l_


def _verdict(tests: dict) -> str:
    decs = [t["decision"] for t in tests.values()]
    if "contradicts" in decs:
        return "refuted"
    return "holds" if decs and all(d == "supports" for d in decs) else "inconclusive"


def _summary(values) -> dict:
    v = np.asarray(values, float)
    return {"mean": float(v.mean()), "median": float(np.median(v)), "min": float(v.min()), "max": float(v.max())}


def _proportion(k: int, R: int, alpha: float) -> dict:
    lo, hi = clopper_pearson(k, R, alpha)
    return {"k": int(k), "trials": int(R), "share": k / R, "interval": [lo, hi]}


# --------------------------------------------------------------------------- Table 1 / Enhancement 1
@check("spriFed.omp.enhancement1", "mc")
def _enhancement1(ctx: RunContext) -> Outcome:
    from estimators.spriFed_omp import experiments as ex

    R, note = _trials(ctx, 20, 6)
    d, ns = 1000, (400, 800)
    seed = seed_for(ctx, "enh1")
    alpha = bonferroni_alpha(1 - ctx.confidence, 2 * len(ns))
    tests, rows = {}, []
    for n in ns:
        tr = ex.trials(n, d, ("omp", "omp_noenh"), R, ex.SETUP, seed)
        a, b = [t.mse["omp"] for t in tr], [t.mse["omp_noenh"] for t in tr]
        ra, rb = [t.recovered["omp"] for t in tr], [t.recovered["omp_noenh"] for t in tr]
        tests[f"n={n}: MSE lower with Enhancement 1"] = sign_test(*_paired(a, b), alpha)
        tests[f"n={n}: more basis recovered with Enhancement 1"] = sign_test(*_paired(ra, rb, "higher"), alpha)
        rows.append(
            {
                "n": n,
                "mse_low_noise": _summary(a),
                "mse_high_noise": _summary(b),
                "recovered_low_noise": float(np.mean(ra)),
                "recovered_high_noise": float(np.mean(rb)),
            }
        )
    from accountants.spriFed import spriFed_budget

    s, mu1, mu2 = ex.SETUP["s"], ex.SETUP["mu1"], ex.SETUP["mu2"]
    return Outcome(
        verdict=_verdict(tests),
        claimed="Table 1: lower test MSE and more basis recovered with Enhancement 1",
        measured={k: v["decision"] for k, v in tests.items()},
        details={
            "tests": tests,
            "rows": rows,
            "d": d,
            "trials": R,
            "setup": ex.SETUP,
            "alpha_per_test": alpha,
            "budgets": {
                "with Enhancement 1 (n1=s, n2=s)": spriFed_budget(s, mu1, mu2).mu_total,
                "without (n1=s+1, n2=0)": math.sqrt(s + 1) * mu1,
            },
            "reconstruction": f"{RECON}: Alg. 3 rounds, PRIVATE-OLS release, no-Enhancement-1 variant, §7 set-up",
            "test": "exact sign tests over paired trials (Clopper–Pearson, Bonferroni), ties dropped",
            "note": note
            or "the variant without Enhancement 1 spends √(s+1)·μ1, no less than √(s(μ1²+μ2²)) "
            "when μ1² ≥ s·μ2², so the comparison does not favour Enhancement 1",
        },
        samples=R,
    )


# --------------------------------------------------------------------------- Figure 1 / Enhancement 2
@check("spriFed.omp.enhancement2", "mc")
def _enhancement2(ctx: RunContext) -> Outcome:
    from estimators.spriFed_omp import experiments as ex

    R, note = _trials(ctx, 40, 10)
    n, d, tol = 500, 1000, 1.25
    tr = ex.figure1_traces(n, d, R, ex.SETUP, seed_for(ctx, "fig1"))
    alpha = bonferroni_alpha(1 - ctx.confidence, 2)
    dec = sum(all(b < a for a, b in zip(t["gradient_norm"], t["gradient_norm"][1:])) for t in tr)
    flat = sum(max(t["covariance_norm"]) / min(t["covariance_norm"]) <= tol for t in tr)
    tests = {
        "gradient norm strictly decreasing over the iterations": sign_test(dec, R - dec, alpha),
        f"covariance norms within a factor {tol} over the iterations": sign_test(flat, R - flat, alpha),
    }
    rel = lambda key: np.array([np.asarray(t[key]) / t[key][0] for t in tr])  # noqa: E731
    series = {}
    for key, label in (
        ("gradient_norm", "‖gradient‖ (Alg. 4 artifact)"),
        ("covariance_norm", "‖X_jᵀX‖ of the chosen feature (Alg. 3 artifact)"),
        ("correlation_abs", "|X_jᵀy| of the chosen feature"),
    ):
        m = rel(key)
        series[label] = {
            "mean": m.mean(axis=0).tolist(),
            "interval": [[float(q[0]), float(q[1])] for q in np.quantile(m, [0.1, 0.9], axis=0).T],
        }
    figure = {
        "title": "002 Fig. 1: artifact norms over OMP iterations (÷ iteration 1)",
        "x": list(range(1, ex.SETUP["s"] + 1)),
        "xlabel": "OMP iteration",
        "ylabel": "norm ÷ first iteration",
        "series": series,
        "band": "10–90 % of trials",
        "statement": "paper: the gradient norm decreases while most correlation norms stay constant",
    }
    return Outcome(
        verdict=_verdict(tests),
        claimed="gradient norm decreases; correlation norms roughly constant",
        measured={k: v["decision"] for k, v in tests.items()},
        details={
            "tests": tests,
            "figure": figure,
            "n": n,
            "d": d,
            "trials": R,
            "test": f"per trial: gradient norm strictly decreasing over all s iterations; covariance "
            f"column norms' max/min ≤ {tol} ('roughly constant'); each share against ½ "
            "(exact sign test, Bonferroni over the two)",
            "reconstruction": f"{RECON}: the 'correlation' artifact of Fig. 1 read as the chosen "
            "feature's covariance column X_jᵀX (line 11 of Alg. 3)",
            "note": note,
        },
        samples=R,
    )


# --------------------------------------------------------------------------- Figure 2
@check("spriFed.omp.figure2", "mc")
def _figure2(ctx: RunContext) -> Outcome:
    from estimators.spriFed_omp import experiments as ex

    R, note = _trials(ctx, 16, 5)
    seed = seed_for(ctx, "fig2")
    configs = [(400, 500), (400, 1000), (400, 2000), (200, 1000), (800, 1000)]
    ours, base = ("omp", "grad"), ("sgd", "gcd")
    alpha = bonferroni_alpha(1 - ctx.confidence, len(configs) * len(ours) * len(base))
    tests, rows = {}, []
    for n, d in configs:
        tuned = ex.tune_baselines(n, d, ex.SETUP, seed, trials=1 if ctx.quick else 2)
        tr = ex.trials(n, d, ours + base, R, ex.SETUP, seed, tuned=tuned)
        mse = {m: [t.mse[m] for t in tr] for m in ours + base}
        for a in ours:
            for b in base:
                tests[f"n={n}, d={d}: {a} < {b}"] = sign_test(*_paired(mse[a], mse[b]), alpha)
        rows.append(
            {
                "n": n,
                "d": d,
                "tuned": {k: list(v) if isinstance(v, tuple) else v for k, v in tuned.items()},
                "mse": {m: _summary(v) for m, v in mse.items()},
                "recovered": {m: float(np.mean([t.recovered[m] for t in tr])) for m in ours + base},
            }
        )

    def fig(key, fixed, xs):
        sel = [r for r in rows if r[fixed[0]] == fixed[1]]
        sel.sort(key=lambda r: r[key])
        return {
            "x": [r[key] for r in sel],
            "xlabel": key,
            "ylabel": "test MSE (median over trials)",
            "log_y": True,
            "series": {m: {"mean": [r["mse"][m]["median"] for r in sel]} for m in ours + base},
        }

    figures = [
        dict(
            fig("d", ("n", 400), None),
            title="002 Fig. 2(a): test MSE vs d (n = 400)",
            statement="paper: SPriFed-OMP's MSE is almost constant in d; DP-SGD's grows dramatically",
        ),
        dict(
            fig("n", ("d", 1000), None),
            title="002 Fig. 2(b): test MSE vs n (d = 1000)",
            statement="paper: both SPriFed-OMP versions beat DP-SGD and DP-GCD for every n",
        ),
    ]
    return Outcome(
        verdict=_verdict(tests),
        claimed="SPriFed-OMP and -GRAD have lower test MSE than DP-SGD-ℓ1 and DP-GCD at the same total μ, n ≪ d",
        measured={k: v["decision"] for k, v in tests.items()},
        details={
            "tests": tests,
            "rows": rows,
            "figures": figures,
            "trials": R,
            "setup": ex.SETUP,
            "alpha_per_test": alpha,
            "test": "paired exact sign tests on test MSE per trial (Clopper–Pearson, Bonferroni "
            "over all configurations and pairs)",
            "reconstruction": f"{RECON}: DP-SGD-ℓ1 = full-batch, ℓ2-clipped, proximal ℓ1, "
            "T = ⌊μ_total²/μ1²⌋ steps, top-s; DP-GCD = Alg. 5 with "
            "T = ⌊μ_total²/(μ1²+μ2²)⌋; both tuned non-privately on separate trials",
            "note": note,
        },
        samples=R,
    )


# --------------------------------------------------------------------------- Figures 3–4
def _recovery_curve(ex, ns, d, R, seed, alpha, methods, s):
    maj = s // 2 + 1
    curve = {m: [] for m in methods}
    for n in ns:
        tr = ex.trials(n, d, methods, R, ex.SETUP, seed, key="rec")
        for m in methods:
            rec = [t.recovered[m] for t in tr]
            k = sum(r >= maj for r in rec)
            curve[m].append({"n": n, "mean_recovered": float(np.mean(rec)), "majority": _proportion(k, R, alpha)})
    return curve, maj


@check("spriFed.omp.recovery", "mc")
def _recovery(ctx: RunContext) -> Outcome:
    from estimators.spriFed_omp import experiments as ex

    R, note = _trials(ctx, 24, 8)
    seed = seed_for(ctx, "rec")
    s = ex.SETUP["s"]
    ns, d0 = (100, 200, 400, 800, 1600), 200
    methods = ("omp", "grad")
    # intervals: 2 methods × 5 n at d0, 2 at 10·d0, paired σₑ test 1 → Bonferroni over all of them
    alpha = bonferroni_alpha(1 - ctx.confidence, len(methods) * (len(ns) + 1) + 1 + len(methods))
    curve, maj = _recovery_curve(ex, ns, d0, R, seed, alpha, methods, s)
    tests = {}
    for m in methods:
        ivs = [c["majority"]["interval"] for c in curve[m]]
        drops = [
            (curve[m][i]["n"], curve[m][j]["n"])
            for i in range(len(ivs))
            for j in range(i + 1, len(ivs))
            if ivs[j][1] < ivs[i][0]
        ]
        rise = ivs[-1][0] > ivs[0][1]
        tests[f"{m}: majority recovery grows with n (d={d0})"] = {
            "decision": "contradicts" if drops else "supports" if rise else "undecided",
            "significant_decreases": drops,
            "first_interval": ivs[0],
            "last_interval": ivs[-1],
        }
    # n needed grows slowly: n0 = smallest n whose majority-recovery interval lies above ½ at d0; then 2·n0 at 10·d0
    d1 = 10 * d0
    needed = {}
    for m in methods:
        n0 = next((c["n"] for c in curve[m] if c["majority"]["interval"][0] > 0.5), None)
        if n0 is None:
            tests[f"{m}: doubling n suffices for d×10"] = {
                "decision": "undecided",
                "reason": f"no n in {ns} recovers a majority at d={d0}",
            }
            continue
        tr = ex.trials(2 * n0, d1, (m,), R, ex.SETUP, seed, key="rec10")
        k = sum(t.recovered[m] >= maj for t in tr)
        p = _proportion(k, R, alpha)
        needed[m] = {"n0": n0, "d0": d0, "n1": 2 * n0, "d1": d1, "majority_at_n1_d1": p}
        lo, hi = p["interval"]
        tests[f"{m}: doubling n suffices for d×10"] = {
            "decision": "supports" if lo > 0.5 else "contradicts" if hi < 0.5 else "undecided",
            **needed[m],
        }
    # σₑ robustness: same X, β and error direction at σₑ = 0.1 and 1.0; drop in recovered elements, paired
    n2, d2, se = 400, 1000, (0.1, 1.0)
    drops = {m: [] for m in methods}
    for t in range(R):
        per = {}
        for sig in se:
            ds = ex.instance(n2, d2, ex.SETUP, ex.generator(seed, "sigma", t), sigma_e=sig)
            for m in methods:
                per[(m, sig)] = ex.run_method(m, ds, ex.SETUP, ex.generator(seed, "sigma", t, m, sig)).recovered(
                    ds.support
                )
        for m in methods:
            drops[m].append(per[(m, se[0])] - per[(m, se[1])])
    tests["grad loses fewer basis elements than omp when σₑ grows"] = sign_test(
        *_paired(drops["grad"], drops["omp"]), alpha
    )
    figure = {
        "title": f"002 Figs. 3–4: majority recovery (≥ {maj} of s = {s}) vs n (d = {d0})",
        "x": list(ns),
        "xlabel": "n (clients)",
        "ylabel": f"share of trials recovering ≥ {maj} of {s}",
        "series": {
            m: {
                "mean": [c["majority"]["share"] for c in curve[m]],
                "interval": [c["majority"]["interval"] for c in curve[m]],
            }
            for m in methods
        },
        "band": "Clopper–Pearson intervals (Bonferroni)",
        "statement": "paper: recovery grows with n; the n needed grows much slower than d; "
        "SPriFed-OMP-GRAD is more robust to larger σₑ",
    }
    return Outcome(
        verdict=_verdict(tests),
        claimed="recovery grows with n; doubling n suffices for d×10; -GRAD more robust to larger σₑ",
        measured={k: v["decision"] for k, v in tests.items()},
        details={
            "tests": tests,
            "curve": curve,
            "needed": needed,
            "figure": figure,
            "trials": R,
            "sigma_e_drops": {m: _summary(v) for m, v in drops.items()},
            "sigma_e": list(se),
            "setup": ex.SETUP,
            "alpha_per_test": alpha,
            "test": "majority recovery per trial with Clopper–Pearson intervals: monotone unless a "
            "later n's interval lies wholly below an earlier one; n0 chosen on the d0 trials, "
            "the d×10 test on fresh trials; σₑ robustness: paired sign test on the drop",
            "reconstruction": f"{RECON}: Alg. 3/4 as reconstructed, §7 set-up with the lost constants "
            "chosen there (β magnitudes, clipping 2σ, μ1 = 5, μ2 = 1)",
            "note": note,
        },
        samples=R,
    )


# --------------------------------------------------------------------------- Theorems 7–8
def restricted_isometry_constant(X: np.ndarray, k: int) -> float:
    """δ_k of X/√n by enumerating every k-subset of columns (max |eigenvalue − 1| of the Gram block).

    X: n×d with d ≤ 30 and C(d, k) ≤ 10⁵ subsets (exact up to floating-point eigenvalues).
    """
    import itertools

    n, d = X.shape
    if math.comb(d, k) > 100_000:
        raise ValueError(f"C(d={d}, k={k}) subsets is too many for enumeration (allowed up to 100000)")
    Z = X / math.sqrt(n)
    G = Z.T @ Z
    worst = 0.0
    for T in itertools.combinations(range(d), k):
        ev = np.linalg.eigvalsh(G[np.ix_(T, T)])
        worst = max(worst, abs(ev[0] - 1), abs(ev[-1] - 1))
    return float(worst)


@check("spriFed.omp.theorems", "mc")
def _theorems(ctx: RunContext) -> Outcome:
    from estimators.spriFed_omp import experiments as ex

    # 80 trials: with 40, even 40/40 exact recoveries give a Clopper–Pearson lower bound < 0.9 at the
    # per-test level, so the check could never certify "high probability"
    R, note = _trials(ctx, 80, 12)
    seed = seed_for(ctx, "thm")
    setup = dict(ex.SETUP, s=2)
    n, d, s = 400, 16, 2
    bound = 1 / (math.sqrt(s) + 1)
    alpha = bonferroni_alpha(1 - ctx.confidence, 2)
    full = {"omp": 0, "grad": 0}
    used, rics = 0, []
    for t in range(R):
        ds = ex.instance(n, d, setup, ex.generator(seed, "inst", t))
        ric = restricted_isometry_constant(ds.X, s + 1)
        rics.append(ric)
        if ric >= bound:
            continue
        used += 1
        for m in full:
            r = ex.run_method(m, ds, setup, ex.generator(seed, "run", t, m))
            full[m] += r.recovered(ds.support) == s
    props = {m: _proportion(k, used, alpha) for m, k in full.items()} if used else {}
    high = 0.9
    ok = used > 0 and all(p["interval"][0] >= high for p in props.values())
    return Outcome(
        verdict="holds" if ok else "inconclusive",
        claimed="exact basis recovery with high probability under the theorems' conditions",
        measured={m: p["share"] for m, p in props.items()},
        details={
            "exact_recovery": props,
            "instances_used": used,
            "trials": R,
            "n": n,
            "d": d,
            "s": s,
            "ric_order": s + 1,
            "ric": _summary(rics),
            "ric_bound_used": bound,
            "high_probability_read_as": high,
            "evaluated": "condition 2 (RIP) only: δ_{s+1} of X/√n computed exactly by enumerating "
            "all (s+1)-column subsets; the paper's own RIC bound, sample-size constant "
            "and σₑ condition were lost in conversion, so the classical OMP bound "
            "δ_{s+1} < 1/(√s+1) (Mo & Shen 2012) stands in for condition 2",
            "verdict_rule": f"holds when every exact-recovery interval lies above {high}; never "
            "refuted, because conditions 1 and 3 cannot be evaluated, so a failure "
            "cannot be attributed to the theorem",
            "reconstruction": f"{RECON}: Alg. 3/4 as reconstructed; §7 set-up with s = 2",
            "note": note,
        },
        samples=R,
    )


# --------------------------------------------------------------------------- privacy, end to end
#: the audited configuration: small, so that one whole run is cheap and the audit has power
PRIVACY_CONFIG = {"n": 10, "d": 3, "mu1": 1.5, "mu2": 1.0, "c_x": 1.0, "c_y": 1.0, "eps": 1.0}


def audit_central(
    variant: str = "omp",
    share_factor: float = 1.0,
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    config: dict | None = None,
):
    """Black-box μ-GDP audit of the whole algorithm on neighbouring datasets at Theorem 6's claim.

    The claim audited is the trade-off curve G_μ with μ = Theorem 6's total for the configuration
    (:func:`accountants.spriFed.spriFed_budget`); refuted when an empirical (α, β) confidence box
    lies below G_μ (:mod:`privcheck.auditor.curves`). variant 'omp'/'grad'; share_factor 1 for the
    algorithm, 0.5 for the broken NoisySMPC; samples ≥ 100 per dataset; seed: the rows and the draws.
    Returns (AuditResult with ``mu_lower``, SpriFedBudget).
    """
    import privcheck
    from accountants.spriFed import spriFed_budget
    from estimators.spriFed_omp.privacy import central_run

    c = dict(PRIVACY_CONFIG, **(config or {}))
    run = central_run(c["n"], c["d"], c["mu1"], c["mu2"], c["c_x"], c["c_y"], variant, share_factor, seed)
    b = spriFed_budget(1, c["mu1"], c["mu2"], variant)
    res = privcheck.audit(
        run.sample, pairs=[(0, 1)], mu=b.mu_total, samples=samples, seed=seed, confidence=confidence, jobs=1, view=False
    )  # the output is our own real-valued statistic: its float bits say nothing
    return res, b


def _audit_case(label: str, res) -> dict:
    """One audit as a ``details["cases"]`` row (drawn by the reports as points with boxes over G_μ)."""
    return {
        "case": label,
        "mu_claimed": res.mu_claimed,
        "mu_lower": res.mu_lower,
        "verdict": res.verdict,
        "confidence": res.confidence,
        "samples_per_input": res.samples,
        "curve_points": res.curve_points or [],
    }


@check("spriFed.omp.privacy", "mc")
def _privacy(ctx: RunContext) -> Outcome:
    samples = ctx.n(default=8000, quick=2500)
    seed = int(ctx.rng("privacy").integers(2**31))
    conf = 1.0 - (1.0 - ctx.confidence) / 2  # two audits (algorithm, control): Bonferroni
    res, b = audit_central("omp", 1.0, samples, seed, conf)
    ctrl, _ = audit_central("omp", 0.5, samples, seed + 1, conf)
    verdict = res.verdict
    if verdict == "holds" and ctrl.verdict != "refuted":
        verdict = "inconclusive"  # the audit could not even catch the broken control: no power
    c = PRIVACY_CONFIG
    eff = math.sqrt(
        c["mu1"] ** 2
        + (2 * c["c_x"] * c["c_y"] * c["mu2"] / (2 * c["c_x"] * math.sqrt(c["c_y"] ** 2 + c["c_x"] ** 2))) ** 2
    )
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k != "curve_points"}  # noqa: E731 (points in cases)
    return Outcome(
        verdict=verdict,
        claimed={"mu_total": b.mu_total},
        measured={
            "mu_lower": res.mu_lower,
            "broken_control_mu_lower": ctrl.mu_lower,
            "broken_control_verdict": ctrl.verdict,
        },
        details={
            "audit": strip(res),
            "broken_control": strip(ctrl),
            "config": c,
            "cases": [
                _audit_case("SPriFed-OMP (Theorem 6's μ)", res),
                _audit_case("broken control: NoisySMPC shares with half the variance", ctrl),
            ],
            "budget": {"n1": b.n1, "n2": b.n2, "mu1": b.mu1, "mu2": b.mu2, "mu_total": b.mu_total},
            "true_mu_of_audited_transcript": eff,
            "output": "the whole SPriFed-OMP run (s = 1) per replicate, reduced to its transcript's "
            "log-likelihood-ratio statistic for D vs D' (post-processing)",
            "neighbours": "D' replaces client 0's vertex row (x = c_x·1, y = c_y) by (−c_x·1, c_y)",
            "claim_audited": "μ-GDP at Theorem 6's total μ (audit(mu=...)); mu_lower is the certified "
            "lower bound on the μ of the implementation",
            "control": "NoisySMPC shares summing to half the stated variance must be refuted; if not, "
            "a 'holds' is downgraded to inconclusive",
            "reconstruction": f"{RECON}: Alg. 1 calibration σ = Δ/μ with Lemma 4 sensitivities",
        },
        samples=samples,
    )
