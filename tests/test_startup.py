"""Light command-line paths do not import scipy (a fresh interpreter, then sys.modules).

No timing is asserted (timings are noisy); benchmarks/bench_cli.py measures the start-up ratios.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules_after(code: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return set(out.stdout.strip().splitlines()[-1].split())


_CLI = "import sys\nfrom privcheck.cli import main\nsys.argv = ['privcheck'] + {args!r}\ntry:\n    main()\nexcept SystemExit:\n    pass\n"


@pytest.mark.parametrize(
    "args",
    [["audit", "de", "--samples", "2000"], ["budget", "gdp", "--sigma", "10", "--steps", "100", "--delta", "1e-5"]],
)
def test_light_cli_paths_do_not_import_scipy(args):
    mods = _modules_after(_CLI.format(args=args))
    assert "privcheck.cli" in mods
    assert not any(m == "scipy" or m.startswith("scipy.") for m in mods), sorted(m for m in mods if "scipy" in m)[:5]


def test_interval_routine_does_not_import_scipy():
    mods = _modules_after("from privcheck.base.stats import clopper_pearson; clopper_pearson(3, 10, 0.05)")
    assert "privcheck.base.betainc" in mods and "scipy" not in mods


def test_verify_one_claim_imports_only_its_modules():
    # an LDP claim needs privcheck.catalogue.ldp, not the symbolic or estimator modules (sympy, statsmodels)
    mods = _modules_after(_CLI.format(args=["verify", "fedsel.pe.ldp", "--method", "exact", "-q"]))
    assert "privcheck.catalogue.ldp" in mods
    assert not {"sympy", "statsmodels", "privcheck.catalogue.estimation"} & mods
    assert not [m for m in mods if m.startswith("proofs.")]  # the package proofs alone imports nothing


def test_verify_a_symbolic_claim_imports_only_its_proof_module():
    # gdp.conversion has a symbolic check in proofs.gdp: the other papers' proof modules stay unloaded
    mods = _modules_after(_CLI.format(args=["verify", "gdp.conversion", "--method", "exact", "-q"]))
    assert "privcheck.catalogue.accounting" in mods
    assert not {"proofs.fedsel", "proofs.sqsgd", "proofs.biswas", "proofs.seif"} & mods


def test_tiny_audit_imports_only_its_mechanism_module():
    mods = _modules_after(_CLI.format(args=["audit", "de", "--samples", "200"]))
    assert "estimators.direct_encoding" in mods
    assert (
        not {"estimators.quantization", "estimators.oracles", "rich", "sympy", "statsmodels", "privcheck.catalogue"}
        & mods
    )


#: what a tiny CLI audit of a built-in closed-form mechanism must not load (issue 33: start-up ≤ 1.5× numpy)
_NOT_IN_A_TINY_AUDIT = (
    "scipy",
    "sympy",
    "mpmath",  # k-RR's exact ε runs in decimal; mpmath costs ~0.4× `import numpy`
    "dask",
    "distributed",
    "hypothesis",
    "statsmodels",
    "rich",
    "privcheck.base.exact",  # the mpmath routes (ExactEpsilon lives in privcheck.base.exact_eps)
    "privcheck.auditor.sequential",  # only for samples="auto"
    "privcheck.catalogue",
    "privcheck.claim_index",
    "concurrent.futures",  # a map of few draws runs in the calling thread
    "json",  # only for --json (privcheck.cli.emit.write_json imports it)
    "privcheck.auditor.family",  # only for family= / --family
)


@pytest.mark.parametrize("exact", [[], ["--no-exact"]])
def test_tiny_audit_imports_no_heavy_module(exact):
    mods = _modules_after(_CLI.format(args=["audit", "de", "--samples", "2000", *exact]))
    assert "privcheck.auditor.eps_audit" in mods and ("estimators.direct_encoding" in mods)
    loaded = sorted(m for m in mods if any(m == p or m.startswith(p + ".") for p in _NOT_IN_A_TINY_AUDIT))
    assert not loaded, loaded


def test_a_claims_file_imports_only_the_accountant_modules_it_queries(tmp_path):
    f = tmp_path / "gdp_only.toml"
    f.write_text(
        '[[accountant]]\nid = "t.gdp"\nquery = "gdp.eps"\nparams = { mu = 1.0, delta = 1e-5 }\n'
        'bound = 4.38\nrelation = "<="\n'
    )
    mods = _modules_after(_CLI.format(args=["verify", "--file", str(f), "-q"]))
    assert "accountants.gdp" in mods
    assert not {"accountants.wireless", "accountants.planners", "proofs.gdp", "sympy"} & mods


def test_tiny_audit_does_not_load_the_pools_or_the_catalogue():
    # one chunk runs inline: no process pool, no thread pool module, no claim registry (issue 23)
    mods = _modules_after(_CLI.format(args=["audit", "de", "--samples", "2000", "--jobs", "1"]))
    assert "privcheck.base.scheduler" in mods
    assert not {"multiprocessing", "concurrent.futures.process", "privcheck.claims", "statsmodels"} & mods


def test_verify_gdp_conversion_does_not_import_the_other_accountants():
    # the numeric check itself needs accountants.gdp, mpmath and autodp (which loads scipy.stats): not the PLD
    # accountant (scipy.signal), the wireless, composition or amplification modules
    mods = _modules_after(_CLI.format(args=["verify", "gdp.conversion", "--method", "numeric", "-q"]))
    assert {"accountants.gdp", "autodp"} <= mods
    assert (
        not {
            "accountants.pld",
            "accountants.wireless",
            "accountants.composition",
            "accountants.amplification",
            "scipy.signal",
            "statsmodels",
            "sympy",
            "proofs.formula",
        }
        & mods
    )  # proofs.gdp registers without sympy


def test_verify_gdp_conversion_symbolic_does_not_import_scipy():
    # loading privcheck.catalogue.accounting (where the claim's checks live) imports no scipy module at all
    mods = _modules_after(_CLI.format(args=["verify", "gdp.conversion", "--method", "symbolic", "-q"]))
    assert {"privcheck.catalogue.accounting", "proofs.gdp"} <= mods
    assert not [m for m in mods if m == "scipy" or m.startswith("scipy.")]


def test_moments_module_loads_scipy_only_when_an_interval_is_computed():
    mods = _modules_after("import privcheck.base.moments, privcheck.estimator_check")
    assert not {"scipy", "statsmodels"} & mods
