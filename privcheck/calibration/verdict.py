"""The verdict of a calibrator audit and its one-line summary, from the grid points."""

from __future__ import annotations

from privcheck.calibration.curves import Mechanism
from privcheck.calibration.grid import REL_TOL
from privcheck.calibration.result import CalibratorResult


def summarise(res: CalibratorResult, mech: Mechanism) -> CalibratorResult:
    """Set verdict, worst point, most wasteful point, summary and reason of ``res`` from its points."""
    pts = res.points
    res.refused = sum(p.verdict == "refused" for p in pts)
    scored = [p for p in pts if p.spent is not None]
    res.worst = max(scored, key=lambda p: p.spent or 0.0) if scored else None
    wasted = [p for p in pts if p.wasted is not None]
    res.most_wasted = max(wasted, key=lambda p: p.wasted or 0.0) if wasted else None
    res.details = {
        "tolerance": f"refuted when the certified true delta exceeds delta * (1 + {REL_TOL:g}) "
        "(at delta = 0: the true eps exceeds eps * (1 + tol))",
        "curve": mech.source,
        "scale": mech.scale,
        "points": len(pts),
        "refused": res.refused,
    }
    errors = [p for p in pts if p.verdict == "error"]
    bad = [p for p in pts if p.verdict == "refuted"]
    good = [p for p in pts if p.verdict == "holds"]
    refused = f"; {res.refused} point(s) refused by the calibrator" if res.refused else ""
    if errors:
        res.verdict, res.reason = "error", f"{res.function} at {errors[0].line()}"
    elif bad:
        worst = max(bad, key=lambda p: p.spent if p.spent is not None else float("inf"))
        res.worst = worst
        res.verdict = "refuted"
        res.reason = f"under-noised at {worst.line()}"
        res.details["refuted_points"] = [p.line() for p in bad[:20]]
        res.summary = f"refuted: {len(bad)} of {len(pts)} points under-noise; worst {worst.line()}{refused}"
        return res
    elif good:
        res.verdict = "holds"
        waste = ""
        w = res.most_wasted
        if w is not None and w.wasted is not None and w.wasted > 0:
            waste = (
                f"; up to {100 * w.wasted:.3g}% more noise than the exact curve needs "
                f"(eps={w.eps:g}, delta={w.delta:g})"
            )
        res.summary = (
            f"holds: {len(good)} of {len(pts)} points meet their claim on the exact {mech.name} curve{waste}{refused}"
        )
        return res
    else:
        res.verdict = "inconclusive"
        res.reason = "no point could be decided (the calibrator refused every point, or the intervals straddle delta)"
    res.summary = f"{res.verdict}: {res.reason}"
    return res
