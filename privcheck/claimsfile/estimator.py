"""``[[estimator]]`` entries: simulate an estimator and test its mean and variance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.entry import COMMON, Entry, TableKind

DEFAULT_REPLICATES = 20_000
KEYS: dict[str, Any] = {
    **COMMON,
    "estimator": str,
    "mechanism": str,
    "params": dict,
    "scenario": dict,
    "claimed_mean": float,
    "claimed_variance": float,
    "tolerance": float,
    "var_rel_tol": float,
    "replicates": int,
}


FREQUENCY_ESTIMATORS = ("c_de", "g_de", "c_hat", "T")
_SCENARIO_KEYS = {"output": ("x",), "frequency": ("n", "n_i", "pi", "eps", "m")}


@dataclass
class _Model:
    """What an entry simulates: the target, the exact moments (None if unknown), a ``() -> draw(rng, size)``
    factory, the estimator applied to the draws (None: the draws are the estimates), a label and the
    scenario's parameters for the record."""

    target: float
    exact_mean: float | None
    exact_var: float | None
    make_draw: Callable[[], Callable]
    fn: Callable | None
    label: str
    params: dict


@dataclass
class _Claimed:
    """The entry's claim and test settings: claimed mean and variance, tolerances, replicates."""

    mean: float
    variance: float | None
    tolerance: float | None
    var_rel_tol: float
    replicates: int


def _check_keys(ent: Entry, est: str, scen: dict) -> str:
    """Validate the estimator name and its scenario keys; the family (``output`` or ``frequency``)."""
    if est not in ("output",) + FREQUENCY_ESTIMATORS:
        ent.fail(f"unknown estimator {est!r}; allowed: output, {', '.join(FREQUENCY_ESTIMATORS)}")
    family = "output" if est == "output" else "frequency"
    for k in scen:
        if k not in _SCENARIO_KEYS[family]:
            ent.fail(f"unknown scenario key {k!r} for estimator {est!r}; allowed: {', '.join(_SCENARIO_KEYS[family])}")
    for k in _SCENARIO_KEYS[family]:
        if k not in scen:
            ent.fail(f"scenario needs {k!r} for estimator {est!r}")
        if isinstance(scen[k], bool) or not isinstance(scen[k], (int, float)):
            ent.fail(f"scenario.{k} must be a number, got {scen[k]!r}")
    if family == "output":
        if "mechanism" not in ent.values:
            ent.fail("estimator 'output' needs mechanism = NAME")
    else:
        for k in ("mechanism", "params"):
            if k in ent.values:
                ent.fail(f"{k} is only for estimator 'output' (frequency estimators use direct encoding)")
    return family


def _output_model(ent: Entry, scen: dict) -> _Model:
    """A registry mechanism's output at ``x`` as an estimator of ``x`` (scalar mechanisms only)."""
    import numpy as np

    from estimators.registry import mechanism

    name, params = ent.values["mechanism"], ent.values.get("params", {})
    mech = ent.guard(lambda: mechanism(name, **params))
    x = float(scen["x"])
    probe = ent.guard(lambda: np.asarray(mech.sample(x, 4, np.random.default_rng(0)), dtype=float))
    if probe.ndim > 1 and probe.shape[1] != 1:
        ent.fail(f"mechanism {name!r} has vector outputs; estimator 'output' needs a scalar mechanism")

    def make_draw():
        m = mechanism(name, **params)
        return lambda rng, size: np.asarray(m.sample(x, size, rng), dtype=float).reshape(size)

    return _Model(x, None, None, make_draw, None, f"{name} output at x={x:g}", {"mechanism": name, **params, "x": x})


def _frequency_model(ent: Entry, est: str, scen: dict) -> _Model:
    """A frequency estimator (Biswas et al.) of the count ``n_i`` under direct encoding, with its exact moments."""
    from estimators import frequency as fq
    from estimators.direct_encoding import de_probabilities
    from privcheck.base.validation import check_int

    n = ent.guard(lambda: check_int("scenario.n", scen["n"], minimum=1))
    n_i = ent.guard(lambda: check_int("scenario.n_i", scen["n_i"], minimum=0, maximum=n))
    m_dom = ent.guard(lambda: check_int("scenario.m", scen["m"], minimum=2))
    g = ent.guard(lambda: fq.uniform_groups(n, n_i, scen["pi"]))
    p, qq = ent.guard(lambda: de_probabilities(scen["eps"], m_dom))
    pi = float(scen["pi"])
    exact_mean, exact_var = fq.exact_moments(est, g, p, qq)

    def make_draw():
        return lambda rng, size: fq.draw_counts(g, p, qq, rng, size)

    fn = {
        "c_de": lambda o: fq.c_de(o[0], n, p, qq),
        "g_de": lambda o: fq.g_de(o[0], n, pi, p, qq),
        "c_hat": lambda o: fq.c_hat(o[0], o[1], pi, p, qq),
        "T": lambda o: fq.t_estimator(o[0], n, g.sum_pi, p, qq),
    }[est]
    sparams = {"n": n, "n_i": n_i, "pi": pi, "eps": float(scen["eps"]), "m": m_dom, "p": p, "q": qq}
    return _Model(float(n_i), exact_mean, exact_var, make_draw, fn, est, sparams)


def _estimator(ent: Entry, paper: str) -> tuple[Claim, Check]:
    from privcheck.base.validation import check_int, check_positive
    from privcheck.estimator_check import Scenario, check_replicates_memory

    v = ent.values
    est, scen = v["estimator"], v["scenario"]
    family = _check_keys(ent, est, scen)
    replicates = ent.guard(lambda: check_int("replicates", v.get("replicates", DEFAULT_REPLICATES), minimum=10))
    cv = (
        ent.guard(lambda: check_positive("claimed_variance", v["claimed_variance"]))
        if "claimed_variance" in v
        else None
    )
    tol = ent.guard(lambda: check_positive("tolerance", v["tolerance"])) if "tolerance" in v else None
    vrt = ent.guard(lambda: check_positive("var_rel_tol", v.get("var_rel_tol", 0.1)))
    model = _output_model(ent, scen) if family == "output" else _frequency_model(ent, est, scen)
    claimed = _Claimed(v.get("claimed_mean", model.target), cv, tol, vrt, replicates)
    ent.guard(
        lambda: Scenario(
            ent.id,
            model.make_draw(),
            model.target,
            claimed_mean=claimed.mean,
            claimed_variance=cv,
            tolerance=tol,
            var_rel_tol=vrt,
        )
    )
    ent.guard(lambda: check_replicates_memory(replicates, 1))  # scalar estimates: refuse at load, not in the run
    stmt = f"{model.label}: mean {claimed.mean:g}" + (f", variance {cv:g}" if cv is not None else "")

    def run(ctx: RunContext) -> Outcome:
        return _run(ent.id, model, claimed, ctx)

    return ent.claim(paper, "estimator", "mc", stmt), Check(ent.id, "mc", run, expect=ent.expect)


def _run(entry_id: str, model: _Model, claimed: _Claimed, ctx: RunContext) -> Outcome:
    """Simulate the estimator, test its mean (and variance when claimed) and fold the result into an Outcome."""
    from privcheck.estimator_check import Scenario, check_estimator, decide

    cm, cv = claimed.mean, claimed.variance
    sc = Scenario(
        entry_id,
        model.make_draw(),
        model.target,
        claimed_mean=cm,
        claimed_variance=cv,
        exact_mean=model.exact_mean,
        exact_variance=model.exact_var,
        tolerance=claimed.tolerance,
        var_rel_tol=claimed.var_rel_tol,
        params=model.params,
    )
    reps = ctx.n(claimed.replicates, quick=max(10, claimed.replicates // 5))
    fam = 1 + (cv is not None)
    res = check_estimator(
        model.fn, sc, reps, seed=ctx.seed_seq, confidence=ctx.confidence, family=fam, jobs=ctx.jobs, name=model.label
    )
    d = decide([res], ctx.confidence)
    c = res.components[0]
    return Outcome(
        d.verdict,
        claimed={"mean": cm} if cv is None else {"mean": cm, "variance": cv},
        measured={"mean": c.mean, "variance": c.variance},
        details={
            "scenarios": [res.record()],
            "reason": d.reason,
            "adjusted_p": d.adjusted,
            "interval": list(c.mean_interval),
            "variance_interval": list(c.variance_interval),
            "confidence": res.confidence,
            "nominal_confidence": ctx.confidence,
        },
        samples=reps,
    )


KIND = TableKind("estimator", KEYS, ("id", "estimator", "scenario"), _estimator)
