"""``[[accountant]] query = "pld"``: several claims about one composition checked against the certified
PLD accountant, all from one build of it (issue 29 §4, issue 33 §2).

Keys (besides ``id``, ``expect``, ``source``, ``statement``)::

    events = ["subsampled-gaussian:sigma=0.8,q=0.001x10000"]   # --event specs (accountants.pld_spec)
    neighbouring = "add_remove"        # or "replace_one"
    delta = 1e-5, eps_bound = 0.8      # claim ε(δ) <= eps_bound
    eps = 1.0,  delta_bound = 1e-4     # claim δ(ε) <= delta_bound
    mu_bound = 0.5, alpha_min = 1e-10  # claim μ <= mu_bound (μ-GDP description, range cut alpha_min)
    alpha = 0.01, beta_bound = 0.98    # claim β(α) >= beta_bound (the trade-off curve stays above)
    fpr = 0.01, tpr_bound = 0.02       # claim the best attack's TPR at that FPR <= tpr_bound

Each claim is decided by the certified interval of its quantity: ``holds`` when the interval lies on
the claimed side of the bound, ``refuted`` when it lies on the other side, else ``inconclusive`` (the
bound falls inside the interval). The entry's verdict: refuted if any claim is, holds if all hold,
else inconclusive; a vacuous μ-GDP range is inconclusive, never holds.
"""

from __future__ import annotations

from privcheck.claims import Check, Claim, Outcome, RunContext

__all__ = ["PLD_KEYS", "build_pld"]

#: (query key, its bound key, the quantity, direction of the claim: "<=" or ">=")
CLAIMS = (
    ("delta", "eps_bound", "eps(delta)", "<="),
    ("eps", "delta_bound", "delta(eps)", "<="),
    ("alpha_min", "mu_bound", "mu", "<="),
    ("alpha", "beta_bound", "beta(alpha)", ">="),
    ("fpr", "tpr_bound", "TPR(fpr)", "<="),
)
PLD_KEYS = {"events": list, "neighbouring": str} | {k: float for pair in CLAIMS for k in pair[:2]}
_POINT_REQUIRED = {"eps_bound": "delta", "delta_bound": "eps", "beta_bound": "alpha", "tpr_bound": "fpr"}


def _decide(lo: float, up: float, bound: float, direction: str) -> str:
    if direction == "<=":
        return "holds" if up <= bound else ("refuted" if lo > bound else "inconclusive")
    return "holds" if lo >= bound else ("refuted" if up < bound else "inconclusive")


def _check_entry(ent) -> tuple[list[str], str, list[tuple[str, str, str, str]]]:
    """Validate a ``query = "pld"`` entry (one-line errors at load time); returns (events, neighbouring,
    the asked claims as rows of :data:`CLAIMS`)."""
    v = ent.values
    for key in ("params", "bound", "relation", "rel_tol", "output"):
        if key in v:
            ent.fail(
                f"query 'pld' takes no {key!r}; give the claims as eps_bound, delta_bound, mu_bound, beta_bound, tpr_bound"
            )
    events = v.get("events")
    if not events or not all(isinstance(e, str) for e in events):
        ent.fail("query 'pld' needs events = [\"KIND:NAME=VALUE,...[xCOUNT]\", ...]")
    relation = v.get("neighbouring", "add_remove")
    if relation not in ("add_remove", "replace_one"):
        ent.fail(f"neighbouring must be 'add_remove' or 'replace_one', got {relation!r}")
    for bkey, qkey in _POINT_REQUIRED.items():
        if bkey in v and qkey not in v:
            ent.fail(f"{bkey} needs {qkey} (the point where the quantity is claimed)")
        if qkey in v and bkey not in v:
            ent.fail(f"{qkey} is given without {bkey} (the claimed bound)")
    asked = [c for c in CLAIMS if c[1] in v]
    if not asked:
        ent.fail("query 'pld' needs at least one of eps_bound, delta_bound, mu_bound, beta_bound, tpr_bound")
    _check_points(ent)
    return events, relation, asked


def _check_points(ent) -> None:
    """The points where quantities are claimed lie in their domains: δ ∈ (0, 1), alpha_min ∈ (0, 0.5),
    α and FPR ∈ [0, 1], ε >= 0."""
    v = ent.values
    for key, lo, hi, what in (
        ("delta", 0.0, 1.0, "in (0, 1)"),
        ("alpha_min", 0.0, 0.5, "in (0, 0.5)"),
    ):
        if key in v and not lo < v[key] < hi:
            ent.fail(f"{key} must be {what}, got {v[key]!r}")
    for key in ("alpha", "fpr"):
        if key in v and not 0.0 <= v[key] <= 1.0:
            ent.fail(f"{key} must be a probability in [0, 1], got {v[key]!r}")
    if "eps" in v and v["eps"] < 0:
        ent.fail(f"eps must be >= 0, got {v['eps']!r}")


def _answer(acc, v: dict, row: tuple[str, str, str, str]) -> dict:
    """One claim of the entry decided from the built accountant: its point, certified interval, verdict
    (a vacuous μ-GDP range never holds) and the accountant's method."""
    qkey, bkey, _name, direction = row
    vacuous = False
    if qkey == "delta":
        iv = acc.epsilon(v["delta"])
    elif qkey == "eps":
        iv = acc.delta(v["eps"])
    elif qkey == "alpha_min":
        g = acc.gdp(alpha_min=v.get("alpha_min", 1e-10))
        iv, vacuous = g.mu, g.vacuous
    elif qkey == "alpha":
        iv = acc.tradeoff(v["alpha"])
    else:
        iv = acc.risk(v["fpr"])
    lo, up = float(iv.lower), float(iv.upper)
    verdict = _decide(lo, up, v[bkey], direction)
    if vacuous and verdict == "holds":
        verdict = "inconclusive"
    return {
        "at": v.get(qkey, 1e-10),
        "interval": [lo, up],
        "claimed": f"{direction} {v[bkey]:g}",
        "verdict": verdict,
        "method": iv.method,
        **({"vacuous": vacuous} if vacuous else {}),
    }


def _outcome(v: dict, events: list[str], relation: str, asked: list, answers: dict) -> Outcome:
    """The entry's verdict (refuted if any claim is, holds if all hold, else inconclusive) with every answer."""
    verdicts = [a["verdict"] for a in answers.values()]
    overall = (
        "refuted" if "refuted" in verdicts else ("holds" if all(x == "holds" for x in verdicts) else "inconclusive")
    )
    first = next(iter(answers.values()))
    return Outcome(
        overall,
        claimed=v[asked[0][1]],
        measured=first["interval"][1] if asked[0][3] == "<=" else first["interval"][0],
        details={
            "query": "pld",
            "events": events,
            "neighbouring": relation,
            "answers": answers,
            "builds": 1,
            "reason": "; ".join(
                f"{n} in [{a['interval'][0]:.7g}, {a['interval'][1]:.7g}] {a['verdict']} (claimed {a['claimed']})"
                for n, a in answers.items()
            ),
            "counterexample": {n: a for n, a in answers.items() if a["verdict"] == "refuted"} or None,
        },
    )


def build_pld(ent, paper: str) -> tuple[Claim, Check]:
    """The claim and check of a ``query = "pld"`` entry (validated here: one-line errors at load time)."""
    from accountants.pld_spec import pld_accountant

    v = ent.values
    events, relation, asked = _check_entry(ent)
    ent.guard(lambda: pld_accountant(events, relation, option="events"))  # parse errors at load time

    def run(ctx: RunContext) -> Outcome:
        acc, _ = pld_accountant(events, relation, option="events")  # one build, shared by the queries
        answers = {row[2]: _answer(acc, v, row) for row in asked}
        return _outcome(v, events, relation, asked, answers)

    stmt = f"PLD of {' + '.join(events)}: " + ", ".join(f"{n} {d} {v[b]:g}" for q, b, n, d in asked)
    return ent.claim(paper, "bound", "numeric", stmt), Check(ent.id, "numeric", run, expect=ent.expect)
