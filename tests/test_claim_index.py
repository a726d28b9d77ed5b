"""The claim index (privcheck/claim_index.py) equals what a full catalogue import registers, and a
lazy load of one claim registers the same checks for it as the full import (fresh interpreters)."""

from __future__ import annotations

import pytest
from subprocess_json import run_json

from privcheck.claim_index import indexed, modules_for
from privcheck.claim_index_data import INDEX


def _run(code: str) -> dict:
    return run_json(code, timeout=600)


_DUMP = (
    "import json\nfrom privcheck.claims import CATALOGUE\n"
    "print(json.dumps({{c: sorted(k.key for k in CATALOGUE.checks.get(c, [])) for c in {ids}}}))"
)


@pytest.fixture(scope="module")
def full():
    """The index built from a full import, and every claim's checks, in one fresh interpreter."""
    code = (
        "import json\nfrom privcheck.claim_index import build_index\nidx = build_index()\n"
        "from privcheck.claims import CATALOGUE\n"
        "print(json.dumps({'index': idx, 'checks': {c: sorted(k.key for k in v) for c, v in CATALOGUE.checks.items()},"
        " 'claims': sorted(CATALOGUE.claims)}))"
    )
    return _run(code)


def test_stored_index_equals_a_fresh_build(full):
    stored = {cid: list(mods) for cid, mods in INDEX.items()}
    assert stored == full["index"], "stale claim index: run python -m privcheck.claim_index --write"
    assert set(INDEX) == set(full["claims"])  # every claim is indexed


# one claim per group of modules (ldp, accounting + proofs, quantization, wireless_exact, estimation, peers)
@pytest.mark.parametrize(
    "cid",
    [
        "fedsel.pe.ldp",
        "gdp.conversion",
        "sqsgd.privquant.calibration",
        "seif.thm1.mechanism",
        "biswas.gde.variance",
        "peers.dp_accounting.pld",
    ],
)
def test_lazy_load_registers_the_same_checks(full, cid):
    if cid not in INDEX:
        pytest.skip(f"{cid} is not in this catalogue")
    got = _run(f"from privcheck.runner import load_catalogue\nload_catalogue([{cid!r}])\n" + _DUMP.format(ids=[cid]))
    assert got[cid] == full["checks"].get(cid, [])
    assert got[cid], f"{cid} has no check"


def test_unindexed_patterns_need_the_whole_catalogue():
    assert modules_for(["no.such.claim"]) is None
    assert modules_for(["fedsel.*"])[0] == "privcheck.catalogue.claims"
    assert indexed(["fedsel.pe.ldp", "my.own.claim"]) == ["fedsel.pe.ldp"]
