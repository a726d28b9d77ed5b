"""`privcheck audit MODULE:FUNCTION` and `[[privacy]] sampler = ...` reach user code."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from privcheck.auditor.user_code import load_reference, parse_literal, parse_pair
from privcheck.base.errors import PrivcheckUsageError
from privcheck.claimsfile import load_user_file, unload_user_file
from privcheck.cli import main

USER_MODULE = """
import math
import numpy as np

P = math.e / (1 + math.e)          # randomised response at eps = 1


def rr(x, n, rng):
    return np.where(rng.random(n) < P, x, 1 - x)


def rr_one(x, rng):
    return "yes" if (rng.random() < P) == bool(x) else "no"


def leaky(x, n, rng):               # keeps the true bit with probability 0.95
    return np.where(rng.random(n) < 0.95, x, 1 - x)


def geometric(x, n, rng):           # x + two-sided geometric noise at eps = 1 per unit
    a = math.exp(-1.0)
    return np.clip(x + rng.geometric(1 - a, n) - rng.geometric(1 - a, n), -20, 25)


def first(outputs):                 # a view
    return np.asarray(outputs)[:, 0]


def pairs_out(x, n, rng):
    return np.column_stack([rr(x, n, rng), rng.integers(0, 2, n)])


def broken(x, n, rng):
    raise RuntimeError("boom")


def broken_at_one(x, n, rng):
    if x == 1:
        raise KeyError(x)
    return np.zeros(n)


def objects(x, n, rng):
    return [object() for _ in range(n)]


NOT_CALLABLE = 3
"""


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    name = f"usermech_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(USER_MODULE)
    (tmp_path / "fails_on_import.py").write_text("raise ImportError('missing dependency xyz')\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path, name


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_literals_and_pairs_parse_safely():
    assert parse_literal("0") == 0 and parse_literal("1.5") == 1.5 and parse_literal("(1, 2)") == (1, 2)
    assert parse_literal("yes") == "yes" and parse_literal("__import__('os')") == "__import__('os')"
    assert (
        parse_pair("0,1") == (0, 1)
        and parse_pair("a,b") == ("a", "b")
        and parse_pair("(0, 1),(1, 1)") == ((0, 1), (1, 1))
    )
    with pytest.raises(PrivcheckUsageError, match="two inputs"):
        parse_pair("0,1,2")


def test_audit_user_sampler_end_to_end(user_dir):
    _, mod = user_dir
    r = run("audit", f"{mod}:rr", "--input", "0", "--input", "1", "--eps", "1", "--samples", "6000", "--json", "-")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["mechanism"] == f"{mod}:rr" and data["verdict"] == "holds" and 0.5 < data["eps_lower"] <= 1
    assert data["details"]["draws_per_second"] > 0


def test_audit_user_per_sample_and_leak(user_dir):
    _, mod = user_dir
    r = run(
        "audit",
        f"{mod}:rr_one",
        "--per-sample",
        "--input",
        "0",
        "--input",
        "1",
        "--eps",
        "1",
        "--samples",
        "4000",
        "--json",
        "-",
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["event"] in ("{out='yes'}", "{out='no'}")
    r = run("audit", f"{mod}:leaky", "--input", "0", "--input", "1", "--eps", "1", "--samples", "4000", "--json", "-")
    assert json.loads(r.output)["verdict"] == "refuted"


def test_audit_user_pairs_and_view(user_dir):
    _, mod = user_dir
    r = run(
        "audit",
        f"{mod}:geometric",
        "--input",
        "0",
        "--input",
        "1",
        "--input",
        "5",
        "--eps",
        "1",
        "--samples",
        "6000",
        "--json",
        "-",
    )
    assert json.loads(r.output)["verdict"] == "refuted"
    r = run(
        "audit",
        f"{mod}:geometric",
        "--input",
        "0",
        "--input",
        "1",
        "--input",
        "5",
        "--pair",
        "0,1",
        "--eps",
        "1",
        "--samples",
        "6000",
        "--json",
        "-",
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["verdict"] == "holds"
    r = run(
        "audit",
        f"{mod}:pairs_out",
        "--view",
        f"{mod}:first",
        "--input",
        "0",
        "--input",
        "1",
        "--eps",
        "1",
        "--samples",
        "4000",
        "--json",
        "-",
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["event"] in ("{out=0}", "{out=1}")  # one column after the view


def test_audit_user_delta_bound(user_dir):
    _, mod = user_dir
    r = run(
        "audit",
        f"{mod}:leaky",
        "--input",
        "0",
        "--input",
        "1",
        "--eps",
        "1",
        "--delta",
        "0.01",
        "--samples",
        "4000",
        "--json",
        "-",
    )
    assert r.exit_code == 1, r.output  # refuted: audit exits 1
    data = json.loads(r.output)
    # leaky keeps the bit w.p. 0.95: δ(1) >= 0.95 − e·0.05 ≈ 0.81 for the event {out = x}
    assert data["delta_claimed"] == 0.01 and data["delta_lower"] > 0.7 and data["verdict"] == "refuted"


def test_audit_user_file_reference(user_dir):
    path, mod = user_dir
    r = run("audit", f"{mod}.py:rr", "--input", "0", "--input", "1", "--eps", "1", "--samples", "2000", "--json", "-")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("MOD:nope", "--input", "0", "--input", "1", "--eps", "1"), "has no attribute 'nope'"),
        (("MOD:NOT_CALLABLE", "--input", "0", "--input", "1", "--eps", "1"), "not a callable"),
        (
            ("no_such_module_xyz:f", "--input", "0", "--input", "1", "--eps", "1"),
            "cannot import module 'no_such_module_xyz'",
        ),
        (("fails_on_import:f", "--input", "0", "--input", "1", "--eps", "1"), "ImportError: missing dependency xyz"),
        (("MOD:rr", "--input", "0", "--eps", "1"), "at least two --input"),
        (("MOD:rr", "--input", "0", "--input", "1"), "--eps"),
        (("MOD:rr_one", "--input", "0", "--input", "1", "--eps", "1"), "add --per-sample"),
        (("MOD:broken", "--input", "0", "--input", "1", "--eps", "1"), "RuntimeError: boom"),
        (("MOD:objects", "--input", "0", "--input", "1", "--eps", "1"), "cannot be compared"),
        (("MOD:broken_at_one", "--input", "0", "--input", "1", "--eps", "1"), "at input 1 failed: KeyError"),
        (("MOD:rr", "--input", "0", "--input", "1", "--eps", "1", "--pair", "0,7"), "not one of the inputs"),
        (("MOD:rr", "--input", "0", "--input", "1", "--eps", "1", "--param", "m=3"), "--param"),
        (("MOD:rr", "--input", "0", "--input", "1", "--eps", "1", "--view", "MOD:missing"), "no attribute 'missing'"),
        (("MOD:rr:x", "--input", "0", "--input", "1", "--eps", "1"), "MODULE:FUNCTION"),
        (("de", "--input", "0"), "--input is for user code"),
    ],
)
def test_bad_user_code_is_one_line_and_exit_2(user_dir, args, fragment):
    _, mod = user_dir
    args = [a.replace("MOD", mod) for a in args]
    r = run("audit", *args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.strip().splitlines() if ln]
    assert len(lines) == 1 and fragment in lines[0], r.output
    assert "Traceback" not in r.output


def test_load_reference_dotted_attribute(user_dir):
    _, mod = user_dir
    assert callable(load_reference(f"{mod}:np.random.default_rng"))


# --------------------------------------------------------------------------- TOML
def _toml(path, text):
    p = path / "claims.toml"
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_toml_sampler_entries(user_dir):
    path, mod = user_dir
    f = _toml(
        path,
        f'''
        [[privacy]]
        id = "user.rr"
        sampler = "{mod}:rr"
        inputs = [0, 1]
        eps = 1.0
        samples = 4000

        [[privacy]]
        id = "user.rr_one"
        sampler = "{mod}.py:rr_one"
        per_sample = true
        pairs = [[0, 1]]
        eps = 0.5
        samples = 4000
        expect = "refuted"

        [[privacy]]
        id = "user.view"
        sampler = "{mod}:pairs_out"
        view = "{mod}:first"
        inputs = [0, 1]
        eps = 1.0
        samples = 4000
    ''',
    )
    try:
        import numpy as np

        from privcheck.claims import CATALOGUE, RunContext

        ids = load_user_file(f)
        assert ids == ["user.rr", "user.rr_one", "user.view"]
        ctx = RunContext(seed_seq=np.random.SeedSequence(0), confidence=0.95, jobs=1)
        outs = {cid: CATALOGUE.checks[cid][0].fn(ctx) for cid in ids}
        assert outs["user.rr"].verdict == "holds" and outs["user.rr_one"].verdict == "refuted"
        assert outs["user.view"].verdict == "holds"
        assert outs["user.rr"].details["sampler"] == f"{mod}:rr"
    finally:
        unload_user_file(f)


@pytest.mark.parametrize(
    "body, fragment",
    [
        ('sampler = "MOD:nope"\ninputs = [0, 1]\neps = 1.0', "has no attribute 'nope'"),
        ('sampler = "MOD:rr"\ninputs = [0, 1]', "missing required key 'eps'"),
        ('sampler = "MOD:rr"\nmechanism = "de"\ninputs = [0, 1]\neps = 1.0', "exactly one of"),
        ('sampler = "MOD:rr"\ninputs = [0]\neps = 1.0', "at least two"),
        ('sampler = "MOD:rr"\neps = 1.0', "inputs = [x0, x1, ...]"),
        ('sampler = "MOD:rr"\ninputs = [0, 1]\npairs = [[0, 2]]\neps = 1.0', "not one of the inputs"),
        ('sampler = "MOD:rr"\ninputs = [0, 1]\npairs = [0, 1]\neps = 1.0', "two-element arrays"),
        ('sampler = "MOD:rr_one"\ninputs = [0, 1]\neps = 1.0', "add --per-sample"),
        ('sampler = "MOD:rr"\ninputs = [0, 1]\neps = 1.0\nparams = {m = 2}', "for built-in mechanisms"),
        ('mechanism = "de"\ninputs = [0, 1]', "for user code"),
        ('sampler = "MOD:rr"\ninputs = [0, 1]\neps = 1.0\nseed_global = true', "needs per_sample"),
    ],
)
def test_toml_bad_sampler_entries_are_one_line(user_dir, body, fragment):
    path, mod = user_dir
    f = _toml(path, '[[privacy]]\nid = "user.bad"\n' + body.replace("MOD", mod) + "\n")
    with pytest.raises(PrivcheckUsageError) as err:
        load_user_file(f)
    assert fragment in str(err.value) and "\n" not in str(err.value) and "user.bad" in str(err.value)


def test_cli_verify_runs_toml_sampler_entries(user_dir):
    path, mod = user_dir
    f = _toml(
        path,
        f'''
        [[privacy]]
        id = "user.cli.rr"
        sampler = "{mod}:rr"
        inputs = [0, 1]
        eps = 1.0
        samples = 2000
    ''',
    )
    try:
        out = path / "out.json"
        r = run("verify", "--file", f, "--json", str(out))
        assert r.exit_code == 0, r.output
        recs = json.loads(out.read_text())
        assert [(x["id"], x["verdict"]) for x in recs] == [("user.cli.rr", "holds")]
    finally:
        unload_user_file(f)
