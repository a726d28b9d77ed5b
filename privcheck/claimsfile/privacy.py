"""``[[privacy]]`` entries: audit a built-in mechanism's ε, or a user's sampler (``sampler = "pkg.module:fn"``)."""

from __future__ import annotations

import math
import os
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
    "samples": int,
    "exact": bool,
    "monte_carlo": bool,
    "sampler": str,
    "inputs": list,
    "pairs": list,
    "per_sample": bool,
    "seed_global": bool,
    "view": str,
}


_USER_ONLY = ("sampler", "inputs", "pairs", "per_sample", "seed_global", "view")
_BUILTIN_ONLY = ("mechanism", "params", "exact")


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
    from privcheck.base.validation import check_eps, check_int, check_probability

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
    eps = ent.guard(lambda: check_eps(v["eps"])) if "eps" in v else mech.eps_nominal
    delta = ent.guard(lambda: check_probability("delta", v["delta"], open_high=True)) if "delta" in v else None
    samples = ent.guard(lambda: check_int("samples", v.get("samples", DEFAULT_SAMPLES), minimum=20))
    mc = v.get("monte_carlo", True)
    has_exact = mech.exact_epsilon() is not None
    exact = v.get("exact")
    if exact and not has_exact:
        ent.fail(f"mechanism {name!r} has no exact output distribution; set exact = false")
    use_exact = has_exact if exact is None else exact
    if not use_exact and not mc:
        ent.fail("nothing to run: exact = false and monte_carlo = false")
    method = "exact" if use_exact else "mc"
    ent.guard(lambda: _size_check(mech, samples, mc, distributed=ent.distributed))

    def run(ctx: RunContext) -> Outcome:
        n = ctx.n(samples, quick=max(20, samples // 5))
        m = mechanism(name, **params)
        res = audit(
            m,
            eps=eps,
            delta=delta,
            samples=n,
            seed=seed_of(ctx),
            confidence=ctx.confidence,
            exact=use_exact,
            monte_carlo=mc,
            jobs=ctx.jobs,
        )
        rec = res.to_dict()
        details = {
            k: rec[k]
            for k in (
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
        }
        details.update({k: val for k, val in rec["details"].items() if k != "candidates"})
        details.update(mechanism=name, params=params, confidence=ctx.confidence)
        if res.eps_lower is not None and not res.delta_claimed:
            details["interval"] = [res.eps_lower, math.inf]
        claimed: Any = (
            res.eps_claimed if not res.delta_claimed else {"eps": res.eps_claimed, "delta": res.delta_claimed}
        )
        measured: Any = res.eps_exact if res.eps_exact is not None else res.eps_lower
        if res.delta_claimed:
            measured = {"delta_exact": res.delta_exact, "delta_lower": res.delta_lower}
        return Outcome(res.verdict, claimed=claimed, measured=measured, details=details, samples=n if mc else None)

    stmt = f"{name}({', '.join(f'{k}={val}' for k, val in params.items())}) is ε={eps:g}-LDP"
    return ent.claim(paper, "privacy", method, stmt), Check(ent.id, method, run, expect=ent.expect)


def _privacy_user(ent: Entry, paper: str) -> tuple[Claim, Check]:
    """A ``[[privacy]]`` entry auditing user code (``sampler = "pkg.module:function"``)."""
    from privcheck.auditor import audit
    from privcheck.auditor.per_sample import per_sample
    from privcheck.auditor.target import resolve_pairs
    from privcheck.auditor.user_code import guard_user_code, load_reference, probe_sampler
    from privcheck.base.validation import check_eps, check_int, check_probability

    v = ent.values
    for k in _BUILTIN_ONLY:
        if k in v:
            ent.fail(f"{k} is for built-in mechanisms (mechanism = ...), not for user code")
    if "eps" not in v:
        ent.fail("missing required key 'eps' (the claimed ε) for user code")
    eps = ent.guard(lambda: check_eps(v["eps"]))
    delta = ent.guard(lambda: check_probability("delta", v.get("delta", 0.0), open_high=True))
    samples = ent.guard(lambda: check_int("samples", v.get("samples", DEFAULT_SAMPLES), minimum=20))
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
    ent.guard(lambda: _size_check(fn, samples, width=width, n_inputs=len(probes), distributed=ent.distributed))
    sampler = guard_user_code(sampler, ref)  # its failures in the check are reported naming ref

    def run(ctx: RunContext) -> Outcome:
        n = ctx.n(samples, quick=max(20, samples // 5))
        res = audit(
            sampler,
            inputs=inputs,
            eps=eps,
            delta=delta,
            samples=n,
            seed=seed_of(ctx),
            confidence=ctx.confidence,
            jobs=ctx.jobs,
            pairs=pairs,
            view=view,
        )
        rec = res.to_dict()
        details = {
            k: rec[k]
            for k in (
                "eps_lower",
                "eps_max_certifiable",
                "verdict_mc",
                "worst_pair",
                "event",
                "delta_lower",
                "reproducible",
            )
        }
        details.update({k: val for k, val in rec["details"].items() if k != "candidates"})
        details.update(sampler=ref, per_sample=bool(v.get("per_sample")), view=v.get("view"), confidence=ctx.confidence)
        if res.eps_lower is not None and not res.delta_claimed:
            details["interval"] = [res.eps_lower, math.inf]
        claimed: Any = eps if not delta else {"eps": eps, "delta": delta}
        measured: Any = res.eps_lower if not delta else {"delta_lower": res.delta_lower}
        return Outcome(res.verdict, claimed=claimed, measured=measured, details=details, samples=n)

    stmt = (
        f"{ref} is ε={eps:g}-DP"
        + (f" (δ={delta:g})" if delta else "")
        + (" on the given neighbouring pairs" if pairs else "")
    )
    run.user_code = ref  # named by the runner if the check's process dies or times out
    return ent.claim(paper, "privacy", "mc", stmt), Check(ent.id, "mc", run, expect=ent.expect)


KIND = TableKind("privacy", KEYS, ("id",), _privacy)
