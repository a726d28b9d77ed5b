"""A quick Monte Carlo refutation says how strong it is and how to confirm it (issue 29 §3).

``privcheck verify biswas.gde.unbiased --quick`` at the default seed refutes a true claim (one of the ≤ 5 %
false alarms its family-wise level allows): its line must show the adjusted p-value, the reduced size and how
to confirm; another seed and the full size both hold.
"""

from __future__ import annotations

from privcheck import verify
from privcheck.reports.text import reason_text, verdict_line


def _mc(records):
    return next(r for r in records if r.method == "mc")


def test_the_quick_false_alarm_shows_its_p_value_size_and_how_to_confirm():
    rec = _mc(verify(["biswas.gde.unbiased"], quick=True, seed=0, jobs=1))
    assert rec.verdict == "refuted" and rec.details["quick_size"] == {"used": 80_000, "full": 400_000}
    reason = reason_text(rec)
    assert "smallest adjusted p = 0.0349 (n=1000,m=4,eps=0.5,f_i=0.05,pi=0.3:g_de:bias)" in reason
    assert "quick run: 80,000 of 400,000 draws (reduced power: intervals 2.2× wider)" in reason
    assert reason.endswith(
        "a true claim is refuted by chance in up to 5% of runs: confirm with another --seed or without --quick"
    )
    assert verdict_line(rec).startswith("refuted biswas.gde.unbiased [mc]: claimed ") and reason in verdict_line(rec)
    # confirming as the line says: another seed, and the full size, both hold
    assert _mc(verify(["biswas.gde.unbiased"], quick=True, seed=1, jobs=1)).verdict == "holds"
    full = _mc(verify(["biswas.gde.unbiased"], seed=0, jobs=1))
    assert full.verdict == "holds" and reason_text(full) == "" and "quick_size" not in full.details
