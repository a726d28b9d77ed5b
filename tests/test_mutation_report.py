"""The mutation-testing figures of docs/site/mutation.md are rendered from benchmarks/run_mutation.sh's results, not typed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import mutation_report as mr  # noqa: E402


def test_the_page_section_is_the_rendering_of_the_results():
    results = ROOT / "benchmarks" / "results" / "mutation_core.json"
    assert mr.START in (ROOT / "docs" / "site" / "mutation.md").read_text(encoding="utf-8")
    assert mr.main([str(results), "--check"]) == 0


def _diff(minus: str, plus: str) -> str:
    return f"--- f.py\n+++ f.py\n@@ -1,1 +1,1 @@\n-{minus}\n+{plus}\n"


@pytest.mark.parametrize(
    "minus,plus,kind",
    [
        ("    a = np.asarray(x, dtype=float)", "    a = np.asarray(x, dtype=None)", "dtype"),
        ('    raise E("mus must be > 0")', '    raise E("XXmus must be > 0XX")', "message"),
        (
            "    root = brentq(f, 0, 1, xtol=1e-12)",
            "    root = brentq(f, 0, 1, xtol=1.000000000001e-12)",
            "solver setting",
        ),
        ("    if a < b:", "    if a <= b:", "boundary"),
        ('    n = check_int("n", n, minimum=1)', '    n = check_int("n", n, minimum=2)', "validation"),
        ("    return p / (1 - p)", "    return p * (1 - p)", "other"),
    ],
)
def test_survivors_are_sorted_by_their_changed_line(minus, plus, kind):
    assert mr.kind_of(_diff(minus, plus)) == kind


def test_render_counts_come_from_the_results():
    data = {
        "date": "2026-01-01",
        "mutmut": "3.8.1",
        "scope": "core",
        "files": ["a.py"],
        "children": 2,
        "seconds": 600,
        "commit": "0123456789abcdef",
        "uncommitted_changes": False,
        "status": {"killed": 9, "survived": 3, "no tests": 1},
        "modules": {"pkg.a": {"killed": 9, "survived": 3, "no tests": 1}},
        "survivors": [
            {"name": "pkg.a.x_f__mutmut_1", "module": "pkg.a", "diff": _diff("    return p / q", "    return p * q")},
            {"name": "pkg.a.x_f__mutmut_2", "module": "pkg.a", "diff": _diff("    if a < b:", "    if a <= b:")},
            {"name": "pkg.a.xǁKǁg__mutmut_3", "module": "pkg.a", "diff": _diff("    y = 2", "    y = 3")},
        ],
    }
    text = mr.render(data)
    assert "**9 killed, 3 survived: score 75.0 %**" in text and "| `pkg.a` | 9 | 3 | 75.0 % | 1 | 0 |" in text
    assert "- boundary: 1" in text and "- other: 2" in text and "`pkg.a.f` 1, `pkg.a.K.g` 1" in text
    assert mr.replace_section(f"x\n{mr.START}\nold\n{mr.END}\ny\n", "new") == f"x\n{mr.START}\nnew\n{mr.END}\ny\n"
