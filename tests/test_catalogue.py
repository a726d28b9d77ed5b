"""The built-in catalogue is complete: every claim of CLAIMS.md, every listed method has a check."""

from __future__ import annotations

import pathlib
import re

import pytest

from privcheck.runner import load_catalogue, select

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLAIMS_MD = ROOT.parent / "shared" / "CLAIMS.md"


def test_every_check_belongs_to_a_claim_and_every_method_has_a_check():
    reg = load_catalogue()
    for cid, checks in reg.checks.items():
        assert cid in reg.claims, f"check for unknown claim {cid}"
    missing = [
        f"{c.id}[{m}]"
        for c in reg.claims.values()
        for m in c.methods
        if not any(k.method == m for k in reg.checks.get(c.id, []))
    ]
    assert not missing, f"claims without a check for a listed method: {missing}"


@pytest.mark.skipif(not CLAIMS_MD.exists(), reason="shared/CLAIMS.md not beside the checkout")
def test_catalogue_matches_claims_md():
    reg = load_catalogue()
    ids = set()
    for line in CLAIMS_MD.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*([a-zA-Z][\w.]+)\s*\|", line)
        if m and m.group(1) not in ("id",):
            ids.add(m.group(1))
    assert ids, "no claim ids parsed from CLAIMS.md"
    assert ids <= set(reg.claims), f"missing from the catalogue: {sorted(ids - set(reg.claims))}"


def test_globs_select_and_unknown_ids_fail():
    assert {c.claim_id for c in select(["fedsel.pe.*"])} >= {"fedsel.pe.ldp", "fedsel.pe.sparsity"}
    from privcheck.base.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="no claim matches"):
        select(["zzz.*"])


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_cmd = [ln for ln in ci.splitlines() if ln.startswith("python3 -m venv")][0]
    assert ci_cmd in readme
