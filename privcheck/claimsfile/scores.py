"""``[[scores]]`` entries: certified bounds from canary score files (:func:`privcheck.canaries.audit_scores`)."""

from __future__ import annotations

import os
from typing import Any

from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.entry import COMMON, Entry, TableKind

KEYS: dict[str, Any] = {
    **COMMON,
    "scores_in": str,
    "scores_out": str,
    "method": str,
    "eps": float,
    "delta": float,
    "mu": float,
    "confidence": float,
    "thresholds": str,
    "sides": str,
}


def _scores(ent: Entry, paper: str) -> tuple[Claim, Check]:
    from privcheck.canaries.audit import audit_scores
    from privcheck.canaries.files import read_scores

    v = ent.values
    base = os.path.dirname(os.path.abspath(ent.path))
    paths = {k: v[k] if os.path.isabs(v[k]) else os.path.join(base, v[k]) for k in ("scores_in", "scores_out")}
    s_in, s_out = (ent.guard(lambda p=p: read_scores(p)) for p in paths.values())
    if "eps" not in v and "mu" not in v:
        ent.fail("give a claim: eps (with delta) or mu")
    kwargs = dict(
        method=v.get("method", "auto"),
        eps=v.get("eps"),
        delta=v.get("delta", 0.0),
        mu=v.get("mu"),
        confidence=v.get("confidence", 0.95),
        thresholds=v.get("thresholds", "bonferroni"),
        sides=v.get("sides", "both"),
    )
    thr = kwargs["thresholds"]
    try:
        kwargs["thresholds"] = float(thr)
    except ValueError:
        pass
    from privcheck.canaries.rules import parse_sides, parse_thresholds

    ent.guard(lambda: (parse_thresholds(kwargs["thresholds"]), parse_sides(kwargs["sides"])))
    if kwargs["method"] not in ("auto", "cp", "gdp", "one-run", "one-run-fdp"):
        ent.fail(f"method must be auto, cp, gdp, one-run or one-run-fdp, got {kwargs['method']!r}")

    def run(ctx: RunContext) -> Outcome:
        res = audit_scores(s_in, s_out, **kwargs)
        d = res.to_dict()
        return Outcome(
            res.verdict or "inconclusive",
            claimed=res.claim,
            measured={"eps_lower": res.eps_lower, "mu_lower": res.mu_lower, "eps_if_gdp": res.eps_if_gdp},
            details={k: d[k] for k in ("method", "source", "power", "rule", "chosen", "reason", "notes")},
            samples=res.n_in + res.n_out,
        )

    claim = (
        f"eps {kwargs['eps']:g} at delta {kwargs['delta']:g}" if kwargs["eps"] is not None else f"mu {kwargs['mu']:g}"
    )
    stmt = f"the canary scores {v['scores_in']} (in) / {v['scores_out']} (out) do not refute {claim}"
    return ent.claim(paper, "privacy", "numeric", stmt), Check(ent.id, "numeric", run, expect=ent.expect)


KIND = TableKind("scores", KEYS, ("id", "scores_in", "scores_out"), _scores)
