"""Bad and extreme inputs on the command line and the Python API (issue 10).

Every row of :data:`USAGE` must exit 2 with exactly one line on standard error
(``privcheck: error: …``) and no traceback; every row of :data:`ANSWERS` must
give the correct answer. Runs in-process with click's CliRunner; each audit
uses few samples so the module stays fast.
"""

from __future__ import annotations

import json
import math
import textwrap
import time
import uuid

import pytest
from click.testing import CliRunner

import privcheck
from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli import main

FAST = ["--samples", "200"]


def _run(args):
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    return res


def _stderr(res) -> str:
    return res.stderr if hasattr(res, "stderr") else res.output


def _assert_no_traceback(res):
    assert "Traceback" not in res.output
    assert "Traceback" not in _stderr(res)


NOWHERE = "/nonexistent_privcheck_dir/out"

# (args, substring expected in the one error line)
USAGE = [
    (["audit", "de", "--eps", "inf"], "'inf'"),
    (["audit", "de", "--eps", "nan"], "'nan'"),
    (["audit", "de", "--eps", ""], "''"),
    (["audit", "de", "--eps", "1e999"], "'1e999'"),
    (["audit", "de", "--eps", "-1"], "eps"),
    (["audit", "de", "--eps", "-1e-300"], "eps"),
    (["audit", "de", "--param", "eps=inf"], "'inf'"),
    (["audit", "de", "--param", "eps=nan"], "'nan'"),
    (["audit", "de", "--param", "eps="], "''"),
    (["audit", "de", "--param", "eps=-1"], "eps"),
    (["audit", "de", "--param", "eps=1e999"], "'1e999'"),
    (["audit", "de", "--param", "m=1"], "m must be"),
    (["audit", "de", "--param", "m=2.5"], "m must be an integer"),
    (["audit", "de", "--param", "bogus=1"], "unknown parameter"),
    (["audit", "de", "--param", "noequals"], "NAME=VALUE"),
    (["audit", "nosuch"], "unknown mechanism"),
    (["audit"], "MECHANISM"),
    (["nosuchcommand"], "No such command"),
    (["audit", "de", "--no-exact", "--no-mc"], "nothing to audit"),
    (["audit", "de", "--samples", "10"], "--samples"),
    (["audit", "de", "--samples", "1e20"], "limit"),
    (["audit", "de", "--samples", "1.5"], "'1.5'"),
    (["audit", "de", "--samples", "inf"], "'inf'"),
    (["audit", "de", "--confidence", "1", *FAST], "confidence"),
    (["audit", "de", "--confidence", "0", *FAST], "confidence"),
    (["audit", "de", "--confidence", "nan", *FAST], "'nan'"),
    (["audit", "de", "--seed", "-1", *FAST], "seed"),
    (["audit", "de", "--json", NOWHERE + ".json"], "does not exist"),
    (["audit", "fedsel-pe", "--param", "d=1000000000", "--param", "k=2"], "more than the limit"),
    (["audit", "fedsel-exp", "--param", "d=1e9"], "more than the limit"),
    (["audit", "pm-multidim", "--param", "d=1e9"], "more than the limit"),
    (["audit", "fedsel-two-stage", "--param", "d=1e9"], "more than the limit"),
    (["audit", "pm", "--param", "eps=1e6"], "--no-exact"),
    (["audit", "duchi", "--param", "eps=1e5"], "--no-exact"),
    (["audit", "pm", "--param", "eps=1e-310", *FAST], "cannot be sampled"),
    (["audit", "de", "--max-memory", "1K"], "more than the limit"),
    (["audit", "de", "--max-memory", "lots"], "--max-memory"),
    (["audit", "de", "--max-memory", "0%"], "--max-memory"),
    (["verify", "--samples", "1e20"], "limit"),
    (["verify", "--samples", "5"], "--samples"),
    (["verify", "--timeout", "0"], "--timeout"),
    (["verify", "--timeout", "-3"], "--timeout"),
    (["verify", "--timeout", "inf"], "'inf'"),
    (["verify", "--json", NOWHERE + ".json"], "does not exist"),
    (["verify", "--markdown", NOWHERE + ".md"], "does not exist"),
    (["verify", "--junit", NOWHERE + ".xml"], "does not exist"),
    (["verify", "--html", NOWHERE + ".html"], "does not exist"),
    (["verify", "--html", "."], "is a directory"),
    (["verify", "--markdown", "-"], "standard output"),
    (["verify", "no.such.claim"], "no claim matches"),
    (["verify", "--method", "bogus"], "unknown method"),
    (["verify", "--confidence", "2"], "confidence"),
    (["verify", "--jobs", "0"], "jobs"),
    (["verify", "--seed", "1e999"], "'1e999'"),
    (["verify", "--file", "/nonexistent_privcheck.toml"], "nonexistent_privcheck.toml"),
    (["budget", "advanced", "--eps", "nan", "--steps", "3"], "'nan'"),
    (["budget", "advanced", "--eps", "1", "--steps", "0"], "steps"),
    (["budget", "advanced", "--eps", "1", "--steps", "1.5"], "'1.5'"),
    (["budget", "advanced", "--eps", "1", "--steps", "3", "--delta-tilde", "0"], "delta_tilde"),
    (["budget", "advanced", "--eps", "1", "--steps", "3", "--delta-tilde", "1"], "delta_tilde"),
    (["budget", "advanced", "--eps", "-1", "--steps", "3"], "eps"),
    (["budget", "advanced", "--eps", "1e999", "--steps", "3"], "'1e999'"),
    (["budget", "advanced", "--eps", "1", "--steps", "1e10"], "steps <= 1e+09"),
    (["budget", "advanced", "--eps", "1", "--steps", "1e300"], "steps"),
    (["budget", "advanced", "--eps", "1e308", "--steps", "3"], "too large"),
    (["budget", "gdp", "--sigma", "1e-320"], "sigma=1e-320"),
    (["budget", "gdp", "--mu", "1e307", "--steps", "1000"], "overflows"),
    (["verify", "--samples", "1000", "--max-memory", "1K", "--jobs", "1"], "more than the limit"),
    (["verify", "--max-memory", "-5G"], "--max-memory"),
    (["budget", "gdp", "--mu", "inf"], "'inf'"),
    (["budget", "gdp", "--mu", "0"], "mu"),
    (["budget", "gdp", "--mu", "1", "--delta", "0"], "delta"),
    (["budget", "gdp", "--mu", "1", "--eps", "1", "--delta", "1e-5"], "at most one"),
    (["budget", "gdp"], "exactly one"),
    (["budget", "gdp", "--mu", "1", "--json", NOWHERE + ".json"], "does not exist"),
    (["budget", "compose", "--eps", "1,nan"], "--eps"),
    (["budget", "compose", "--eps", ""], "--eps"),
    (["list", "--json", NOWHERE + ".json"], "does not exist"),
    (["budget", "wireless", "--K", "100", "--c", "30", "--p", "1e300"], "p must be a probability"),
    (["budget", "plan", "steps", "--eps", "1", "--sigma", "1e300"], "more than 1e15 rounds"),
    (["budget", "plan", "users", "--eps", "1", "--c", "0"], "c must be"),
]


@pytest.mark.parametrize("args,needle", USAGE, ids=[" ".join(a)[:60] for a, _ in USAGE])
def test_bad_input_is_one_line_exit_2(args, needle):
    res = _run(args)
    _assert_no_traceback(res)
    err = _stderr(res).strip().splitlines()
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert len(err) == 1, err
    assert err[0].startswith("privcheck: error: "), err
    assert needle in err[0], err[0]


def test_table_is_large_enough():
    assert len(USAGE) + len(ANSWERS) >= 60


def _json(args):
    res = _run([*args, "--json", "-"])
    _assert_no_traceback(res)
    out = json.loads(res.stdout)
    # audit exits 1 on a refuted verdict (a failing test for CI), 0 otherwise
    expected = 1 if isinstance(out, dict) and out.get("verdict") == "refuted" else 0
    assert res.exit_code == expected, res.output
    return out


# (args, check on the JSON result) — correct answers at the edges
ANSWERS = [
    (
        ["audit", "de", "--param", "m=4", "--param", "eps=300", *FAST],
        lambda r: r["eps_exact"] == 300.0 and r["verdict"] == "holds",
    ),
    (
        ["audit", "de", "--param", "m=4", "--param", "eps=800", *FAST],
        lambda r: r["eps_exact"] == 800.0 and r["verdict"] == "holds",
    ),
    (["audit", "de", "--param", "m=4", "--param", "eps=100", "--no-mc"], lambda r: r["eps_exact"] == 100.0),
    (
        ["audit", "de", "--param", "m=4", "--param", "eps=1e-300", "--no-mc"],
        lambda r: math.isclose(r["eps_exact"], 1e-300, rel_tol=1e-12),
    ),
    (["audit", "duchi", "--param", "eps=800", *FAST], lambda r: r["eps_exact"] == 800.0 and r["verdict"] == "holds"),
    (["audit", "pm", "--param", "eps=100", *FAST], lambda r: r["eps_exact"] == 100.0 and r["verdict"] == "holds"),
    (["audit", "pm", "--param", "eps=1e-12", *FAST], lambda r: math.isclose(r["eps_exact"], 1e-12, rel_tol=1e-12)),
    (["audit", "hm", "--param", "eps=800", *FAST], lambda r: r["eps_exact"] == 800.0 and r["verdict"] == "holds"),
    (
        ["audit", "fedsel-exp", "--param", "d=5", "--param", "k=2", "--param", "eps=1e-300", *FAST],
        lambda r: math.isclose(r["eps_exact"], 1e-300, rel_tol=1e-12) and r["verdict"] == "holds",
    ),
    (
        ["audit", "fedsel-ps", "--param", "d=5", "--param", "k=2", "--param", "eps=1000", *FAST],
        lambda r: r["eps_exact"] == 1000.0,
    ),
    (["audit", "pm", "--param", "eps=1e6", "--no-exact", *FAST], lambda r: r["verdict"] == "inconclusive"),
    (
        ["audit", "de", "--param", "m=4", "--param", "eps=1", "--eps", "0.5", "--no-mc"],
        lambda r: r["verdict"] == "refuted",
    ),
    (
        ["budget", "advanced", "--eps", "800", "--steps", "10"],
        lambda r: r["basic"]["eps"] >= 8000 and r["drv"]["eps"] == "inf" and r["optimal"]["eps"] <= r["basic"]["eps"],
    ),
    (
        ["budget", "advanced", "--eps", "10", "--steps", "100", "--delta-tilde", "1e-15"],
        lambda r: r["optimal"]["eps"] >= 1000.0,
    ),
    (
        ["budget", "advanced", "--eps", "0.01", "--steps", "1e6"],
        lambda r: 0 < r["optimal"]["eps"] <= r["kov"]["eps"] <= r["basic"]["eps"],
    ),
    (["budget", "gdp", "--mu", "3e8"], lambda r: math.isclose(r["eps"], 4.5e16, rel_tol=1e-6)),
    (["budget", "gdp", "--mu", "1e200"], lambda r: r["eps"] == "inf"),
    (["budget", "gdp", "--mu", "1", "--delta", "1e-300"], lambda r: 30 < r["eps"] < 1e3),
    # tiny σ: the grid cannot hold the loss range, so no PLD interval (said in the notes), never a crash
    (
        ["budget", "amplify", "--q", "0.01", "--sigma", "1e-300", "--steps", "10"],
        lambda r: r["eps_pld_upper"] is None and "PLD not computed" in r["pld_notes"][0] and r["eps_rdp"] == "inf",
    ),
    # huge σ: the mechanism is almost perfectly private, the certified interval is tiny and contains 0
    (
        ["budget", "amplify", "--q", "0.01", "--sigma", "1e300", "--steps", "10"],
        lambda r: r["eps_pld_lower"] == 0.0 and 0.0 <= r["eps_pld_upper"] < 1e-2,
    ),
    (
        ["budget", "spriFed", "-s", "10", "--mu1", "1e300", "--mu2", "1"],
        lambda r: r["budget"]["eps"] == "inf" and r["budget"]["mu_total"] > 3e300,
    ),
]


@pytest.mark.parametrize("args,ok", ANSWERS, ids=[" ".join(a)[:60] for a, _ in ANSWERS])
def test_extreme_input_gets_the_right_answer(args, ok):
    assert ok(_json(args))


def test_toml_claims_at_eps_800(tmp_path):
    tag = uuid.uuid4().hex[:8]
    f = tmp_path / "c.toml"
    f.write_text(
        textwrap.dedent(f"""
        [[privacy]]
        id = "x{tag}.de800"
        mechanism = "de"
        params = {{ m = 4, eps = 800.0 }}
        samples = 200

        [[privacy]]
        id = "x{tag}.hm800"
        mechanism = "hm"
        params = {{ eps = 800.0 }}
        samples = 200
    """)
    )
    res = _run(["verify", "--file", str(f), "--jobs", "1", "--json", "-"])
    _assert_no_traceback(res)
    assert res.exit_code == 0, res.output
    recs = json.loads(res.stdout)
    assert [r["verdict"] for r in recs] == ["holds", "holds"]


def test_toml_claim_with_infinite_eps_is_a_usage_error(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text(f'[[privacy]]\nid = "x{uuid.uuid4().hex[:8]}"\nmechanism = "de"\nparams = {{ m = 4, eps = inf }}\n')
    res = _run(["verify", "--file", str(f)])
    assert res.exit_code == 2 and len(_stderr(res).strip().splitlines()) == 1
    assert "finite" in _stderr(res)


def test_internal_error_is_one_line_exit_3(monkeypatch):
    import estimators.registry as reg

    def boom(*a, **k):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(reg, "mechanism", boom)
    res = _run(["audit", "de"])
    assert res.exit_code == 3
    err = _stderr(res).strip().splitlines()
    assert len(err) == 1 and "Traceback" not in res.output
    assert err[0] == (
        "privcheck: internal error: ZeroDivisionError: float division by zero (rerun with --debug for the traceback)"
    )
    res = _run(["audit", "de", "--debug"])
    assert res.exit_code == 3 and "Traceback" in _stderr(res)


def test_warnings_do_not_leak_into_normal_output():
    res = _run(["budget", "amplify", "--q", "0.01", "--sigma", "1.1", "--steps", "100", "--delta", "1e-5"])
    assert res.exit_code == 0
    assert "Warning" not in res.output


LOOP_CLAIMS = """
from privcheck import Claim, Outcome, check
from privcheck.claims import CATALOGUE

CATALOGUE.add_claim(Claim(id="{tag}.loop", paper="user", where="t", kind="bound", statement="loops", methods=("exact",)))
CATALOGUE.add_claim(Claim(id="{tag}.fast", paper="user", where="t", kind="bound", statement="returns", methods=("exact",)))


@check("{tag}.loop", "exact")
def _loop(ctx):
    while True:
        pass


@check("{tag}.fast", "exact")
def _fast(ctx):
    return Outcome("holds", 1.0, 1.0, {{}})
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_timeout_stops_a_looping_check_and_the_run_goes_on(tmp_path, jobs):
    tag = "loop" + uuid.uuid4().hex[:8]
    f = tmp_path / f"{tag}.py"
    f.write_text(LOOP_CLAIMS.format(tag=tag))
    t0 = time.perf_counter()
    res = _run(["verify", "--file", str(f), "--timeout", "1", "--jobs", jobs, "--json", "-"])
    assert time.perf_counter() - t0 < 15
    _assert_no_traceback(res)
    assert res.exit_code == 1
    recs = {r["id"]: r for r in json.loads(res.stdout)}
    assert recs[f"{tag}.loop"]["verdict"] == "error"
    assert recs[f"{tag}.loop"]["details"]["error"] == "timed out after 1 s"
    assert recs[f"{tag}.fast"]["verdict"] == "holds"


def test_memory_estimate_refuses_d_1e9_quickly():
    from privcheck.base.resources import ResourceLimitError

    mech = privcheck.mechanism("fedsel-pe", d=10**9, k=2, eps=1.0)
    t0 = time.perf_counter()
    with pytest.raises(ResourceLimitError, match="more than the limit"):
        privcheck.audit(mech, samples=1000)
    assert time.perf_counter() - t0 < 1.0


# ---------------------------------------------------------------------------
# the Python API: clear exception types
# ---------------------------------------------------------------------------

API_BAD = [
    (lambda: privcheck.mechanism("de", eps=float("inf")), PrivcheckUsageError),
    (lambda: privcheck.mechanism("de", eps=float("nan")), PrivcheckUsageError),
    (lambda: privcheck.mechanism("de", eps=-1.0), PrivcheckUsageError),
    (lambda: privcheck.mechanism("de", m=1), PrivcheckUsageError),
    (lambda: privcheck.mechanism("nosuch"), privcheck.UnknownNameError),
    (lambda: privcheck.mechanism("de", bogus=1), privcheck.UnknownNameError),
    (lambda: privcheck.mechanism("pm", eps=1e6).exact_epsilon(), PrivcheckUsageError),
    (lambda: privcheck.audit(privcheck.mechanism("de"), samples=10**20), PrivcheckUsageError),
    (lambda: privcheck.audit(privcheck.mechanism("pm", eps=1e-310), samples=100, exact=False), PrivcheckUsageError),
    (lambda: privcheck.verify(["no.such.claim"]), privcheck.UnknownNameError),
    (lambda: privcheck.verify(["fedsel.*"], timeout=0), PrivcheckUsageError),
    (lambda: privcheck.verify(["fedsel.*"], samples=10**20), PrivcheckUsageError),
]


@pytest.mark.parametrize("call,exc", API_BAD, ids=range(len(API_BAD)))
def test_python_api_raises_clear_exceptions(call, exc):
    with pytest.raises(exc) as info:
        call()
    assert "\n" not in str(info.value)


def test_accountant_api_domains():
    from accountants import composition as comp
    from accountants import gdp

    with pytest.raises(PrivcheckUsageError):
        gdp.gdp_eps(float("inf"), 1e-5)
    with pytest.raises(PrivcheckUsageError):
        gdp.gdp_eps(1.0, 0.0)
    with pytest.raises(PrivcheckUsageError):
        comp.kov_optimal_grid(0.1, 10**9)
    assert comp.drv_composition(800.0, 10, 1e-5).eps == math.inf
    assert gdp.gdp_eps(1e200, 1e-5) == math.inf


def test_bare_command_shows_help_and_version_works():
    res = _run([])
    assert res.exit_code == 2 and "Usage:" in res.output and "COMMAND" in res.output and "Traceback" not in res.output
    res = _run(["--version"])
    assert res.exit_code == 0 and "version" in res.output
