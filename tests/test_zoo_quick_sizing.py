"""benchmarks/zoo_quick_sizing.py: the findings it sizes are read from the scorecard page (float-representation and
Bloom-filter events only, every one a registered zoo claim), and "smallest size" means refuted from there on."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import zoo_quick_sizing as qs  # noqa: E402


def test_findings_come_from_the_scorecard_page():
    from privcheck.claim_index_data import INDEX

    found = qs.findings()
    kinds = {f["kind"] for f in found}
    assert kinds == {"float representation", "Bloom filter bits"}
    assert any(f["claim"] == "zoo.pure_ldp.rappor" for f in found)
    assert any(f["claim"] == "zoo.diffprivlib.laplace" and f["case"] == "eps=1" for f in found)
    assert {f["claim"] for f in found} <= set(INDEX)  # registered claims (the generated claim index)
    assert qs.kind_of("raw + k-RR view") is None


def _row(verdicts: dict[int, str]) -> dict:
    return {
        "by_size": {str(n): {"verdict": v, "eps_lower": 5.0 if v == "refuted" else None} for n, v in verdicts.items()}
    }


def test_smallest_size_is_refuted_from_there_on():
    sizes = [500, 1000, 2000, 5000, 10_000]
    assert qs.smallest(_row(dict(zip(sizes, ["holds"] * 4 + ["refuted"]))), sizes) == 10_000
    # refuted at 2000 by chance, not at 5000: the finding shows reliably only from 10^4
    flaky = dict(zip(sizes, ["inconclusive", "inconclusive", "refuted", "inconclusive", "refuted"]))
    assert qs.smallest(_row(flaky), sizes) == 10_000
    assert qs.smallest(_row(dict(zip(sizes, ["refuted"] * 5))), sizes) == 500
    assert qs.smallest(_row(dict(zip(sizes, ["refuted"] * 4 + ["holds"]))), sizes) is None


def test_render_counts_the_findings_found_at_the_quick_size():
    sizes = [5000, 10_000, 20_000]
    rows = [
        dict(
            claim="zoo.x.a",
            case="eps=1",
            kind="float representation",
            **_row({5000: "holds", 10_000: "refuted", 20_000: "refuted"}),
        ),
        dict(
            claim="zoo.x.b",
            case="eps=1",
            kind="Bloom filter bits",
            **_row({5000: "holds", 10_000: "holds", 20_000: "refuted"}),
        ),
    ]
    runs = [{"samples": n, "wall_seconds": 1.0, "versions": {"lib": "1.0"}} for n in sizes]
    text = qs.render({"seed": 0, "sizes": sizes, "runs": runs, "rows": rows})
    assert (
        "1 of 2 findings show at the `--quick` size" in text
        and "0 are not refuted at any size measured (up to 20000" in text
    )
    assert "| `zoo.x.b` | eps=1 | Bloom filter bits | — | — | 5 | 20k |" in text
