"""``[[privacy]]`` entries: audit a built-in mechanism's ε, or a user's sampler (``sampler = "pkg.module:fn"``).

The claim is what ``privcheck audit`` takes: ``eps`` (and ``delta``), or ``mu`` (a μ-GDP claim), or
``accountant`` (the certified trade-off curve of composed PLD events, the ``--accountant`` syntax); ``family =
"gaussian"`` with ``eps`` and ``delta`` declares the mechanism Gaussian-additive and audits the μ the claim implies
(verdict conditional on that family, :mod:`privcheck.auditor.family`); the Monte Carlo size is ``samples`` (an integer, or ``"auto"`` / ``"auto:key=value,..."`` as ``--samples``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.entry import COMMON, Entry, TableKind, seed_of

DEFAULT_SAMPLES = 100_000
KEYS: dict[str, Any] = {
    **COMMON,
    "mechanism": str,
    "params": dict,
    "eps": float,
    "delta": float,
    "samples": (int, str),
    "mu": float,
    "accountant": (str, list),
    "exact": bool,
    "monte_carlo": bool,
    "sampler": str,
    "inputs": list,
    "pairs": list,
    "per_sample": bool,
    "seed_global": bool,
    "view": str,
    "family": str,
}


_USER_ONLY = ("sampler", "inputs", "pairs", "per_sample", "seed_global", "view")
_BUILTIN_ONLY = ("mechanism", "params", "exact")


@dataclass(frozen=True)
class ClaimSpec:
    """The claim and the size of one ``[[privacy]]`` entry, validated.

    eps/delta: the ε claim (eps None: the mechanism's nominal ε); mu: a μ-GDP claim; accountant: a composed
    :class:`~accountants.pld.PLDAccountant` (``specs`` its event specs); samples: draws per input (an integer
    ≥ 20) or an :class:`~privcheck.auditor.adaptive.Auto`; family: the declared family of an (ε, δ) claim
    (``"gaussian"``: its implied μ is audited), or None.
    """

    eps: float | None
    delta: float | None
    mu: float | None
    accountant: Any
    specs: tuple[str, ...]
    samples: Any
    family: str | None = None

    @property
    def curve(self) -> bool:
        """A μ-GDP or accountant claim (audited as a trade-off curve)."""
        return self.mu is not None or self.accountant is not None

    def kwargs(self) -> dict:
        """The claim as :func:`privcheck.auditor.audit` keyword arguments."""
        out: dict[str, Any] = {"eps": self.eps, "delta": self.delta}
        if self.mu is not None:
            out["mu"] = self.mu
        if self.accountant is not None:
            out["accountant"] = self.accountant
        if self.family is not None:
            out["family"] = self.family
        return out

    def draws(self, ctx: RunContext) -> Any:
        """The size this run uses: ``--samples N`` overrides; ``--quick`` divides an integer (or an
        ``"auto"`` budget) by 5."""
        from dataclasses import replace

        from privcheck.auditor.adaptive import MIN_ROUND, Auto

        if ctx.samples is not None:
            return int(ctx.samples)
        if isinstance(self.samples, Auto):
            return (
                replace(self.samples, max_draws=max(MIN_ROUND, self.samples.max_draws // 5))
                if ctx.quick
                else self.samples
            )
        return ctx.n(self.samples, quick=max(20, self.samples // 5))

    def statement(self, who: str, eps: float | None = None) -> str:
        """The claim in words (``eps``: the claimed ε when the entry takes a mechanism's nominal one)."""
        if self.family is not None:
            e = self.eps if self.eps is not None else eps
            return (
                f"{who} is (ε={e:g}, δ={self.delta:g})-DP, declared {self.family}-additive (audited as implied μ-GDP)"
            )
        if self.mu is not None:
            return f"{who} is μ={self.mu:g}-GDP"
        if self.accountant is not None:
            return f"{who} is private as the accountant of {' + '.join(self.specs)} says"
        return ""


def _claim_spec(ent: Entry, user_code: bool) -> ClaimSpec:
    """Validate the claim keys (eps, delta, mu, accountant, samples) of an entry; one line naming the problem."""
    from privcheck.auditor.adaptive import Auto, parse_samples
    from privcheck.base.validation import check_eps, check_probability

    v = ent.values
    given = [k for k in ("eps", "mu", "accountant") if k in v]
    if len(given) > 1:
        ent.fail(f"give one claim: eps, mu or accountant, not {' and '.join(given)}")
    if user_code and not given:
        ent.fail("missing required key 'eps' (the claimed ε; or mu, or accountant) for user code")
    eps = ent.guard(lambda: check_eps(v["eps"])) if "eps" in v else None
    delta = ent.guard(lambda: check_probability("delta", v["delta"], open_high=True)) if "delta" in v else None
    mu = None
    if "mu" in v:
        mu = v["mu"]
        if not mu > 0:
            ent.fail(f"mu must be a number > 0 (the claimed μ of μ-GDP), got {mu!r}")
    acc, specs = None, ()
    if "accountant" in v:
        raw = v["accountant"]
        specs = tuple([raw] if isinstance(raw, str) else raw)
        if not specs or not all(isinstance(x, str) for x in specs):
            ent.fail(
                "accountant must be a PLD event 'KIND:NAME=VALUE,...[xCOUNT]' or an array of them "
                f"(composed), got {raw!r}"
            )
        acc = ent.guard(lambda: _accountant(specs))
    raw_samples = v.get("samples", DEFAULT_SAMPLES)
    if isinstance(raw_samples, str) and not raw_samples.strip().lower().startswith("auto"):
        ent.fail(f'samples must be an integer >= 20 or "auto" / "auto:key=value,...", got {raw_samples!r}')
    samples = ent.guard(lambda: parse_samples(raw_samples))
    if isinstance(samples, Auto) and (acc is not None or (mu is not None and samples.policy != "sequential")):
        ent.fail(
            'samples = "auto" is for ε, (ε, δ) and mu claims (sequential policy); an accountant claim '
            "(or a mu claim with policy=rounds) takes a number of samples"
        )
    family = _family(ent, mu is not None or acc is not None, samples)
    return ClaimSpec(eps, delta, mu, acc, specs, samples, family)


def _family(ent: Entry, curve: bool, samples: Any) -> str | None:
    """The declared ``family`` of an entry's (ε, δ) claim, validated (None when not given)."""
    from privcheck.auditor.adaptive import Auto
    from privcheck.auditor.family import check_family

    if "family" not in ent.values:
        return None
    family = ent.guard(lambda: check_family(ent.values["family"]))
    if curve:
        ent.fail("family declares the family of an (eps, delta) claim; it takes no mu or accountant")
    if not ent.values.get("delta"):
        ent.fail(f'family = "{family}" audits the mu an (eps, delta) claim implies: give delta > 0')
    if isinstance(samples, Auto) or not ent.values.get("monte_carlo", True) or ent.values.get("exact"):
        ent.fail(f'family = "{family}" is audited from a number of samples (no "auto", exact or monte_carlo = false)')
    return family


def _accountant(specs: tuple[str, ...]) -> Any:
    """The composed PLD accountant of ``specs`` (the CLI's ``--accountant`` parser; errors name ``accountant``)."""
    from accountants.pld_spec import pld_accountant

    return pld_accountant(specs, option="accountant")[0]


def _planned(spec: ClaimSpec) -> int:
    """The most draws per input the entry may take (an ``"auto"`` budget's maximum)."""
    from privcheck.auditor.adaptive import planned_draws

    return planned_draws(spec.samples, DEFAULT_SAMPLES)


def _measured(res: Any, exact: bool = True) -> tuple[Any, Any, dict]:
    """(claimed, measured, extra details) of an audit result: ε, (ε, δ), μ-GDP or accountant claims."""
    family = res.details.get("family")
    if family is not None:  # an (ε, δ) claim audited as the μ its declared family implies
        claimed = {"eps": family["eps"], "delta": family["delta"], "family": family["family"]}
        measured = {"mu_implied": family["mu_implied"], "mu_lower": res.mu_lower}
        return claimed, measured, {"interval": [res.mu_lower, math.inf]} if res.mu_lower is not None else {}
    if res.mu_claimed is not None:
        measured: dict = {"mu_lower": res.mu_lower}
        if res.eps_lower_at_delta is not None:
            measured["eps_lower_at_delta"] = res.eps_lower_at_delta
        extra = {"interval": [res.mu_lower, math.inf]} if res.mu_lower is not None else {}
        return {"mu": res.mu_claimed}, measured, extra
    if res.accountant is not None:  # the curve points whose boxes lie below the accountant's certified curve
        below = res.details.get("curve_refuting_points") or []
        measured = {"points_below_curve": len(below), "mu_lower": res.mu_lower}
        if res.eps_lower_at_delta is not None:
            measured["eps_lower_at_delta"] = res.eps_lower_at_delta
        return {"accountant": res.accountant}, measured, {}
    extra = {"interval": [res.eps_lower, math.inf]} if res.eps_lower is not None and not res.delta_claimed else {}
    if res.delta_claimed:
        claimed = {"eps": res.eps_claimed, "delta": res.delta_claimed}
        measured = {"delta_exact": res.delta_exact} if exact else {}
        return claimed, measured | {"delta_lower": res.delta_lower}, extra
    return res.eps_claimed, (res.eps_exact if res.eps_exact is not None else res.eps_lower), extra


_RESULT_KEYS = (
    "eps_exact",
    "eps_exact_text",
    "eps_lower",
    "eps_max_certifiable",
    "verdict_exact",
    "verdict_mc",
    "worst_pair",
    "event",
    "delta_exact",
    "delta_lower",
    "reproducible",
)
#: reported when set: the curve claims' fields and the audit's reason
_RESULT_KEYS_SET = ("mu_claimed", "mu_lower", "eps_lower_at_delta", "accountant", "reason")


def _size_check(
    mech: Any,
    samples: int,
    monte_carlo: bool = True,
    width: int | None = None,
    n_inputs: int | None = None,
    distributed: bool = False,
) -> None:
    """Refuse at load (one line) an entry whose audit cannot be sampled or cannot fit the memory limit.

    mech: the built-in mechanism (or a stand-in with ``output_kind``/``params``); samples: the entry's
    draws per input; width: values per output when a probe showed it; n_inputs: the audited inputs
    when known; distributed: sampled on Dask (:func:`~privcheck.base.resources.check_samples`). The limit is
    the run's (``--max-memory`` / ``PRIVCHECK_MAX_MEMORY`` / default).
    """
    from privcheck.auditor.sizing import check_audit_request
    from privcheck.base.resources import check_samples

    if monte_carlo:
        check_samples(samples, "samples", distributed=distributed)
    check_audit_request(mech, samples, monte_carlo=monte_carlo, width=width, n_inputs=n_inputs, distributed=distributed)


def _privacy(ent: Entry, paper: str) -> tuple[Claim, Check]:
    from estimators.registry import mechanism
    from privcheck.auditor import audit

    v = ent.values
    if ("mechanism" in v) == ("sampler" in v):
        ent.fail('give exactly one of mechanism = NAME (built-in) or sampler = "pkg.module:function" (user code)')
    if "sampler" in v:
        return _privacy_user(ent, paper)
    for k in _USER_ONLY:
        if k in v:
            ent.fail(f"{k} is for user code (sampler = ...), not for a built-in mechanism")
    name, params = v["mechanism"], v.get("params", {})
    mech = ent.guard(lambda: mechanism(name, **params))
    spec = _claim_spec(ent, user_code=False)
    eps = spec.eps if spec.eps is not None else mech.eps_nominal
    mc = v.get("monte_carlo", True)
    has_exact = mech.exact_epsilon() is not None
    exact = v.get("exact")
    if spec.curve and exact:
        ent.fail("exact = true is for ε claims; a mu or accountant claim is audited by Monte Carlo")
    if spec.curve and not mc:
        ent.fail("monte_carlo = false leaves nothing to run for a mu or accountant claim")
    if exact and not has_exact:
        ent.fail(f"mechanism {name!r} has no exact output distribution; set exact = false")
    use_exact = False if spec.curve or spec.family else (has_exact if exact is None else exact)
    if not use_exact and not mc:
        ent.fail("nothing to run: exact = false and monte_carlo = false")
    method = "exact" if use_exact else "mc"
    ent.guard(lambda: _size_check(mech, _planned(spec), mc, distributed=ent.distributed))

    def run(ctx: RunContext) -> Outcome:
        n = spec.draws(ctx)
        m = mechanism(name, **params)
        kw = spec.kwargs()
        if not spec.curve:
            kw["eps"], kw["exact"] = eps, use_exact
        res = audit(m, samples=n, seed=seed_of(ctx), confidence=ctx.confidence, monte_carlo=mc, jobs=ctx.jobs, **kw)
        return _outcome(res, ctx, {"mechanism": name, "params": params}, mc)

    who = f"{name}({', '.join(f'{k}={val}' for k, val in params.items())})"
    stmt = spec.statement(who, eps) or f"{who} is ε={eps:g}-LDP"
    return ent.claim(paper, "privacy", method, stmt), Check(ent.id, method, run, expect=ent.expect)


def _outcome(res: Any, ctx: RunContext, about: dict, mc: bool = True, exact_keys: bool = True) -> Outcome:
    """The check's outcome from an audit result: claimed and measured in the claim's units, the details."""
    rec = res.to_dict()
    keys = _RESULT_KEYS if exact_keys else tuple(k for k in _RESULT_KEYS if "exact" not in k)
    details = {k: rec[k] for k in keys} | {k: rec[k] for k in _RESULT_KEYS_SET if rec.get(k) is not None}
    details.update({k: val for k, val in rec["details"].items() if k != "candidates"})
    details.update(about, confidence=ctx.confidence)
    claimed, measured, extra = _measured(res, exact_keys)
    details.update(extra)
    return Outcome(
        res.verdict, claimed=claimed, measured=measured, details=details, samples=res.samples if mc else None
    )


def _privacy_user(ent: Entry, paper: str) -> tuple[Claim, Check]:
    """A ``[[privacy]]`` entry auditing user code (``sampler = "pkg.module:function"``)."""
    from privcheck.auditor import audit
    from privcheck.auditor.per_sample import per_sample
    from privcheck.auditor.target import resolve_pairs
    from privcheck.auditor.user_code import guard_user_code, load_reference, probe_sampler

    v = ent.values
    for k in _BUILTIN_ONLY:
        if k in v:
            ent.fail(f"{k} is for built-in mechanisms (mechanism = ...), not for user code")
    spec = _claim_spec(ent, user_code=True)
    if not v.get("monte_carlo", True):
        ent.fail("monte_carlo = false leaves nothing to run for user code")
    inputs = v.get("inputs")
    pairs = v.get("pairs")
    if pairs is not None:
        for pr in pairs:
            if not isinstance(pr, list) or len(pr) != 2:
                ent.fail(f"pairs must be an array of two-element arrays [[a, b], ...], got {pr!r}")
        pairs = [tuple(pr) for pr in pairs]
    if inputs is None and not pairs:
        ent.fail("user code needs inputs = [x0, x1, ...] (at least two) or pairs = [[a, b], ...]")
    if inputs is not None and len(inputs) < 2:
        ent.fail(f"inputs needs at least two candidate inputs, got {inputs!r}")
    if inputs is not None and pairs:
        ent.guard(lambda: resolve_pairs(list(inputs), pairs, None))
    if v.get("seed_global") and not v.get("per_sample"):
        ent.fail("seed_global = true needs per_sample = true")
    base = os.path.dirname(os.path.abspath(ent.path))
    ref = v["sampler"]
    fn = ent.guard(lambda: load_reference(ref, base))
    view = ent.guard(lambda: load_reference(v["view"], base, what="view")) if "view" in v else None
    sampler = per_sample(fn, seed_global=v.get("seed_global", False)) if v.get("per_sample") else fn
    probes = list(inputs) if inputs is not None else [x for pr in pairs for x in pr]
    width = ent.guard(lambda: probe_sampler(sampler, probes, ref, view, bool(v.get("per_sample"))))
    ent.guard(lambda: _size_check(fn, _planned(spec), width=width, n_inputs=len(probes), distributed=ent.distributed))
    sampler = guard_user_code(sampler, ref)  # its failures in the check are reported naming ref

    def run(ctx: RunContext) -> Outcome:
        kw = spec.kwargs()
        if not spec.curve and kw["delta"] is None:
            kw["delta"] = 0.0
        res = audit(
            sampler,
            inputs=inputs,
            samples=spec.draws(ctx),
            seed=seed_of(ctx),
            confidence=ctx.confidence,
            jobs=ctx.jobs,
            pairs=pairs,
            view=view,
            **kw,
        )
        about = {"sampler": ref, "per_sample": bool(v.get("per_sample")), "view": v.get("view")}
        return _outcome(res, ctx, about, exact_keys=False)

    eps, delta = spec.eps, spec.delta
    stmt = (spec.statement(ref) or f"{ref} is ε={eps:g}-DP" + (f" (δ={delta:g})" if delta else "")) + (
        " on the given neighbouring pairs" if pairs else ""
    )
    run.user_code = ref  # named by the runner if the check's process dies or times out
    return ent.claim(paper, "privacy", "mc", stmt), Check(ent.id, "mc", run, expect=ent.expect)


KIND = TableKind("privacy", KEYS, ("id",), _privacy)
