"""CLI contract of `privcheck audit` and `privcheck list` (exit codes, JSON fields, one-line errors)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from privcheck.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_audit_json_fields_and_exact_value():
    r = run("audit", "de", "--param", "m=4", "--param", "eps=1.5", "--samples", "20000", "--json", "-")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    for key in ("eps_claimed", "eps_exact", "eps_lower", "confidence", "samples", "seconds", "verdict"):
        assert key in data
    assert data["eps_exact"] == pytest.approx(1.5, rel=1e-12)
    assert data["eps_lower"] < 1.5
    assert data["verdict"] == "holds"


def test_audit_broken_mechanism_is_refuted():
    r = run(
        "audit", "de", "--param", "m=4", "--param", "eps=1", "--param", "p=0.9", "--samples", "20000", "--json", "-"
    )
    assert r.exit_code == 1, r.output  # a refuted audit fails like a failing test (CI can gate on it)
    assert json.loads(r.output)["verdict"] == "refuted"


def test_audit_eps_option_overrides_nominal():
    r = run("audit", "de", "--param", "m=2", "--param", "eps=1", "--eps", "0.5", "--no-mc", "--json", "-")
    data = json.loads(r.output)
    assert data["eps_claimed"] == 0.5 and data["verdict"] == "refuted" and data["eps_lower"] is None


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("audit", "nosuch"), "unknown mechanism 'nosuch'"),
        (("audit", "de", "--param", "colour=3"), "unknown parameter 'colour'"),
        (("audit", "de", "--param", "eps=-1"), "eps must be"),
        (("audit", "de", "--param", "eps=nan"), "finite number"),
        (("audit", "de", "--param", "m"), "NAME=VALUE"),
        (("audit", "de", "--samples", "0"), "--samples"),
        (("verify", "no.such.claim"), "no claim matches"),
        (("verify", "--samples", "0"), "--samples"),
        (("verify", "--method", "guess"), "unknown method"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fragment):
    r = run(*args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.strip().splitlines() if ln]
    assert len(lines) == 1 and fragment in lines[0], r.output
    assert "Traceback" not in r.output


def test_list_json_has_claims_and_mechanisms():
    r = run("list", "--json", "-")
    assert r.exit_code == 0
    data = json.loads(r.output)
    ids = {c["id"] for c in data["claims"]}
    assert {"fedsel.pe.ldp", "biswas.de.ldp", "seif.table2"} <= ids
    assert "de" in {m["name"] for m in data["mechanisms"]}


def test_dp_sgd_delta_without_eps_certifies_eps_at_that_delta():
    """`audit dp-sgd --delta D` (own accountant's curve claim): --delta is used, not ignored — the result
    carries delta_claimed = D and the certified eps lower bound at D, which never exceeds the accountant's
    certified eps(D); without --delta there is none. A δ outside [0, 1) is one line, exit 2."""
    from estimators.registry import mechanism

    r = run("audit", "dp-sgd", "--delta", "1e-5", "--samples", "4000", "--json", "-")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["delta_claimed"] == 1e-5 and data["eps_claimed"] is None and data["accountant"]
    eps_upper = mechanism("dp-sgd").accountant().epsilon(1e-5).upper
    assert 0 < data["eps_lower_at_delta"] <= eps_upper
    plain = json.loads(run("audit", "dp-sgd", "--samples", "4000", "--json", "-").output)
    assert plain["eps_lower_at_delta"] is None and plain["delta_claimed"] is None
    for args, fragment in (
        (("--delta", "2"), "delta must be a probability in [0, 1)"),
        (("--mu", "1", "--eps", "1"), "drop --eps"),
    ):
        bad = run("audit", "dp-sgd", *args)
        lines = [ln for ln in bad.output.strip().splitlines() if ln]
        assert bad.exit_code == 2 and len(lines) == 1 and fragment in lines[0], bad.output
