"""privcheck user claims in Python — run with ``privcheck verify --file examples/claims.py``.

Two ways to declare a claim:

1. ``formula_claim`` (symbolic): a derived expression against the printed one,
   under declared assumptions; sympy proves it or finds an exact counterexample.
2. Your own :class:`privcheck.Claim` and a check function decorated with
   ``@privcheck.check(id, method)`` returning a :class:`privcheck.Outcome`.

``expect`` (formula_claim) is the verdict you expect; ``privcheck verify``
exits 1 when a verdict differs from it.
"""

import math

from privcheck import Claim, Outcome, RunContext, check
from privcheck.claims import CATALOGUE
from proofs.formula import formula_claim

# Variance of a Bernoulli(p) report: E[X²] − E[X]² with E[X] = E[X²] = p.
formula_claim(
    "example.py.bernoulli.variance",
    derived="E2 - E1**2",
    printed="p*(1 - p)",
    assumptions={"p": "(0,1)", "E1": "real", "E2": "real"},
    substitutions={"E1": "p", "E2": "p"},
    relation="=",
    expect="holds",
    source="examples/claims.py",
)

# A printed formula with a typo: the variance is not p(1 + p); sympy finds the counterexample.
formula_claim(
    "example.py.bernoulli.typo",
    derived="p - p**2",
    printed="p*(1 + p)",
    assumptions={"p": "(0,1)"},
    expect="refuted",
    source="examples/claims.py",
)

# Your own claim and check: randomised response with m = 2 keeps the true bit w.p. e^ε/(e^ε + 1).
CATALOGUE.add_claim(
    Claim(
        "example.py.rr.keep",
        "examples/claims.py",
        "own check",
        "formula",
        "binary randomised response at ε = 1 keeps the bit w.p. e/(e + 1)",
        ("mc",),
    )
)


@check("example.py.rr.keep", "mc")
def _rr_keep(ctx: RunContext) -> Outcome:
    """Share of reports equal to the input from the built-in ``de`` sampler, with a Clopper–Pearson interval."""
    import privcheck
    from privcheck.base.stats import clopper_pearson

    n = ctx.n(default=200_000, quick=40_000)
    p = math.e / (math.e + 1)
    reports = privcheck.mechanism("de", m=2, eps=1.0).sample(0, n, ctx.rng("rr"))
    kept = int((reports == 0).sum())
    lo, hi = clopper_pearson(kept, n, 1 - ctx.confidence)
    verdict = "holds" if lo <= p <= hi else "refuted"
    return Outcome(
        verdict,
        claimed=p,
        measured=kept / n,
        samples=n,
        details={"interval": [float(lo), float(hi)], "confidence": ctx.confidence},
    )
