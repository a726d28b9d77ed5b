"""``[[privacy]]`` entries take what ``privcheck audit`` takes: ``mu``, ``accountant`` and ``samples = "auto"``.

Each claim kind runs with the verdict its truth implies (a Gaussian of σ = 1 is exactly 1-GDP; an accountant of
weaker noise claims more than it has), and every bad value is one line naming the file, the entry and the problem.
"""

from __future__ import annotations

import itertools
import textwrap

import pytest

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import CATALOGUE
from privcheck.claimsfile import load_user_file, unload_user_file
from privcheck.runner import RunOptions, run, select

_counter = itertools.count()


@pytest.fixture
def write(tmp_path):
    paths = []

    def _write(text: str) -> str:
        p = tmp_path / f"curves{next(_counter)}.toml"
        p.write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(str(p))
        return str(p)

    yield _write
    for p in paths:
        unload_user_file(p)


def _run(path: str, **opts):
    ids = load_user_file(path)
    return {r.id: r for r in run(select(ids), RunOptions(seed=0, jobs=1, **opts))}


GAUSS = 'mechanism = "gaussian"\nparams = { sigma = 1.0 }\nsamples = 20000\n'


def test_mu_claims_true_and_too_strong(write):
    path = write(f"""
    [[privacy]]
    id = "c.mu"
    {GAUSS}
    mu = 1.0

    [[privacy]]
    id = "c.mu.strong"
    {GAUSS}
    mu = 0.5
    expect = "refuted"
    """)
    recs = _run(path)
    ok, strong = recs["c.mu"], recs["c.mu.strong"]
    assert ok.method == "mc" and ok.verdict == "holds" and ok.claimed == {"mu": 1.0}
    # the certified lower end of μ is below the true μ = 1 (and above the false claim 0.5)
    assert 0.5 < strong.measured["mu_lower"] <= 1.0
    assert strong.verdict == "refuted" and strong.details["interval"][0] == strong.measured["mu_lower"]
    assert CATALOGUE.claims["c.mu"].statement == "gaussian(sigma=1.0) is μ=1-GDP"


def test_accountant_claims_one_event_or_a_composition(write):
    path = write(f"""
    [[privacy]]
    id = "c.acc"
    {GAUSS}
    accountant = "gaussian:sigma=1"
    delta = 1e-3

    [[privacy]]
    id = "c.acc.weak_noise"
    {GAUSS}
    accountant = ["gaussian:sigma=3", "gaussian:sigma=3"]
    expect = "refuted"
    """)
    recs = _run(path)
    ok, bad = recs["c.acc"], recs["c.acc.weak_noise"]
    assert ok.verdict == "holds" and ok.measured["points_below_curve"] == 0
    assert 0 < ok.measured["eps_lower_at_delta"]  # --delta adds the certified ε lower end at δ
    # two Gaussians of σ = 3 compose to σ = 3/√2 ≈ 2.1: a claim far stronger than σ = 1 gives
    assert bad.verdict == "refuted" and bad.measured["points_below_curve"] > 0
    assert "sigma=3.0" in bad.claimed["accountant"] and "x2" in bad.claimed["accountant"]


def test_samples_auto_runs_in_rounds_and_quick_divides_its_budget(write):
    path = write("""
    [[privacy]]
    id = "c.auto"
    mechanism = "de"
    params = { m = 4, eps = 1.0 }
    exact = false
    samples = "auto:draws=20000,first=2000,policy=rounds"
    """)
    rec = _run(path)["c.auto"]
    assert rec.verdict == "holds" and rec.details["adaptive"]["max_draws"] == 20000
    sizes = [r["samples"] for r in rec.details["adaptive"]["rounds"]]
    assert sizes[0] == 2000 and len(sizes) >= 2 and sum(sizes) <= 20000
    quick = _run(path, quick=True)["c.auto"]
    assert quick.details["adaptive"]["max_draws"] == 4000


def test_user_code_takes_mu(write, tmp_path):
    (tmp_path / "gauss_sampler.py").write_text(
        "def sample(x, n, rng):\n    return x + rng.standard_normal(n)\n", encoding="utf-8"
    )
    path = write("""
    [[privacy]]
    id = "c.user.mu"
    sampler = "gauss_sampler.py:sample"
    inputs = [0.0, 1.0]
    mu = 0.5
    samples = 20000
    expect = "refuted"
    """)
    rec = _run(path)["c.user.mu"]
    assert rec.verdict == "refuted" and rec.measured["mu_lower"] > 0.5


_E = '[[privacy]]\nid = "a.b"\nmechanism = "gaussian"\nparams = { sigma = 1.0 }\n'
BAD = [
    (_E + "mu = 0.0", "mu must be a number > 0"),
    (_E + "mu = -1.0", "mu must be a number > 0"),
    (_E + 'mu = "one"', "mu must be a number"),
    (_E + "mu = inf", "mu must be a finite number"),
    (_E + "mu = 1.0\neps = 1.0", "give one claim: eps, mu or accountant, not eps and mu"),
    (_E + 'mu = 1.0\naccountant = "gaussian:sigma=1"', "not mu and accountant"),
    (_E + 'accountant = "bogus:sigma=1"', "accountant 'bogus:sigma=1': expected KIND:NAME=VALUE"),
    (_E + 'accountant = "gaussian:sigma=x"', "sigma must be a number"),
    (_E + 'accountant = "gaussian:q=1"', "unknown q"),
    (_E + "accountant = []", "accountant must be a PLD event"),
    (_E + "accountant = [1]", "accountant must be a PLD event"),
    (_E + "accountant = 3", "accountant must be a string or an array"),
    (_E + 'samples = "many"', 'samples must be an integer >= 20 or "auto"'),
    (_E + 'samples = "auto:colour=1"', "bad setting 'colour=1'"),
    (_E + 'samples = "auto:draws=x"', "draws needs a number"),
    (_E + "samples = true", "samples must be an integer or a string"),
    (_E + "samples = 5", "samples must be an integer >= 20"),
    (_E + 'mu = 1.0\nsamples = "auto:policy=rounds"', 'samples = "auto" is for ε, (ε, δ) and mu claims'),
    (_E + 'accountant = "gaussian:sigma=1"\nsamples = "auto"', "an accountant claim"),
    (_E + "mu = 1.0\nexact = true", "exact = true is for ε claims"),
    (_E + "mu = 1.0\nmonte_carlo = false", "monte_carlo = false leaves nothing to run"),
    (
        '[[privacy]]\nid = "a.b"\nsampler = "m:f"\ninputs = [0, 1]',
        "missing required key 'eps' (the claimed ε; or mu, or accountant)",
    ),
]


@pytest.mark.parametrize("text,needle", BAD)
def test_bad_claim_values_are_one_line(write, text, needle):
    path = write(text)
    with pytest.raises(PrivcheckUsageError) as exc:
        load_user_file(path)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(path + ": [[privacy]] #1 (id 'a.b'): "), msg
    assert needle in msg, msg
    assert "a.b" not in CATALOGUE.claims
