"""The pytest plugin collects claims files as tests (pytester): one item per check, the verdict line as the
failure message, the ``--privcheck-*`` options, markers per claim kind and method, and a verdict summary."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module", autouse=True)
def _warm_imports():
    """Import what the inner runs use once: pytester's in-process runs drop the modules they import."""
    import tempfile
    from pathlib import Path

    from privcheck.claimsfile import load_user_file, unload_user_file
    from privcheck.runner import RunOptions, run, select

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "warm.toml"
        path.write_text(TOML.replace('id = "pt.', 'id = "warm.'), encoding="utf-8")
        run(select(load_user_file(str(path))), RunOptions(samples=20, jobs=1))
        unload_user_file(str(path))
        formulas = Path(tmp) / "warm.py"
        formulas.write_text(FORMULAS.replace('"pf.', '"warm.'), encoding="utf-8")
        run(select(load_user_file(str(formulas))), RunOptions(jobs=1))
        unload_user_file(str(formulas))
    import hypothesis  # noqa: F401  (its pytest plugin imports it at the end of every inner run)

    import privcheck.reports.text  # noqa: F401


TOML = """
[[privacy]]
id = "pt.krr"
mechanism = "de"
params = { m = 3, eps = 1.0 }
samples = 2000

[[privacy]]
id = "pt.krr.strong"
mechanism = "de"
params = { m = 3, eps = 1.0 }
eps = 0.7
monte_carlo = false

[[privacy]]
id = "pt.krr.mc"
mechanism = "de"
params = { m = 3, eps = 1.0 }
exact = false
samples = 5000

[[privacy]]
id = "pt.duchi.mc"
mechanism = "duchi"
params = { eps = 1.0 }
exact = false
samples = 2000

[[accountant]]
id = "pt.gdp"
query = "gdp.eps"
params = { mu = 1.0, delta = 1e-5 }
bound = 4.38
"""

FORMULAS = """
from proofs.formula import formula_claim

formula_claim("pf.var", derived="p - p**2", printed="p*(1 - p)", assumptions={"p": "(0,1)"}, expect="holds",
              source="notes")
formula_claim("pf.atan", derived="atan(x) + atan(1/x)", printed="pi/2", assumptions={"x": "positive"},
              expect="holds", source="notes")
"""


def _lines_in_order(out: str, *needles: str) -> None:
    """Each needle appears in ``out``, in this order (plain substrings: claim output has [brackets])."""
    pos = 0
    for needle in needles:
        found = out.find(needle, pos)
        assert found >= 0, f"{needle!r} not found after position {pos} in:\n{out}"
        pos = found + len(needle)


def _records(pytester: pytest.Pytester, xml_name: str = "out.xml") -> dict:
    """The verdict records the items attached to their reports, read back from the JUnit XML."""
    root = ET.parse(pytester.path / xml_name).getroot()
    out = {}
    for case in root.iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") == "privcheck_record":
                rec = json.loads(prop.get("value"))
                out[rec["id"]] = rec
    return out


def test_claims_file_items_pass_fail_and_fail_with_the_verdict_line(pytester):
    pytester.makefile(".toml", privcheck_dp=TOML)
    res = pytester.runpytest("-p", "no:cacheprovider", "-v", "--junitxml=out.xml")
    res.assert_outcomes(passed=4, failed=1)
    out = res.stdout.str()
    for name in ("pt.krr PASSED", "pt.krr.strong FAILED", "pt.krr.mc PASSED", "pt.gdp PASSED"):
        assert f"privcheck_dp.toml::{name}" in out
    # the failure is the verdict line: verdict, id, method, the expectation, claimed → measured; no traceback
    _lines_in_order(
        out, "_ pt.krr.strong [exact] _", "_\nrefuted pt.krr.strong [exact], expected holds: claimed 0.7 → measured 1\n"
    )
    assert "Traceback" not in out and "runtest" not in out and "ClaimFailed" not in out
    # the terminal summary section
    _lines_in_order(
        out,
        "= privcheck =",
        "\nprivcheck: 5 checks of 5 claims: 4 holds, 1 refuted; expectations: 4 met, 1 not met\n",
        "  refuted pt.krr.strong [exact], expected holds: claimed 0.7",
    )
    recs = _records(pytester)
    assert recs["pt.krr"]["method"] == "exact" and recs["pt.krr.mc"]["samples"] == 5000 and recs["pt.krr"]["seed"] == 0


def test_items_have_the_verdicts_of_privcheck_verify_file(pytester):
    """The file's Monte Carlo checks are corrected together, as `privcheck verify --file`: same records."""
    from privcheck.claimsfile import load_user_file, unload_user_file
    from privcheck.runner import RunOptions, run, select

    path = pytester.makefile(".toml", privcheck_dp=TOML)
    pytester.runpytest("-p", "no:cacheprovider", "--junitxml=out.xml", "--privcheck-seed", "3")
    items = _records(pytester)
    try:
        ids = load_user_file(str(path))
        direct = {r.id: r.to_dict() for r in run(select(ids), RunOptions(seed=3, jobs=1))}
    finally:
        unload_user_file(str(path))
    mc = direct["pt.krr.mc"]
    assert items["pt.krr.mc"]["seed"] == 3 and mc["details"]["run_confidence"]["random_checks"] == 2
    for cid, rec in direct.items():
        assert (items[cid]["verdict"], items[cid]["measured"]) == (rec["verdict"], rec["measured"]), cid
        assert items[cid]["details"].get("confidence") == rec["details"].get("confidence"), cid


def test_quick_and_samples_options_and_their_ini_defaults(pytester):
    pytester.makefile(".toml", privcheck_dp=TOML)
    pytester.runpytest("-p", "no:cacheprovider", "--junitxml=q.xml", "--privcheck-quick")
    quick = _records(pytester, "q.xml")["pt.krr.mc"]
    assert quick["samples"] == 1000 and quick["details"]["quick"] is True
    pytester.runpytest("-p", "no:cacheprovider", "--junitxml=s.xml", "--privcheck-samples", "700")
    assert _records(pytester, "s.xml")["pt.krr.mc"]["samples"] == 700
    pytester.makeini("[pytest]\nprivcheck_seed = 5\nprivcheck_samples = 600\n")
    rec = _records_after(pytester, "i.xml")["pt.krr.mc"]
    assert (rec["seed"], rec["samples"]) == (5, 600)
    bad = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "5")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*privcheck: samples must be an integer >= 20*"])


def _records_after(pytester, name):
    pytester.runpytest("-p", "no:cacheprovider", f"--junitxml={name}")
    return _records(pytester, name)


def test_markers_select_kinds_and_methods_and_python_files_via_ini(pytester):
    pytester.makefile(".toml", privcheck_dp=TOML)
    pytester.makepyfile(privcheck_formulas=FORMULAS)
    pytester.makeini("[pytest]\nprivcheck_files = privcheck_*.toml privcheck_*.py\n")
    res = pytester.runpytest("-p", "no:cacheprovider", "-m", "privcheck_formula", "-v")
    res.assert_outcomes(passed=1, failed=1, deselected=5)
    # an inconclusive formula fails with its reason, not only "inconclusive, expected holds"
    _lines_in_order(
        res.stdout.str(), "\ninconclusive pf.atan [symbolic], expected holds: claimed pi/2", "; sympy could not decide"
    )
    res = pytester.runpytest(
        "-p", "no:cacheprovider", "-m", "privcheck and not privcheck_mc and not privcheck_symbolic"
    )
    res.assert_outcomes(passed=2, failed=1, deselected=4)
    res = pytester.runpytest("-p", "no:cacheprovider", "-m", "privcheck_bound", "--strict-markers")
    res.assert_outcomes(passed=1, deselected=6)


def test_default_patterns_and_explicit_paths(pytester):
    pytester.makefile(".toml", claims=TOML)  # not privcheck_*.toml: not collected by default ...
    res = pytester.runpytest("-p", "no:cacheprovider")
    assert res.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    res = pytester.runpytest("-p", "no:cacheprovider", "claims.toml", "-k", "pt.gdp")  # ... but when named
    res.assert_outcomes(passed=1, deselected=4)


def test_a_bad_claims_file_is_one_collection_error_line(pytester):
    pytester.makefile(".toml", privcheck_bad='[[privacy]]\nid = "pt.bad"\nmechanism = "de"\nmu = -1.0\n')
    res = pytester.runpytest("-p", "no:cacheprovider")
    assert res.ret == pytest.ExitCode.INTERRUPTED
    _lines_in_order(res.stdout.str(), "privcheck_bad.toml: [[privacy]] #1 (id 'pt.bad'): mu must be a number > 0")
    assert "Traceback" not in res.stdout.str()


def test_the_entry_point_loads_the_plugin_in_a_fresh_process(pytester):
    pytester.makefile(".toml", privcheck_dp=TOML)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "-k", "pt.gdp or pt.krr.strong")
    res.assert_outcomes(passed=1, failed=1, deselected=3)


def test_assert_claims_message_has_the_reason(tmp_path):
    from privcheck.pytest_plugin import ClaimsMismatch, assert_claims

    path = tmp_path / "f.py"
    path.write_text(textwrap.dedent(FORMULAS), encoding="utf-8")
    with pytest.raises(ClaimsMismatch) as exc:
        assert_claims(path)
    msg = str(exc.value)
    assert "inconclusive pf.atan [symbolic], expected holds" in msg and "sympy could not decide" in msg
    assert "pf.var" not in msg
