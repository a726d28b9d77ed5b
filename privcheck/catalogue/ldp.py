"""LDP claims of the catalogue: exact ε and Monte Carlo lower bounds (``*.ldp``, ``gdp.gaussian``).

Each claim is checked on a small set of parameter *cases* taken from the
papers' settings. The ``exact`` check computes every case's exact ε from the
mechanism's output distribution; the ``mc`` check audits every case black-box
from its sampler, with the family-wise confidence ``ctx.confidence`` split
over the cases (Bonferroni). A claim is ``refuted`` when any case refutes it.
"""

from __future__ import annotations

from typing import Callable

from estimators.registry import mechanism
from privcheck.auditor import audit, exact_verdict
from privcheck.claims import Outcome, RunContext, check

Case = tuple[str, Callable[[], object]]


def _case(label: str, name: str, **params) -> Case:
    return label, lambda: mechanism(name, **params)


def _exact_outcome(cases: list[Case]) -> Outcome:
    """Exact ε of every case against its nominal ε: of the documented law (re-derived from the nominal ε) and,
    where the mechanism has it, of the law its sampler draws from (:meth:`~estimators.base.Mechanism.sampler_exact_epsilon`:
    the probabilities the sampler holds, read exactly), so a sampler drawing with a wrong probability is refuted
    here too. A case is refuted when either exceeds the claim; measured is the larger of the two."""
    measured, claimed, rows = {}, {}, []
    verdicts = []
    for label, build in cases:
        mech = build()
        ex = mech.exact_epsilon()
        sx = mech.sampler_exact_epsilon()
        v = exact_verdict(ex.eps, mech.eps_nominal)
        v_sampler = exact_verdict(sx.eps, mech.eps_nominal) if sx is not None else None
        verdicts.append("refuted" if "refuted" in (v, v_sampler) else v)
        measured[label] = max(ex.eps, sx.eps) if sx is not None else ex.eps
        claimed[label] = mech.eps_nominal
        row = {
            "case": label,
            "eps_claimed": mech.eps_nominal,
            "eps_exact": ex.eps_text,
            "verdict": verdicts[-1],
            "worst_pair": _short(ex.worst_pair),
            "worst_output": _short(ex.worst_output),
            "method": ex.method,
            "note": ex.note,
        }
        if sx is not None:
            row.update(
                eps_sampler=sx.eps_text,
                verdict_documented_law=v,
                verdict_sampler=v_sampler,
                sampler_note=sx.note,
            )
            if v_sampler == "refuted":
                row.update(sampler_worst_pair=_short(sx.worst_pair), sampler_worst_output=_short(sx.worst_output))
        rows.append(row)
    verdict = "refuted" if "refuted" in verdicts else "holds"
    covered = sum("eps_sampler" in r for r in rows)
    coverage = (
        f"{covered} of {len(rows)} cases also from the sampler's own probabilities"
        if covered
        else "the documented law only (the sampler holds no probabilities apart from it)"
    )
    return Outcome(verdict, claimed=claimed, measured=measured, details={"cases": rows, "coverage": coverage})


def _mc_outcome(ctx: RunContext, cases: list[Case], default: int, quick: int) -> Outcome:
    """Monte Carlo audit of every case; family-wise confidence ``ctx.confidence`` (Bonferroni)."""
    n = ctx.n(default, quick)
    per_case_conf = 1.0 - (1.0 - ctx.confidence) / len(cases)
    measured, claimed, rows, verdicts = {}, {}, [], []
    draws = 0
    for i, (label, build) in enumerate(cases):
        mech = build()
        draws += n * len(mech.inputs())
        res = audit(
            mech,
            samples=n,
            seed=int(ctx.seed_seq.generate_state(1)[0]) + i,
            confidence=per_case_conf,
            exact=False,
            jobs=ctx.jobs,
        )
        verdicts.append(res.verdict_mc)
        key = "delta_lower" if res.delta_claimed else "eps_lower"
        measured[label] = res.delta_lower if res.delta_claimed else res.eps_lower
        claimed[label] = res.delta_claimed if res.delta_claimed else res.eps_claimed
        rows.append(
            {
                "case": label,
                "eps_claimed": res.eps_claimed,
                "delta_claimed": res.delta_claimed,
                key: measured[label],
                "eps_lower": res.eps_lower,
                "eps_max_certifiable": res.eps_max_certifiable,
                "delta_max_certifiable": res.details.get("delta_max_certifiable"),
                "delta_detectable": res.details.get("delta_detectable"),
                "verdict": res.verdict_mc,
                "worst_pair": _short(res.worst_pair),
                "event": res.event,
                "confidence": per_case_conf,
                "samples_per_input": n,
            }
        )
    if "refuted" in verdicts:
        verdict = "refuted"
    elif all(v == "holds" for v in verdicts):
        verdict = "holds"
    else:
        verdict = "inconclusive"
    return Outcome(
        verdict,
        claimed=claimed,
        measured=measured,
        details={
            "cases": rows,
            "confidence": ctx.confidence,
            "note": "Monte Carlo can refute a privacy claim, never prove it: "
            "'holds' means no violation detected at this power",
        },
        samples=draws,
    )


def _short(v, width: int = 120):
    text = str(v.tolist() if hasattr(v, "tolist") else v)
    return text if len(text) <= width else text[: width - 1] + "…"


def _register(
    claim_id: str,
    exact_cases: list[Case] | None,
    mc_cases: list[Case] | None,
    default: int = 1_000_000,
    quick: int = 200_000,
    mc_part: str = "",
) -> None:
    if exact_cases:
        check(claim_id, "exact")(lambda ctx, c=exact_cases: _exact_outcome(c))
    if mc_cases:
        check(claim_id, "mc", part=mc_part)(lambda ctx, c=mc_cases: _mc_outcome(ctx, c, default, quick))


# --- 003: direct encoding ----------------------------------------------------------------------
_register(
    "biswas.de.ldp",
    [_case(f"m={m}, eps={e}", "de", m=m, eps=e) for m in (2, 10, 100) for e in (0.5, 1.0, 4.0)],
    [_case("m=2, eps=1", "de", m=2, eps=1.0), _case("m=10, eps=2", "de", m=10, eps=2.0)],
)

# --- 000: FedSel selectors (Alg. 2-4) ------------------------------------------------------------
_SELECTOR_EXACT = [(5, 2, 1.0), (20, 5, 0.5), (100, 10, 2.0), (100_000, 100, 1.0)]
_SELECTOR_MC = [(5, 2, 1.0), (5, 2, 2.0)]
for _name, _id in (("fedsel-exp", "fedsel.exp.ldp"), ("fedsel-pe", "fedsel.pe.ldp"), ("fedsel-ps", "fedsel.ps.ldp")):
    _register(
        _id,
        [_case(f"d={d}, k={k}, eps1={e}", _name, d=d, k=k, eps=e) for d, k, e in _SELECTOR_EXACT],
        [_case(f"d={d}, k={k}, eps1={e}", _name, d=d, k=k, eps=e) for d, k, e in _SELECTOR_MC],
    )

# --- FedSel value perturbation and its references: PM, Duchi, HM, multi-dimensional PM ---------
_register(
    "fedsel.pm.ldp",
    [_case(f"eps={e}", "pm", eps=e) for e in (0.5, 1.0, 2.0, 4.0)],
    [_case(f"eps={e}", "pm", eps=e) for e in (1.0, 2.0)],
)
_register(
    "fedsel.duchi.ldp",
    [_case(f"eps={e}", "duchi", eps=e) for e in (0.5, 1.0, 2.0, 4.0)],
    [_case(f"eps={e}", "duchi", eps=e) for e in (1.0, 2.0)],
    mc_part="ldp",
)
_register(
    "fedsel.hm.ldp",
    [_case(f"eps={e}", "hm", eps=e) for e in (0.3, 0.61, 0.62, 1.0, 2.0, 4.0)],
    [_case(f"eps={e}", "hm", eps=e) for e in (0.5, 2.0)],
    mc_part="ldp",
)
_register(
    "fedsel.pm_multidim.unbiased",
    None,
    [_case("d=4, eps=1", "pm-multidim", d=4, eps=1.0), _case("d=4, eps=5", "pm-multidim", d=4, eps=5.0)],
    default=500_000,
    quick=100_000,
    mc_part="ldp",
)

# --- FedSel two-stage update (Thm 1): each selector followed by PM --------------------------------
_register(
    "fedsel.two_stage.ldp",
    [
        _case(f"{s}, d={d}, k={k}, eps1={e1}, eps2={e2}", "fedsel-two-stage", selector=s, d=d, k=k, eps1=e1, eps2=e2)
        for s in ("exp", "pe", "ps")
        for d, k, e1, e2 in ((5, 2, 1.0, 1.0), (100, 10, 2.0, 0.5))
    ],
    [
        _case(f"{s}, d=5, k=2, eps1=1, eps2=1", "fedsel-two-stage", selector=s, d=5, k=2, eps1=1.0, eps2=1.0)
        for s in ("exp", "pe", "ps")
    ],
    default=500_000,
    quick=100_000,
)


# --- sqSGD PrivQuant (Thm 1, eq. 8) -------------------------------------------------------------
_PRIVQUANT_EXACT = [
    dict(d=4, K=2, kappa=1, p=0.6),
    dict(d=10, K=4, kappa=3, p=0.7),
    dict(d=100, K=16, kappa=10, p=0.6),
    dict(d=1000, K=16, kappa=100, p=0.55),
]
_PRIVQUANT_MC = [dict(d=3, K=2, kappa=1, p=0.75), dict(d=4, K=2, kappa=2, p=0.7)]


def _pq_label(p: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in p.items())


@check("sqsgd.privquant.ldp", "exact")
def _privquant_exact(ctx: RunContext) -> Outcome:
    """Exact ε of PrivQuant vs log of the left side of eq. 8 (claimed: equal, hence ε-LDP when (8) holds)."""
    rows, claimed, measured, verdicts = [], {}, {}, []
    for params in _PRIVQUANT_EXACT:
        mech = mechanism("privquant", **params)
        ex = mech.exact_epsilon()
        lhs = float(mech.log_lhs)
        label = _pq_label(params)
        claimed[label], measured[label] = lhs, ex.eps
        privacy = exact_verdict(ex.eps, lhs)
        equal = abs(ex.eps - lhs) <= 1e-9 * max(1.0, abs(lhs))
        verdicts.append("holds" if privacy == "holds" and equal else "refuted")
        rows.append(
            {
                "case": label,
                "log_lhs_eq8": lhs,
                "eps_exact": ex.eps_text,
                "privacy": privacy,
                "equals_lhs": equal,
                "worst_pair": _short(ex.worst_pair),
                "worst_output": _short(ex.worst_output),
            }
        )
    return Outcome(
        "refuted" if "refuted" in verdicts else "holds",
        claimed=claimed,
        measured=measured,
        details={"cases": rows, "tolerance": "relative 1e-9 for equality with log LHS(8)"},
    )


check("sqsgd.privquant.ldp", "mc")(
    lambda ctx: _mc_outcome(
        ctx, [(_pq_label(p), lambda p=p: mechanism("privquant", **p)) for p in _PRIVQUANT_MC], 200_000, 50_000
    )
)


# --- 002: the Gaussian mechanism is mu-GDP (Lemma 1): delta lower bounds at fixed eps ----------
@check("gdp.gaussian", "mc")
def _gaussian_mc(ctx: RunContext) -> Outcome:
    """Monte Carlo δ(ε) lower bounds of N(0,σ²) vs N(Δ,σ²), σ = Δ/μ, against the μ-GDP curve."""
    from accountants.gdp import gdp_delta

    cases = []
    for mu in (0.5, 1.0, 2.0):
        for e in (0.5, 1.0):
            cases.append(
                (
                    f"mu={mu}, eps={e}",
                    lambda mu=mu, e=e: mechanism(
                        "gaussian", sensitivity=1.0, sigma=1.0 / mu, eps=e, delta=gdp_delta(mu, e)
                    ),
                )
            )
    return _mc_outcome(ctx, cases, 400_000, 100_000)
