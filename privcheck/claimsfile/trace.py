"""``[[trace]]`` entries: a gray-box trace of user code on neighbouring inputs (:func:`privcheck.trace`)."""

from __future__ import annotations

import os
from typing import Any

from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.entry import COMMON, Entry, TableKind, seed_of

KEYS: dict[str, Any] = {
    **COMMON,
    "function": str,
    "pairs": list,
    "inputs": list,
    "neighbours": str,
    "sensitivity": float,
    "norm": str,
    "runs": int,
    "seed": int,
    "rng_type": str,
    "nonfinite": bool,
    "examples": int,
}
#: runs and search examples under --quick (at most)
QUICK_RUNS, QUICK_EXAMPLES = 3, 20


def _pairs(ent: Entry) -> list | None:
    pairs = ent.values.get("pairs")
    if pairs is None:
        return None
    for pr in pairs:
        if not isinstance(pr, list) or len(pr) != 2:
            ent.fail(f"pairs must be an array of two-element arrays [[a, b], ...], got {pr!r}")
    return [tuple(pr) for pr in pairs]


def _trace(ent: Entry, paper: str) -> tuple[Claim, Check]:
    from privcheck.auditor.user_code import call_user, load_reference
    from privcheck.tracing.core import trace
    from privcheck.tracing.coupling import Coupler
    from privcheck.tracing.plan import make_plan

    v = ent.values
    base = os.path.dirname(os.path.abspath(ent.path))
    ref = v["function"]
    fn = ent.guard(lambda: load_reference(ref, base, what="function"))
    strategy = None
    if "neighbours" in v:
        make = ent.guard(lambda: load_reference(v["neighbours"], base, what="strategy"))
        strategy = ent.guard(lambda: call_user(make, (), v["neighbours"], "building the neighbours strategy"))
    opts = dict(
        pairs=_pairs(ent),
        inputs=v.get("inputs"),
        neighbours=strategy,
        sensitivity=v.get("sensitivity"),
        norm=v.get("norm", "l2"),
        runs=v.get("runs", 10),
        nonfinite=v.get("nonfinite", True),
        examples=v.get("examples", 100),
    )
    ent.guard(lambda: make_plan(seed=v.get("seed", 0), **opts))
    rng_type = v.get("rng_type", "generator")
    ent.guard(lambda: Coupler(fn, rng_type))

    def run(ctx: RunContext) -> Outcome:
        kw = dict(opts)
        if ctx.quick:
            kw["runs"], kw["examples"] = min(kw["runs"], QUICK_RUNS), min(kw["examples"], QUICK_EXAMPLES)
        seed = v["seed"] if "seed" in v else seed_of(ctx)
        res = trace(fn, seed=seed, rng_type=rng_type, name=ref, **kw)
        return outcome(res)

    sens = v.get("sensitivity")
    stmt = (
        f"{ref} has {opts['norm']}-sensitivity <= {sens:g} on the given neighbours"
        if sens is not None
        else f"{ref}'s noise does not depend on the data"
    )
    run.user_code = ref  # type: ignore[attr-defined]  # named by the runner if the check dies or times out
    return ent.claim(paper, "privacy", "numeric", stmt), Check(ent.id, "numeric", run, expect=ent.expect)


def outcome(res) -> Outcome:
    """The claim-model outcome of a :class:`~privcheck.tracing.result.TraceResult` (every report format shows it)."""
    rec = res.to_dict()
    details = {
        k: rec[k] for k in ("summary", "reason", "findings", "worst_pair", "worst_run", "runs", "pairs", "calls")
    }
    details.update(coupling=res.coupling, function=res.function, divergences=rec["divergences"][:20])
    details.update({k: val for k, val in rec["details"].items() if k != "user_traceback"})
    if res.verdict == "error":
        details["error"] = res.reason
    claimed = {"sensitivity": res.sensitivity, "norm": res.norm} if res.sensitivity is not None else "invariance"
    measured = {"sensitivity_lower": res.sensitivity_lower, "findings": len(res.findings)}
    return Outcome(res.verdict, claimed=claimed, measured=measured, details=details)


KIND = TableKind("trace", KEYS, ("id", "function"), _trace)
