"""The FL-stack part of the zoo scorecard on docs/site/zoo.md is what benchmarks/zoo_fl_scorecard.py renders from the
records it keeps (benchmarks/results/zoo_fl_scorecard.json.gz): no hand edit, no stale table; and those records name
the pinned versions."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import zoo_fl_scorecard as fl  # noqa: E402


def test_page_part_is_the_rendering_of_the_kept_records():
    rendered, part = fl.render_saved(), fl.page_part()
    assert rendered is not None and part is not None
    assert part == rendered.strip("\n")


def test_kept_records_name_the_pinned_versions():
    from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS

    payload = json.loads(gzip.decompress(fl.SAVED.read_bytes()).decode("utf-8"))
    assert payload["runs"] and all(r["commit"] and r["command"].startswith("privcheck verify") for r in payload["runs"])
    seen = {}
    for rec in payload["records"]:
        assert rec["id"].startswith(("zoo.flwr.", "zoo.opacus."))
        seen.update(rec["details"].get("versions") or {})
    for dist in ("flwr", "opacus", "torch"):
        assert seen[dist].split("+")[0] == SCORECARD_VERSIONS[dist]


def test_every_finding_states_the_exact_value_or_its_absence_and_a_reproducer():
    part = fl.page_part()
    findings = [ln for ln in part.splitlines() if ln.startswith("- `zoo.")]
    assert findings
    for line in findings:
        assert "Reproduce: `privcheck verify '" in line and "--seed 0" in line, line
        if "sampled bound" in line:  # a Monte Carlo row: the exact value (or that none is computed) beside it
            assert "exact μ" in line or "exact " in line.split("sampled bound")[0], line
