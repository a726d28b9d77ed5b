"""User claim files: TOML entries run with the expected verdicts; every kind of bad input is one clear error."""

from __future__ import annotations

import itertools
import textwrap

import pytest

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import CATALOGUE
from privcheck.claimsfile import load_user_file, query_names, unload_user_file
from privcheck.runner import RunOptions, run, select

_counter = itertools.count()


@pytest.fixture
def write(tmp_path):
    """Write a claims file with a unique name; unload its claims afterwards."""
    paths = []

    def _write(text: str, suffix: str = ".toml") -> str:
        p = tmp_path / f"claims{next(_counter)}{suffix}"
        p.write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(str(p))
        return str(p)

    yield _write
    for p in paths:
        unload_user_file(p)


VALID = """
[[privacy]]
id = "t.krr"
source = "notes eq. 1"
mechanism = "de"
params = { m = 3, eps = 1.0 }
samples = 2000

[[privacy]]
id = "t.krr.too_strong"
mechanism = "de"
params = { m = 3, eps = 1.0 }
eps = 0.7
monte_carlo = false
expect = "refuted"

[[privacy]]
id = "t.duchi.mc"
mechanism = "duchi"
params = { eps = 1.0 }
exact = false
samples = 2000

[[accountant]]
id = "t.gdp.eps"
query = "gdp.eps"
params = { mu = 1.0, delta = 1e-5 }
bound = 4.38

[[accountant]]
id = "t.drv"
query = "compose.drv"
params = { eps = 0.1, steps = 100, delta_tilde = 1e-5 }
bound = 5.0
expect = "refuted"

[[accountant]]
id = "t.budget.delta"
query = "gdp.budget"
params = { mus = [0.5, 0.5], steps = 2, eps = 1.0 }
output = "delta"
bound = 0.5
relation = "<="

[[accountant]]
id = "t.lemma1.equal"
query = "wireless.lemma1"
params = { K = 1000, c = 2.0, delta_prime = 1e-4 }
bound = 0.03719556204602298
relation = "="
rel_tol = 1e-9

[[estimator]]
id = "t.pm.var"
estimator = "output"
mechanism = "pm"
params = { eps = 1.0 }
scenario = { x = 0.5 }
claimed_variance = 4.0675
replicates = 4000

[[estimator]]
id = "t.chat.wrong_var"
estimator = "c_hat"
scenario = { n = 1000, n_i = 100, pi = 0.5, eps = 1.0, m = 10 }
claimed_variance = 4000.0
replicates = 4000
expect = "refuted"
"""


def _run(ids):
    return {r.id: r for r in run(select(ids), RunOptions(seed=0, jobs=1))}


def test_valid_file_registers_and_runs(write):
    path = write(VALID)
    ids = load_user_file(path)
    assert ids == [
        "t.krr",
        "t.krr.too_strong",
        "t.duchi.mc",
        "t.gdp.eps",
        "t.drv",
        "t.budget.delta",
        "t.lemma1.equal",
        "t.pm.var",
        "t.chat.wrong_var",
    ]
    assert load_user_file(path) == ids  # loading twice registers nothing new
    claim = CATALOGUE.claims["t.krr"]
    assert claim.source.endswith("notes eq. 1") and claim.kind == "privacy"
    recs = _run(ids)
    verdicts = {i: r.verdict for i, r in recs.items()}
    assert verdicts == {
        "t.krr": "holds",
        "t.krr.too_strong": "refuted",
        "t.duchi.mc": "holds",
        "t.gdp.eps": "holds",
        "t.drv": "refuted",
        "t.budget.delta": "holds",
        "t.lemma1.equal": "holds",
        "t.pm.var": "holds",
        "t.chat.wrong_var": "refuted",
    }
    assert all(r.met_expectation for r in recs.values())
    assert recs["t.krr"].method == "exact" and recs["t.duchi.mc"].method == "mc"
    assert recs["t.krr.too_strong"].measured == pytest.approx(1.0)
    assert recs["t.drv"].measured == pytest.approx(5.8502350929445575)
    assert recs["t.pm.var"].details["scenarios"][0]["components"]["variance"]["claimed"] == 4.0675
    # the exact variance of c_hat (8291.66 by count moments) is far from the claimed 4000
    assert recs["t.chat.wrong_var"].details["scenarios"][0]["components"]["variance"]["exact"] == pytest.approx(
        8291.660116821962
    )


def test_unmet_expectation_is_reported(write):
    path = write("""
    [[accountant]]
    id = "t.unmet"
    query = "gdp.delta"
    params = { mu = 1.0, eps = 1.0 }
    bound = 0.01
    expect = "holds"
    """)
    rec = _run(load_user_file(path))["t.unmet"]
    assert rec.verdict == "refuted" and rec.expect == "holds" and not rec.met_expectation


def test_python_file_with_formula_and_check(write):
    path = write(
        """
    from privcheck import Claim, Outcome, check
    from privcheck.claims import CATALOGUE
    from proofs.formula import formula_claim

    formula_claim("t.py.rr.var", derived="p - p**2", printed="p*(1 - p)", assumptions={"p": "(0,1)"},
                  expect="holds", source="notes")
    CATALOGUE.add_claim(Claim("t.py.own", "notes", "eq. 2", "bound", "2 + 2 = 4", ("numeric",)))

    @check("t.py.own", "numeric")
    def _own(ctx):
        return Outcome("holds" if 2 + 2 == 4 else "refuted", claimed=4, measured=2 + 2)
    """,
        suffix=".py",
    )
    ids = load_user_file(path)
    assert ids == ["t.py.rr.var", "t.py.own"]
    recs = _run(ids)
    assert recs["t.py.rr.var"].verdict == "holds" and recs["t.py.rr.var"].expect == "holds"
    assert recs["t.py.own"].verdict == "holds"


BAD = [
    ("[[privacy]\nid = 1", "malformed TOML"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "nope"', "unknown mechanism 'nope'"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\ncolour = 1', "unknown key 'colour'"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\nparams = { m = 2, eps = nan }', "params.eps must be a finite"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\nparams = { m = 2, eps = -1.0 }', "eps"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\nsamples = 0', "samples must be an integer >= 20"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\neps = nan', "eps must be a finite number"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\neps = "one"', "eps must be a number"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\nexpect = "passes"', "expect must be one of"),
    ('[[privacy]]\nmechanism = "de"', "missing required key 'id'"),
    ('[[privacy]]\nid = "bad id"\nmechanism = "de"', "id must contain only"),
    ('[[privacy]]\nid = "fedsel.pe.ldp"\nmechanism = "de"', "already a claim of the catalogue"),
    ('[[privacy]]\nid = "a.b"\nmechanism = "de"\n[[privacy]]\nid = "a.b"\nmechanism = "de"', "used twice"),
    (
        '[[privacy]]\nid = "a.b"\nmechanism = "pm"\nparams = { eps = 1.0 }\nexact = false\nmonte_carlo = false',
        "nothing to run",
    ),
    ('[[privcy]]\nid = "a.b"', "unknown top-level key 'privcy'"),
    ("privacy = 3", "must be an array of tables"),
    ('[[accountant]]\nid = "a.b"\nquery = "gdp.nope"\nbound = 1.0', "unknown query 'gdp.nope'"),
    (
        '[[accountant]]\nid = "a.b"\nquery = "gdp.eps"\nparams = { mu = -1.0, delta = 1e-5 }\nbound = 1.0',
        "params.mu must be >= 0",
    ),
    (
        '[[accountant]]\nid = "a.b"\nquery = "gdp.eps"\nparams = { mu = 1.0, delta = 2.0 }\nbound = 1.0',
        "delta must be in (0, 1)",
    ),
    (
        '[[accountant]]\nid = "a.b"\nquery = "gdp.eps"\nparams = { sigma = 1.0 }\nbound = 1.0',
        "unknown parameter 'sigma'",
    ),
    (
        '[[accountant]]\nid = "a.b"\nquery = "gdp.eps"\nparams = { mu = 1.0, delta = 1e-5 }\nbound = 1.0\n'
        'relation = "<"',
        "relation must be one of",
    ),
    (
        '[[accountant]]\nid = "a.b"\nquery = "gdp.eps"\nparams = { mu = 1.0, delta = 1e-5 }',
        "missing required key 'bound'",
    ),
    (
        '[[accountant]]\nid = "a.b"\nquery = "compose.drv"\nparams = { eps = 1.0, steps = 2, delta_tilde = 1e-5 }\n'
        'bound = 1.0\noutput = "colour"',
        "no output 'colour'",
    ),
    ('[[estimator]]\nid = "a.b"\nestimator = "mean"\nscenario = { x = 1 }', "unknown estimator 'mean'"),
    (
        '[[estimator]]\nid = "a.b"\nestimator = "output"\nmechanism = "pm"\nparams = { eps = 1.0 }\n'
        "scenario = { x = 5.0 }",
        "t must be in [-1, 1]",
    ),
    (
        '[[estimator]]\nid = "a.b"\nestimator = "output"\nmechanism = "pm-multidim"\nparams = { d = 3, eps = 1.0 }\n'
        "scenario = { x = 0.5 }",
        "t must have shape",
    ),
    (
        '[[estimator]]\nid = "a.b"\nestimator = "c_hat"\nscenario = { n = 10, n_i = 20, pi = 0.5, eps = 1.0, m = 4 }',
        "scenario.n_i must be an integer in [0, 10]",
    ),
    (
        '[[estimator]]\nid = "a.b"\nestimator = "c_hat"\nscenario = { n = 10, n_i = 2, pi = 0.5, eps = 1.0 }',
        "scenario needs 'm'",
    ),
    (
        '[[estimator]]\nid = "a.b"\nestimator = "c_hat"\nscenario = { n = 10, n_i = 2, pi = 0.5, eps = 1.0, m = 4 }\n'
        "replicates = 0",
        "replicates must be an integer >= 10",
    ),
    (
        '[[estimator]]\nid = "a.b"\nestimator = "c_hat"\nscenario = { n = 10, n_i = 2, pi = 0.5, eps = 1.0, m = 4 }\n'
        "claimed_variance = -1.0",
        "claimed_variance must be a positive",
    ),
    ("", "registers no claim"),
]


@pytest.mark.parametrize("text,needle", BAD)
def test_bad_toml_is_one_clear_line(write, text, needle):
    path = write(text)
    with pytest.raises(PrivcheckUsageError) as exc:
        load_user_file(path)
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith(path + ":")
    assert needle in msg, msg
    # nothing of an invalid file is registered
    assert "a.b" not in CATALOGUE.claims


def test_missing_file_and_bad_suffix(tmp_path, write):
    with pytest.raises(PrivcheckUsageError, match="no such file"):
        load_user_file(str(tmp_path / "nope.toml"))
    p = tmp_path / "claims.yaml"
    p.write_text("x: 1")
    with pytest.raises(PrivcheckUsageError, match="must end in .toml or .py"):
        load_user_file(str(p))
    with pytest.raises(PrivcheckUsageError, match="not a file"):
        load_user_file(str(tmp_path))


@pytest.mark.parametrize(
    "code,needle",
    [
        ("raise RuntimeError('broken\\nfile')", "RuntimeError: broken file"),
        ("def f(:\n    pass", "SyntaxError"),
        ("x = 1", "registers no claim"),
        (
            "from privcheck.claims import CATALOGUE, Claim\nCATALOGUE.add_claim(Claim('t.nocheck', 'n', '', 'bound', 's', ('numeric',)))",
            "has no check",
        ),
    ],
)
def test_bad_python_file(write, code, needle):
    path = write(code, suffix=".py")
    with pytest.raises(PrivcheckUsageError) as exc:
        load_user_file(path)
    assert needle in str(exc.value) and "\n" not in str(exc.value)
    CATALOGUE.claims.pop("t.nocheck", None)


def test_query_names_documented():
    import os

    example = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "claims.toml")
    text = open(example, encoding="utf-8").read()
    for name in query_names():
        assert name in text, name


def test_a_user_file_importing_builtin_modules_selects_only_its_own_checks():
    """examples/claims.py imports proofs.formula (which loads every proof module): with the lazy catalogue the
    built-in checks this registers must not be taken for the file's own (regression: 56 checks ran, not 3)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.argv[0] = 'privcheck'; from privcheck.cli import main; main()",
            "verify",
            "--file",
            "examples/claims.py",
            "--jobs",
            "1",
            "--json",
            "-",
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
    )
    import json

    ids = sorted({r["id"] for r in json.loads(out.stdout)})
    assert ids == ["example.py.bernoulli.typo", "example.py.bernoulli.variance", "example.py.rr.keep"], ids


def test_checks_registered_by_imported_builtin_modules_are_not_the_files(tmp_path):
    """A user file importing built-in check modules (here proofs.gdp and the accounting catalogue module, in a
    fresh interpreter) registers their checks too: the file's own claims are told apart by the module that
    registered each one (privcheck.claim_index.recording), whatever the modules' names."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    f = tmp_path / "mine.py"
    f.write_text(
        textwrap.dedent("""
        import proofs.gdp
        import privcheck.catalogue.accounting
        from proofs.formula import formula_claim

        formula_claim("mine.square", derived="(a + 1)**2", printed="a**2 + 2*a + 1", assumptions={"a": "real"},
                      expect="holds", source="notes", where="eq. 1")
    """)
    )
    code = (
        "import json, sys\nfrom privcheck.claim_index import load_claims\nload_claims()\n"
        "from privcheck.claimsfile import load_user_file\nprint(json.dumps(load_user_file(sys.argv[1])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(f)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["mine.square"]
