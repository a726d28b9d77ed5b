"""The HTML report's layout fixes, checked on its structure (CI has no browser; benchmarks/screenshot_report.py
measures the real layout in headless Chromium), and figures whose tick labels never collide."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from privcheck.claims import VerdictRecord
from privcheck.reports.html import _CSS, records_to_html
from privcheck.reports.render import details_html

P0 = "000_55a5a0ab95d522af.txt Alg. 3"


def _rec(cid, verdict="holds", method="exact", claimed=1.0, measured=1.0, details=None, **kw) -> VerdictRecord:
    return VerdictRecord(cid, P0, "privacy", method, verdict, claimed, measured, details or {}, 0, None, 0.5, **kw)


QUICK = _rec(
    "fedsel.quick.claim",
    "refuted",
    "mc",
    details={
        "quick": True,
        "quick_size": {"used": 80_000, "full": 400_000},
        "reason": "1 of 4 tests reject the claim at family-wise level 0.05 (Bonferroni)",
        "adjusted_p": {"case a:bias": 0.0349, "case b:bias": 1.0},
        "run_confidence": {"family_wise": 0.95},
    },
)
RECORDS = [
    _rec("fedsel.pe.ldp", measured=2.04),
    QUICK,
    _rec(
        "fedsel.formula",
        "inconclusive",
        "symbolic",
        "pi/2",
        "atan(x) + atan(1/x)",
        {"numeric": {"note": "sympy could not decide", "points": 74, "max_abs_gap": "0"}},
    ),
    _rec("fedsel.error", "error", details={"error": "ValueError: broken"}),
]


class _Tables(HTMLParser):
    """Every table: its class, its header cells and, per body row, its cells' (class, data-label)."""

    def __init__(self):
        super().__init__()
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self._in_th = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._stack.append({"class": a.get("class", ""), "head": [], "rows": [], "thead": False})
            self.tables.append(self._stack[-1])
        elif not self._stack:
            return
        elif tag == "thead":
            self._stack[-1]["thead"] = True
        elif tag == "tr":
            self._stack[-1]["rows"].append([])
        elif tag == "th":
            self._in_th = True
            self._stack[-1]["head"].append("")
        elif tag == "td":
            self._stack[-1]["rows"][-1].append((a.get("class", ""), a.get("data-label")))

    def handle_endtag(self, tag):
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag == "th":
            self._in_th = False

    def handle_data(self, data):
        if self._in_th and self._stack:
            self._stack[-1]["head"][-1] += data


def _tables(text: str) -> list[dict]:
    p = _Tables()
    p.feed(text)
    return p.tables


def test_paper_tables_are_cards_on_narrow_screens():
    text = records_to_html(RECORDS)
    tables = [t for t in _tables(text) if t["class"] == "records"]
    assert len(tables) == 1 and tables[0]["thead"]
    head = tables[0]["head"]
    assert head == ["claim", "method", "verdict", "claimed", "measured", "interval", "s"]
    body = [r for r in tables[0]["rows"] if r]
    assert len(body) == len(RECORDS)
    for row in body:  # one cell per column, every value cell labelled with its column (the card's line labels)
        assert len(row) == len(head)
        assert [label for _, label in row] == [None] + head[1:]
    narrow = re.search(r"@media \(max-width:720px\)\{(.*)\}\s*$", _CSS.strip(), re.S).group(1)
    for rule in (
        "table.records thead{display:none}",
        "table.records td[data-label]::before{content:attr(data-label)",
        "table.records,table.records tbody,table.records tr,table.records td{display:block",
        "table.records td:empty{display:none}",
        "table.counts th.v{writing-mode:vertical-rl",
        "table.kv>tbody>tr>th,table.kv>tbody>tr>td{display:block",
    ):
        assert rule in narrow, rule


def test_no_style_lets_a_column_shrink_to_one_character():
    """overflow-wrap:anywhere lowers a cell's minimum width to one character (numbers broken across lines at
    390 px): only break-word, which breaks a word only when it alone overflows, is used."""
    assert "anywhere" not in _CSS
    assert "td.nw{white-space:nowrap}" in _CSS and "td.num{text-align:right" in _CSS


def test_count_table_and_short_detail_cells():
    text = records_to_html(RECORDS)
    counts = next(t for t in _tables(text) if t["class"] == "counts")
    assert counts["head"][0] == "paper" and set(counts["head"][1:]) == {"holds", "refuted", "inconclusive", "error"}
    assert text.count("<th class='v'>") == 4
    cells = details_html({"eps": 1.25, "pair": [0, 1], "note": "a long sentence " * 4, "nested": {"k": 2}})
    assert cells.count("<td class='nw'>") == 3  # 1.25, "0, 1" and the nested table's 2; not the sentence
    assert "<td><table class='kv'>" in cells


def test_reasons_are_in_the_findings_and_the_tables():
    text = records_to_html(RECORDS)
    reason = re.findall(r"<(?:p|div) class='reason'>(?:reason: )?([^<]*)<", text)
    quick = [r for r in reason if "smallest adjusted p = 0.0349 (case a:bias)" in r]
    assert len(quick) == 2  # the finding and the paper table
    assert "quick run: 80,000 of 400,000 draws (reduced power: intervals 2.2× wider)" in quick[0]
    assert "confirm with another --seed or without --quick" in quick[0]
    assert any(r.startswith("sympy could not decide (74 points") for r in reason)


@pytest.fixture
def checked_declutter(monkeypatch):
    """Every figure saved: after the declutter, no two neighbouring tick labels of any axis collide."""
    import privcheck.reports.figure as figure

    seen = []
    original = figure.declutter_ticks

    def check(fig, *a, **k):
        original(fig, *a, **k)
        for ax in fig.axes:
            for which in ("x", "y"):
                labels = figure.tick_labels(ax, which)
                assert not figure.labels_collide(labels, which), [lab.get_text() for lab in labels]
                seen.append(len(labels))

    monkeypatch.setattr(figure, "declutter_ticks", check)
    return seen


def test_report_figures_have_no_colliding_tick_labels(tmp_path, checked_declutter):
    from privcheck.reports.plots import write_figures

    narrow = _rec("fedsel.interval", "holds", "mc", "formula", 0.0, {"interval": [-0.03859, -0.03487]})
    narrow = VerdictRecord(**{**narrow.__dict__, "kind": "estimator"})
    cases = {f"d={10**i}, k={i}, eps1={i / 3:.3f}": 1.0 + i / 7 for i in range(12)}
    compared = _rec("fedsel.cases", "refuted", "exact", dict.fromkeys(cases, 1.0), cases)
    figs = write_figures([narrow, compared], str(tmp_path))
    assert len(figs.figures) == 2 and max(checked_declutter) >= 2


def test_declutter_thins_numeric_ticks_and_turns_category_labels():
    from privcheck.reports.figure import _new_figure, declutter_ticks, labels_collide, tick_labels

    fig, ax = _new_figure(6.0, 1.8)
    ax.plot([-0.03859, -0.03487], [0, 0])
    fig.canvas.draw()
    before = tick_labels(ax, "x")
    assert len(before) == 8 and labels_collide(before, "x")  # matplotlib's own choice: −0.0385 … −0.0350 touch
    declutter_ticks(fig)
    after = tick_labels(ax, "x")
    assert 2 <= len(after) < 8 and not labels_collide(after, "x")
    fig, ax = _new_figure(4.0, 3.0)
    ax.bar(range(8), range(8))
    ax.set_xticks(range(8), [f"scenario n={i * 1000}" for i in range(8)])
    fig.canvas.draw()
    assert labels_collide(tick_labels(ax, "x"), "x")
    declutter_ticks(fig)
    labels = tick_labels(ax, "x")
    assert len(labels) == 8 and labels[0].get_rotation() > 0 and not labels_collide(labels, "x")
