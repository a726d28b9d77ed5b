"""The verdict of a trace and its one-line summary, from the tally (see :func:`privcheck.tracing.trace`)."""

from __future__ import annotations

from privcheck.tracing.coupling import short
from privcheck.tracing.result import TraceResult
from privcheck.tracing.search import SearchRecord
from privcheck.tracing.tally import Tally


def _pair(p) -> str:
    return f"({short(p[0], 40)}, {short(p[1], 40)})"


def decide(res: TraceResult, tally: Tally, record: SearchRecord | None, uncoupled: str | None) -> None:
    """Set ``res.verdict``, ``reason``, ``summary`` (and ``worst_pair`` of a search) from what was measured."""
    if uncoupled is not None:
        res.verdict, res.reason = "inconclusive", uncoupled
        res.summary = f"inconclusive: {uncoupled}"
        return
    refuting = record.refuting if record is not None else []
    if refuting:  # the search's shrunk pair is the pair to show
        res.details["shrunk_pair"] = [repr(v) for v in refuting[0].pair]
        res.worst_pair = refuting[0].pair
        dists = [r.distance for r in refuting if r.distance is not None]
        res.details["shrunk_distance"] = max(dists) if dists else None
    lines = _refutations(res, tally, refuting)
    if lines:
        res.verdict, res.reason = "refuted", lines[0]
        more = f" (+{len(lines) - 1} more finding{'s' if len(lines) > 2 else ''})" if len(lines) > 1 else ""
        res.summary = f"refuted: {lines[0]}{more}"
        return
    if res.sensitivity is not None and tally.measured == 0:
        res.verdict = "inconclusive"
        res.reason = (
            "nothing could be measured: no numeric output or location parameter agreed in its random calls on "
            "both inputs of any pair (non-numeric outputs, or the random calls parted at every run)"
        )
        res.summary = f"inconclusive: {res.reason}"
        return
    res.verdict = "holds"
    res.summary = "holds: " + _holds_line(res, tally)


def _refutations(res: TraceResult, tally: Tally, refuting: list) -> list[str]:
    lines = []
    excess = next((r for r in refuting if r.exceeds), None) or tally.first_excess
    if excess is not None:
        lines.append(
            f"sensitivity >= {excess.distance:.6g} ({res.norm}) measured on the pair {_pair(excess.pair)} in run "
            f"{excess.run}, declared {res.sensitivity:g}: the value the noise is added to moves by more than "
            "the declared sensitivity"
        )
        if not refuting:
            res.worst_pair = tally.best.pair if tally.best else excess.pair
    lines += [d.line() for d in tally.findings()]
    lines += [n.line() for n in tally.nonfinite]
    return lines


def _holds_line(res: TraceResult, tally: Tally) -> str:
    n_other = sum(1 for d in tally.divergences.values() if not d.finding)
    other = f"; {n_other} parameter/sequence difference(s) that are no finding" if n_other else ""
    scope = f"{res.runs} coupled run(s) x {res.pairs} pair(s), {res.calls} random calls"
    if res.sensitivity is None:
        return f"no data-dependent noise scale and no non-finite output over {scope}{other}"
    worst = f" on {_pair(res.worst_pair)}" if res.worst_pair is not None else ""
    return (
        f"largest distance {res.sensitivity_lower:.6g} <= declared sensitivity {res.sensitivity:g} "
        f"({res.norm}){worst} over {scope}; no data-dependent noise scale{other}"
    )
