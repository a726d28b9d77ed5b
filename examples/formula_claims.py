"""Example user formula claims: run with

    privcheck verify --file examples/formula_claims.py

or in a test: ``privcheck.pytest_plugin.assert_claims("examples/formula_claims.py")``.
Each claim states the side derived from the model, the side as printed, the symbols'
domains and the verdict we expect; CI fails when a verdict differs from its expectation.
The planted-wrong claims are expected to be refuted (with an exact counterexample).
"""

from proofs.formula import formula_claim

RR = {"eps": "positive"}
P_RR = "exp(eps)/(exp(eps) + 1)"  # randomised response: keep the bit w.p. p

# Right: the variance of a Bernoulli(p) indicator is p(1 - p), from E[X^2] - E[X]^2.
formula_claim(
    "example.bernoulli.variance",
    derived="p - p^2",
    printed="p*(1 - p)",
    assumptions={"p": "(0,1)"},
    expect="holds",
    source="example",
)

# Right: debiased randomised response (x_hat = (y - (1-p))/(2p - 1)) is unbiased for a bit x.
formula_claim(
    "example.rr.unbiased",
    derived="((x*p + (1 - x)*(1 - p)) - (1 - p))/(2*p - 1)",
    printed="x",
    assumptions={"x": "[0,1]", "p": "(1/2,1)"},
    expect="holds",
    source="example",
)

# Right: with p = e^eps/(e^eps + 1), the likelihood ratio p/(1 - p) is e^eps.
formula_claim(
    "example.rr.ratio",
    derived="P/(1 - P)",
    printed="exp(eps)",
    assumptions={"eps": "positive", "P": "(0,1)"},
    substitutions={"P": P_RR},
    expect="holds",
    source="example",
)

# Right inequality (holds only because alpha is in (0,1)): alpha^2 V <= V for V > 0.
formula_claim(
    "example.accumulation.inequality",
    derived="alpha^2*V",
    printed="V",
    relation="<=",
    assumptions={"alpha": "(0,1)", "V": "positive"},
    expect="holds",
    source="example",
)

# Planted wrong: a dropped factor (the variance of a binomial count is n p (1 - p)).
formula_claim(
    "example.planted.dropped_factor",
    derived="n*p*(1 - p)",
    printed="p*(1 - p)",
    assumptions={"n": "integer>=1", "p": "(0,1)"},
    expect="refuted",
    source="example",
)

# Planted wrong: a wrong exponent (Var of the unbiased RR estimate is p(1-p)/(2p-1)^2).
formula_claim(
    "example.planted.wrong_exponent",
    derived="p*(1 - p)/(2*p - 1)^2",
    printed="p*(1 - p)/(2*p - 1)",
    assumptions={"p": "(1/2,1)"},
    expect="refuted",
    source="example",
)

# Planted wrong: a sign error in the GDP conversion (+ instead of -).
formula_claim(
    "example.planted.sign_error",
    derived="Phi(-e/mu + mu/2) - exp(e)*Phi(-e/mu - mu/2)",
    printed="Phi(-e/mu + mu/2) + exp(e)*Phi(-e/mu - mu/2)",
    assumptions={"e": "nonnegative", "mu": "positive"},
    expect="refuted",
    source="example",
)
