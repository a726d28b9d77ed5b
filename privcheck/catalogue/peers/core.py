"""Queries asked of a library, their judgement against the certified interval, and the claim runner."""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import math
import warnings
from dataclasses import dataclass, field
from importlib import metadata
from typing import Callable, Sequence

from privcheck.catalogue.peers.certify import certified, certified_finer
from privcheck.catalogue.peers.events import REL_DECIDE, REL_FLOAT, ROLES, Ev
from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

INSTALL_HINT = "not installed: pip install 'privcheck[peers]'"
OPACUS_HINT = "not installed: pip install opacus (pulls torch; not part of privcheck[peers])"


# ---------------------------------------------------------------- queries and their judgement
@dataclass
class Query:
    """One question asked of a library.

    label: what is asked (shown in the table); events/relation: the mechanism under privcheck's
    model; target ``eps`` (answer is ε at δ = ``at``) or ``delta`` (answer is δ at ε = ``at``);
    role: ``upper`` / ``lower`` / ``approximation`` / ``calibration``; ask: calls the library and
    returns its number; code: a minimal snippet reproducing the library call. For ``calibration``
    the answer is a parameter, ``events_for(answer)`` builds the events it implies and
    ``claim_eps`` is the target ε it promises at δ = ``at``. tolerance: the library's own
    documented absolute tolerance on ε (0 if none).
    """

    label: str
    relation: str
    target: str
    at: float
    role: str
    ask: Callable[[], float]
    code: str
    events: tuple[Ev, ...] = ()
    events_for: Callable[[float], tuple[Ev, ...]] | None = None
    claim_eps: float | None = None
    tolerance: float = 0.0
    note: str = ""
    approximate: bool = False

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}")


def _short(x) -> float | str:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else str(x)


@contextlib.contextmanager
def _captured_logs(sink: list[str]):
    """Collect what a library logs (absl, logging) into ``sink`` instead of the user's terminal."""
    import logging

    class _Sink(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            sink.append(f"{record.levelname}: {record.getMessage()}"[:200])

    loggers = [logging.getLogger(), logging.getLogger("absl")]
    saved = [(lg, lg.handlers[:], lg.propagate) for lg in loggers]
    handler = _Sink(logging.WARNING)
    loggers[0].handlers = [handler]
    loggers[1].handlers, loggers[1].propagate = [handler], False
    try:
        yield sink
    finally:
        for lg, handlers, propagate in saved:
            lg.handlers, lg.propagate = handlers, propagate


def judge(q: Query, certify: Callable = None) -> dict:
    """Ask ``q``'s library and place its answer against the certified interval; one row of details.

    status: ``refuted`` (a bound on the wrong side of the certified interval), ``holds`` (an upper bound at
    or above the certified upper end, a lower bound at or below the lower end: safe whatever the exact value
    is), ``undecided`` also when a bound lies strictly inside the interval (it may be on either side of the
    exact value: the interval is too wide to judge it),
    ``vacuous`` (an upper bound of inf), ``approximation`` (a documented approximation inside or above
    the interval, ``position`` inside / above: labelled, never counted as holds), ``miss`` (a documented
    approximation below the interval, or a calibration by one that misses its target: it refutes the claim,
    the label explaining why), ``no_answer`` (the library raised or returned NaN), ``undecided`` (no
    certified interval for these events).
    """
    certify = certify or certified
    row: dict = {
        "query": q.label,
        "role": q.role,
        "relation": q.relation,
        ("delta" if q.target == "eps" else "eps"): q.at,
    }
    if q.note:
        row["note"] = q.note
    out = io.StringIO()
    logged: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), _captured_logs(logged):
            warnings.simplefilter("always")
            value = float(q.ask())
    except Exception as exc:  # the library's failure is a finding, not our error
        row.update(status="no_answer", answer=None, error=f"{type(exc).__name__}: {exc}"[:300], code=q.code)
        return row
    if out.getvalue().strip():
        row["library_printed"] = out.getvalue().strip()[:200]
    if logged:
        row["library_log"] = sorted(set(logged))[:3]
    if caught:
        row["library_warnings"] = sorted({f"{w.category.__name__}: {w.message}"[:160] for w in caught})[:3]
    row["answer"] = _short(value)
    if math.isnan(value):
        row.update(status="no_answer", error="NaN", code=q.code)
        return row
    if q.role == "calibration":
        events = tuple(q.events_for(value))
        row["target_eps"] = q.claim_eps
        target = "eps"
    else:
        events, target = tuple(q.events), q.target
    row["events"] = [str(e) for e in events]
    try:
        cert = certify(events, q.relation, target, q.at)
    except Exception as exc:  # privcheck could not certify this one: say so, judge nothing
        row.update(status="undecided", reason=f"no certified interval: {type(exc).__name__}: {exc}"[:300])
        return row
    if cert is None:
        row.update(status="undecided", reason="no certified interval for these events")
        return row
    if certify is certified and q.role != "calibration" and _worth_refining(cert, value):
        cert = _finer(events, q.relation, target, q.at) or cert  # strictly inside: try to decide it
    row["certified"] = [cert.lower, cert.upper]
    row["certified_by"] = cert.method
    lo, up = cert.lower, cert.upper
    floor = lo - REL_FLOAT * abs(lo)
    ceil_ = up + REL_FLOAT * abs(up)
    if q.role == "approximation":
        pos = "below" if value < floor else ("above" if value > ceil_ else "inside")
        row.update(
            status="miss" if pos == "below" else "approximation",
            position=pos,
            note=(row.get("note", "") + "; " if row.get("note") else "")
            + "documented approximation, not a bound"
            + ("; BELOW the truth: the label explains the miss, it does not excuse it" if pos == "below" else ""),
        )
        if pos == "below":
            row["below_truth_by"] = lo - value
            row["reproducer"] = q.code + "\n# privcheck's certified interval (" + cert.method + "):\n" + cert.code
        return row
    if q.role == "calibration":
        claimed = float(q.claim_eps)
        row["achieved_eps"] = [lo, up]
        if q.approximate:
            short = lo > claimed + REL_FLOAT * abs(claimed)
            row.update(
                status="miss" if short else "approximation",
                position="below" if short else "inside",
                note="calibrated with a documented approximation, not a bound"
                + (
                    "; the target ε is NOT achieved: the label explains the miss, it does not excuse it"
                    if short
                    else ""
                ),
            )
            if short:
                row["excess"] = lo - claimed
                row["reproducer"] = q.code + "\n# privcheck's certified interval (" + cert.method + "):\n" + cert.code
            return row
        if lo > claimed + q.tolerance + REL_FLOAT * abs(claimed):
            row.update(status="refuted", excess=lo - claimed)
        else:
            row.update(status="holds", budget_unused=claimed - up)
            if lo > claimed:
                row["within_documented_tolerance"] = {"tolerance": q.tolerance, "excess": lo - claimed}
        if q.tolerance:
            row["documented_tolerance"] = q.tolerance
    elif q.role == "upper":
        if value == math.inf:
            row.update(
                status="vacuous",
                note=(row.get("note", "") + "; " if row.get("note") else "") + "inf: a valid but vacuous upper bound",
            )
            return row
        if value + q.tolerance < floor:
            row.update(status="refuted", below_certified_lower_by=lo - value)
        elif value + q.tolerance >= up - REL_DECIDE * abs(up):
            slack = value - up
            row.update(status="holds", slack=slack, slack_rel=(slack / up if up > 0 else None))
        else:
            row.update(
                status="undecided",
                position="inside",
                reason=f"undecided: the answer lies strictly inside the certified interval [{lo:.6g}, {up:.6g}]"
                " (it may be below the exact value; only an answer at or above the upper end is safe)",
            )
    else:  # lower bound
        if value - q.tolerance > ceil_:
            row.update(status="refuted", above_certified_upper_by=value - up)
        elif value - q.tolerance <= lo + REL_DECIDE * abs(lo):
            row.update(status="holds", slack=lo - value)
        else:
            row.update(
                status="undecided",
                position="inside",
                reason=f"undecided: the lower bound lies strictly inside the certified interval [{lo:.6g}, "
                f"{up:.6g}] (it may be above the exact value; only one at or below the lower end is safe)",
            )
    if row["status"] == "refuted":
        row["reproducer"] = q.code + "\n# privcheck's certified interval (" + cert.method + "):\n" + cert.code
    return row


#: an answer inside a PLD interval is judged again on a finer grid only this far (share of the width) from both
#: ends: nearer one end, a finer grid seldom decides it and costs seconds and hundreds of MB
REFINE_MARGIN = 0.05


def _worth_refining(cert, value: float) -> bool:
    """Whether ``value`` lies inside the PLD interval ``cert``, at least :data:`REFINE_MARGIN` of its width from
    both ends (closed-form intervals are as narrow as they get)."""
    lo, up = cert.lower, cert.upper
    if not cert.method.startswith("privcheck PLD") or not lo < value < up:
        return False
    return min(value - lo, up - value) >= REFINE_MARGIN * (up - lo)


def _finer(events, relation: str, target: str, at: float):
    """The PLD accountant's interval on a finer grid (None when it cannot give one): narrows an interval
    that an answer falls strictly inside, so that the answer can be judged."""
    try:
        return certified_finer(events, relation, target, at)
    except Exception:  # noqa: BLE001 - no finer interval: the first one stands
        return None


def versions(*dists: str) -> dict:
    """Installed versions of the distributions (``None`` when absent)."""
    out = {}
    for d in dists:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


def missing(*modules: str) -> str | None:
    """The first of ``modules`` that cannot be imported, or None."""
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError:
            return m
    return None


def skipped(library: str, hint: str = INSTALL_HINT) -> Outcome:
    """The record of a claim whose library is not installed: inconclusive with the install hint."""
    return Outcome(
        "inconclusive",
        claimed=f"{library} accountant answers are on the safe side",
        measured=None,
        details={"skipped": True, "reason": f"{library} {hint}", "library": library},
    )


def audit_queries(
    queries: Sequence[Query], library: str, dists: Sequence[str], statement: str, certify: Callable | None = None
) -> Outcome:
    """Judge every query and fold the rows into one :class:`Outcome` (see the module docstring)."""
    import time

    rows = []
    for q in queries:
        t0 = time.perf_counter()
        row = judge(q, certify)
        row["seconds"] = round(time.perf_counter() - t0, 3)
        rows.append(row)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    decided = counts.get("holds", 0) + counts.get("vacuous", 0)
    if counts.get("refuted") or counts.get("miss"):  # a documented approximation's miss is still a miss
        verdict = "refuted"
    elif decided:
        verdict = "holds"
    else:
        verdict = "inconclusive"
    holds = [r for r in rows if r["status"] == "holds" and r["role"] == "upper"]
    below = sum(r["status"] == "miss" for r in rows)
    order = ("refuted", "miss", "holds", "vacuous", "approximation", "no_answer", "undecided")
    measured = ", ".join(f"{counts[k]} {k.replace('_', ' ')}" for k in order if counts.get(k))
    if below:
        measured += f" ({below} documented approximation{'s' if below > 1 else ''} on the unsafe side of the truth)"
    extra: dict = {"counts": counts, "approximations_below_truth": below}
    if holds:
        extra["max_slack_rel"] = max((r["slack_rel"] or 0.0) for r in holds)
    refuted = [r for r in rows if r["status"] == "refuted"] or [r for r in rows if r["status"] == "miss"]
    if refuted:
        r0 = refuted[0]
        extra["first_refuted"] = {k: r0[k] for k in ("query", "answer", "certified", "target_eps") if k in r0}
        extra["interval"] = r0["certified"]
        extra["reproducer"] = r0["reproducer"]
        measured = f"{r0['query']}: {r0['answer']:.6g}; " + measured
    if verdict == "inconclusive":
        extra["reason"] = "no answer could be judged: " + measured if rows else "no query was asked"
        if counts.get("undecided"):
            extra["reason"] += " (undecided: inside a certified interval too wide to judge, or not certifiable)"
    return Outcome(
        verdict,
        claimed=statement,
        measured=measured,
        details={
            "library": library,
            "versions": versions(*dists),
            **extra,
            "rows": rows,
            "float_allowance_rel": REL_FLOAT,
            "rule": "upper bound < certified lower end: refuted, >= upper end: holds, strictly "
            "inside: undecided; lower bound > certified upper end: refuted, <= lower end: "
            "holds, strictly inside: undecided; calibration whose certified ε exceeds the target (+ documented "
            "tolerance): refuted; a documented approximation on the unsafe side of the certified interval "
            "(or a calibration by one that misses its target) is a miss and refutes the claim, the label "
            "explaining it; one inside or on the safe side is labelled, never counted as holds",
        },
    )


# ---------------------------------------------------------------- running library snippets
@functools.lru_cache(maxsize=8)  # queries sharing a body (prv's triplets) are consecutive; objects can be large
def _namespace(body: str) -> dict:
    ns: dict = {}
    exec(compile(body, "<peer snippet>", "exec"), ns)  # noqa: S102 (our own fixed snippets)
    return ns


def _q(label: str, body: str, expr: str, **kw) -> Query:
    """A query whose answer is ``expr`` evaluated after running ``body`` (the reproducer is exactly that code).

    Several queries sharing a body (prv's low / estimate / high) run it once.
    """
    code = body.rstrip("\n") + f"\nanswer = {expr}\nprint(answer)"
    return Query(label=label, ask=lambda: eval(expr, _namespace(body)), code=code, **kw)  # noqa: S307


def _steps(ctx: RunContext, full: int, quick: int) -> int:
    return quick if ctx.quick else full


def _rr_noise(eps: float, k: int) -> float:
    """dp_accounting's RR noise parameter p (uniform w.p. p) giving ε-k-RR: p = k/(e^ε + k − 1)."""
    return k / (math.exp(eps) + k - 1)


# ---------------------------------------------------------------- claims and checks
PEERS = "peers"


@dataclass(frozen=True)
class _Peer:
    claim_id: str
    library: str
    modules: tuple[str, ...]
    dists: tuple[str, ...]
    where: str
    statement: str
    build: Callable[[RunContext], list[Query]]
    hint: str = INSTALL_HINT
    extra: dict = field(default_factory=dict)


def run_peer(peer: _Peer, ctx: RunContext) -> Outcome:
    """Run one peer claim: skip with the install hint when its library is absent, else judge its queries."""
    absent = missing(*peer.modules)
    if absent is not None:
        out = skipped(peer.library, peer.hint)
        out.details["versions"] = versions(*peer.dists)
        return out
    return audit_queries(peer.build(ctx), peer.library, peer.dists, peer.statement)


def register(peer: _Peer) -> None:
    """Add a peer claim to the catalogue with its check (skips with the install hint when the library is absent)."""
    CATALOGUE.add_claim(Claim(peer.claim_id, peer.library, peer.where, "bound", peer.statement, ("numeric",)))
    check(peer.claim_id, "numeric")(lambda ctx, _p=peer: run_peer(_p, ctx))
