"""``[[accountant]] query = "pld"``: ε(δ), δ(ε), μ, the curve and the attack risk of one composition,
claimed in one entry and checked from one build of the certified PLD accountant (issues 29 §4, 33 §2)."""

from __future__ import annotations

import itertools
import textwrap

import pytest

import accountants.pld.accountant as acc_mod
from privcheck.base.errors import PrivcheckUsageError
from privcheck.claimsfile import load_user_file, query_names, unload_user_file
from privcheck.runner import RunOptions, run, select

_n = itertools.count()
EV = '["subsampled-gaussian:sigma=1.0,q=0.01x200"]'


@pytest.fixture
def write(tmp_path):
    paths = []

    def _write(text: str) -> str:
        p = tmp_path / f"pld{next(_n)}.toml"
        p.write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(str(p))
        return str(p)

    yield _write
    for p in paths:
        unload_user_file(p)


def _run(ids):
    return {r.id: r for r in run(select(ids), RunOptions(seed=0, jobs=1))}


def test_all_queries_from_one_build(write, monkeypatch):
    builds = []
    real = acc_mod.discretise
    monkeypatch.setattr(acc_mod, "discretise", lambda *a, **k: builds.append(1) or real(*a, **k))
    path = write(f"""
    [[accountant]]
    id = "p.all"
    query = "pld"
    events = {EV}
    delta = 1e-5
    eps_bound = 3.0
    eps = 1.0
    delta_bound = 0.5
    mu_bound = 2.0
    alpha_min = 1e-6
    alpha = 0.01
    beta_bound = 0.5
    fpr = 0.01
    tpr_bound = 0.5
    """)
    rec = _run(load_user_file(path))["p.all"]
    assert rec.verdict == "holds", rec.details
    ans = rec.details["answers"]
    assert set(ans) == {"eps(delta)", "delta(eps)", "mu", "beta(alpha)", "TPR(fpr)"}
    assert all(a["verdict"] == "holds" for a in ans.values())
    assert len(builds) == 2  # one discretisation per direction (remove, add): one build for five queries
    lo, up = ans["eps(delta)"]["interval"]
    assert 0 < lo <= up < 3.0


def test_refuted_and_inconclusive_from_the_interval(write):
    path = write(f"""
    [[accountant]]
    id = "p.too_good"
    query = "pld"
    events = {EV}
    delta = 1e-5
    eps_bound = 0.5
    alpha = 0.01
    beta_bound = 0.5
    expect = "refuted"
    """)
    rec = _run(load_user_file(path))["p.too_good"]
    assert rec.verdict == "refuted" and "eps(delta)" in rec.details["counterexample"]
    lo, up = rec.details["answers"]["eps(delta)"]["interval"]
    mid = 0.5 * (lo + up)  # a bound inside the certified interval decides nothing
    path = write(f"""
    [[accountant]]
    id = "p.inside"
    query = "pld"
    events = {EV}
    delta = 1e-5
    eps_bound = {mid!r}
    expect = "inconclusive"
    """)
    assert _run(load_user_file(path))["p.inside"].verdict == "inconclusive"


def test_vacuous_mu_is_never_holds(write):
    path = write("""
    [[accountant]]
    id = "p.vacuous"
    query = "pld"
    events = ["rr:eps=20"]
    mu_bound = 0.1
    alpha_min = 1e-5
    expect = "inconclusive"
    """)
    rec = _run(load_user_file(path))["p.vacuous"]
    assert rec.verdict == "inconclusive" and "vacuous" in rec.details["answers"]["mu"]


@pytest.mark.parametrize(
    "body, msg",
    [
        (f"events = {EV}\neps_bound = 1.0", "eps_bound needs delta"),
        (f"events = {EV}\ndelta = 1e-5", "delta is given without eps_bound"),
        (f"events = {EV}", "needs at least one of eps_bound"),
        ('events = ["gauss:sigma=1"]\ndelta = 1e-5\neps_bound = 1.0', "events 'gauss:sigma=1'"),
        (f"events = {EV}\ndelta = 2.0\neps_bound = 1.0", "delta must be in (0, 1)"),
        (f"events = {EV}\ndelta = 1e-5\neps_bound = 1.0\nbound = 1.0", "query 'pld' takes no 'bound'"),
        (f"events = {EV}\nneighbouring = 'swap'\ndelta = 1e-5\neps_bound = 1.0", "neighbouring must be"),
    ],
)
def test_bad_pld_entries_are_one_line_errors(write, body, msg):
    path = write('[[accountant]]\nid = "p.bad"\nquery = "pld"\n' + body + "\n")
    with pytest.raises(PrivcheckUsageError) as exc:
        load_user_file(path)
    assert msg in str(exc.value) and "\n" not in str(exc.value), str(exc.value)


def test_pld_keys_belong_to_pld_and_bound_to_the_others(write):
    assert "pld" in query_names()
    path = write(
        '[[accountant]]\nid = "p.x"\nquery = "gdp.eps"\nparams = { mu = 1.0, delta = 1e-5 }\neps_bound = 1.0\n'
    )
    with pytest.raises(PrivcheckUsageError, match="'eps_bound' is a key of query 'pld' only"):
        load_user_file(path)
    path = write('[[accountant]]\nid = "p.y"\nquery = "gdp.eps"\nparams = { mu = 1.0, delta = 1e-5 }\n')
    with pytest.raises(PrivcheckUsageError, match="missing required key 'bound'"):
        load_user_file(path)
