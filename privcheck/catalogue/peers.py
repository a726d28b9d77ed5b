"""Audits of other libraries' privacy accountants: the claim family ``peers.*``.

Each check asks one public library (dp-accounting, prv-accountant, autodp, opacus) a grid of
questions it supports — single mechanisms, self-compositions with counts, heterogeneous
compositions, Poisson subsampling, calibration helpers — under the neighbouring relation that
library uses, and compares every answer with privcheck's certified interval ``[lower, upper]``
on the exact value (:func:`certified`):

- an **upper bound** (what a user quotes as "ε") below the certified lower end is *refuted*: it
  claims more privacy than the mechanism has; the row carries a minimal reproducer snippet;
  an upper bound inside or above the interval *holds*, and its slack (answer − upper end) is
  recorded; ``inf`` is a valid but vacuous bound and is labelled so;
- a **lower bound** (prv's ``eps_low``) above the certified upper end is refuted;
- a **calibration** helper returns a parameter (σ, Laplace scale, per-step ε) said to achieve a
  target (ε, δ); it is refuted when the certified ε of the returned parameter exceeds the target
  (beyond the helper's own documented tolerance, stated in the row);
- a **documented approximation** (prv's middle "estimate", the central-limit GDP view of
  opacus) is never called a bound: the row says whether it falls below the truth.

A claim is ``refuted`` when any of its bound rows is, ``holds`` when at least one bound row was
decided and none refuted, ``inconclusive`` otherwise; a library that is not installed gives an
``inconclusive`` record with ``details["skipped"]`` and the install hint, never an ``error``.
Library versions are in ``details["versions"]``.

Float allowance: an answer counts as below the certified lower end only if it is below it by more
than :data:`REL_FLOAT` relative (closed forms computed in two codes differ in the last digits).
"""
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

from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

#: relative allowance for floating-point disagreement before an answer is called below the truth
REL_FLOAT = 1e-9
#: relative widening of the exact closed-form oracles (their root finders are accurate to ~1e-14)
REL_EXACT = 1e-9
INSTALL_HINT = "not installed: pip install 'privcheck[peers]'"
OPACUS_HINT = "not installed: pip install opacus (pulls torch; not part of privcheck[peers])"
RELATIONS = ("add_remove", "replace_one")
ROLES = ("upper", "lower", "approximation", "calibration")


# ---------------------------------------------------------------- library-independent events
@dataclass(frozen=True)
class Ev:
    """One mechanism invoked ``count`` times, described independently of any library.

    kind/params: ``gaussian`` (sigma, sensitivity: ℓ2 distance between neighbouring means),
    ``laplace`` (b, sensitivity 1), ``discrete_laplace`` (a, integer sensitivity), ``rr`` (eps, k: k-ary randomised response), ``pure``
    (eps: the worst pure ε-DP pair, i.e. binary RR), ``approx`` ((ε, δ)-DP, worst pair),
    ``subsampled_gaussian`` (q, sigma: Poisson rate and noise multiplier, sensitivity 1),
    ``subsampled_laplace`` (q, b).
    """

    kind: str
    params: tuple
    count: int = 1

    def p(self, name: str) -> float:
        """The value of parameter ``name``."""
        return dict(self.params)[name]

    def __str__(self) -> str:
        ps = ",".join(f"{k}={v:g}" for k, v in self.params)
        return f"{self.kind}({ps})" + (f"x{self.count}" if self.count != 1 else "")


def gaussian(sigma: float, sensitivity: float = 1.0, count: int = 1) -> Ev:
    """Gaussian mechanism N(0, σ²) vs N(Δ, σ²); σ > 0, Δ > 0, count ≥ 1."""
    return Ev("gaussian", (("sigma", float(sigma)), ("sensitivity", float(sensitivity))), int(count))


def laplace(b: float, count: int = 1) -> Ev:
    """Laplace mechanism with scale b (ℓ1 sensitivity 1, so ε0 = 1/b); b > 0."""
    return Ev("laplace", (("b", float(b)),), int(count))


def rr(eps: float, k: int = 2, count: int = 1) -> Ev:
    """k-ary randomised response, truth with probability e^ε/(e^ε + k − 1); ε > 0, k ≥ 2."""
    return Ev("rr", (("eps", float(eps)), ("k", int(k))), int(count))


def discrete_laplace(a: float, sensitivity: int = 1, count: int = 1) -> Ev:
    """Discrete Laplace mechanism P(k) ∝ e^{−a|k|} with integer sensitivity Δ ≥ 1; a > 0."""
    return Ev("discrete_laplace", (("a", float(a)), ("sensitivity", int(sensitivity))), int(count))


def pure(eps: float, count: int = 1) -> Ev:
    """A pure ε-DP mechanism (worst case: binary randomised response); ε > 0."""
    return Ev("pure", (("eps", float(eps)),), int(count))


def approx(eps: float, delta: float, count: int = 1) -> Ev:
    """An (ε, δ)-DP mechanism (worst case: RR with a δ-atom); ε > 0, δ ∈ [0, 1)."""
    return Ev("approx", (("eps", float(eps)), ("delta", float(delta))), int(count))


def subsampled_gaussian(q: float, sigma: float, count: int = 1) -> Ev:
    """Poisson-subsampled Gaussian (DP-SGD step): rate q ∈ (0, 1], noise multiplier σ > 0."""
    return Ev("subsampled_gaussian", (("q", float(q)), ("sigma", float(sigma))), int(count))


def subsampled_laplace(q: float, b: float, count: int = 1) -> Ev:
    """Poisson-subsampled Laplace mechanism: rate q ∈ (0, 1], scale b > 0 (sensitivity 1)."""
    return Ev("subsampled_laplace", (("q", float(q)), ("b", float(b))), int(count))


# ---------------------------------------------------------------- the certified interval (adapter)
@dataclass(frozen=True)
class Certified:
    """A certified interval [lower, upper] on ε(δ) or δ(ε), how it was computed and how to redo it."""

    lower: float
    upper: float
    method: str
    code: str


def _exact_oracle(events: tuple[Ev, ...], relation: str, target: str, at: float) -> Certified | None:
    """Closed forms privcheck already has: Gaussian/GDP composition, RR / pure-ε / (ε,δ) self-composition,
    one Laplace mechanism. None when the events are outside their reach."""
    from accountants import composition as comp
    from accountants import gdp

    kinds = {e.kind for e in events}

    def widen(v: float, method: str, code: str) -> Certified:
        return Certified(v * (1 - REL_EXACT), v * (1 + REL_EXACT) if v > 0 else 0.0, method, code)

    if kinds == {"gaussian"}:
        mu = math.sqrt(sum(e.count * (e.p("sensitivity") / e.p("sigma")) ** 2 for e in events))
        if target == "eps":
            return widen(gdp.gdp_eps(mu, at), "exact GDP (002 Lemmas 1-3)",
                         f"from accountants.gdp import gdp_eps\nprint(gdp_eps({mu!r}, {at!r}))")
        return widen(gdp.gdp_delta(mu, at), "exact GDP (002 Lemmas 1-3)",
                     f"from accountants.gdp import gdp_delta\nprint(gdp_delta({mu!r}, {at!r}))")
    if len(events) == 1:
        e = events[0]
        binary = e.kind == "pure" or (e.kind == "rr" and e.p("k") == 2)
        if binary:
            eps, T = e.p("eps"), e.count
            if target == "eps":
                return widen(comp.rr_composition_eps(eps, T, at), "exact binomial sum (Kairouz-Oh-Viswanath)",
                             f"from accountants.composition import rr_composition_eps\n"
                             f"print(rr_composition_eps({eps!r}, {T}, {at!r}))")
            return widen(comp.rr_composition_delta(eps, T, at), "exact binomial sum (Kairouz-Oh-Viswanath)",
                         f"from accountants.composition import rr_composition_delta\n"
                         f"print(rr_composition_delta({eps!r}, {T}, {at!r}))")
        if e.kind == "approx" and target == "eps":
            eps, d, T = e.p("eps"), e.p("delta"), e.count
            r = comp.optimal_composition(eps, T, at, d)
            return widen(r.eps, "exact optimal composition (Kairouz-Oh-Viswanath Thm 3.3)",
                         f"from accountants.composition import optimal_composition\n"
                         f"print(optimal_composition({eps!r}, {T}, {at!r}, {d!r}).eps)")
        if e.kind == "laplace" and e.count == 1:
            e0 = 1.0 / e.p("b")
            # privacy profile of Laplace: δ(ε) = 1 − e^{(ε − ε0)/2} for 0 ≤ ε < ε0, 0 beyond
            if target == "eps":
                v = max(0.0, e0 + 2 * math.log1p(-at))
                code = f"import math\nprint(max(0.0, {e0!r} + 2 * math.log1p(-{at!r})))"
            else:
                v = -math.expm1((at - e0) / 2) if at < e0 else 0.0
                code = f"import math\nprint(-math.expm1(({at!r} - {e0!r}) / 2) if {at!r} < {e0!r} else 0.0)"
            return widen(v, "closed-form Laplace privacy profile", code)
    return None


def _pld_events(events: tuple[Ev, ...]):
    """The events in accountants.pld's API, and the code that builds them."""
    P = importlib.import_module("accountants.pld")

    def one(e: Ev):
        k = e.kind
        if k == "gaussian":
            return P.GaussianEvent(sigma=e.p("sigma"), sensitivity=e.p("sensitivity")), \
                f"GaussianEvent(sigma={e.p('sigma')!r}, sensitivity={e.p('sensitivity')!r})"
        if k == "laplace":
            return P.LaplaceEvent(b=e.p("b")), f"LaplaceEvent(b={e.p('b')!r})"
        if k == "discrete_laplace":
            return P.DiscreteLaplaceEvent(a=e.p("a"), sensitivity=int(e.p("sensitivity"))), \
                f"DiscreteLaplaceEvent(a={e.p('a')!r}, sensitivity={int(e.p('sensitivity'))})"
        if k == "rr":
            return P.RandomizedResponseEvent(eps=e.p("eps"), k=int(e.p("k"))), \
                f"RandomizedResponseEvent(eps={e.p('eps')!r}, k={int(e.p('k'))})"
        if k == "pure":
            return P.PureDPEvent(eps=e.p("eps")), f"PureDPEvent(eps={e.p('eps')!r})"
        if k == "subsampled_gaussian":
            return P.PoissonSampledEvent(P.GaussianEvent(sigma=e.p("sigma"), sensitivity=1.0), q=e.p("q")), \
                f"PoissonSampledEvent(GaussianEvent(sigma={e.p('sigma')!r}, sensitivity=1.0), q={e.p('q')!r})"
        if k == "subsampled_laplace":
            return P.PoissonSampledEvent(P.LaplaceEvent(b=e.p("b")), q=e.p("q")), \
                f"PoissonSampledEvent(LaplaceEvent(b={e.p('b')!r}), q={e.p('q')!r})"
        raise KeyError(k)

    return [(one(e), e.count) for e in events]


def _pld_oracle(events: tuple[Ev, ...], relation: str, target: str, at: float) -> Certified | None:
    """privcheck's certified PLD accountant (accountants.pld.PLDAccountant), when available."""
    try:
        PLDAccountant = importlib.import_module("accountants.pld").PLDAccountant
    except (ImportError, AttributeError):
        return None
    try:
        built = _pld_events(events)
    except (KeyError, AttributeError, TypeError):
        return None
    from privcheck.errors import PrivcheckUsageError

    try:
        acc = PLDAccountant(relation=relation)
        for (ev, _src), count in built:
            acc.compose(ev, count=count)
    except PrivcheckUsageError:  # e.g. subsampling under replace_one: not certified here
        return None
    lines = ["from accountants.pld import *", f"acc = PLDAccountant(relation={relation!r})"]
    for (_ev, src), count in built:
        lines.append(f"acc.compose({src}, count={count})")
    iv = acc.epsilon(delta=at) if target == "eps" else acc.delta(eps=at)
    lines.append(f"print(acc.epsilon(delta={at!r}))" if target == "eps" else f"print(acc.delta(eps={at!r}))")
    how = getattr(iv, "method", "")
    notes = "; ".join(getattr(iv, "notes", ()) or ())
    method = "privcheck PLD accountant (certified interval" + (f", {how}" if how else "") + (f"; {notes}" if notes else "") + ")"
    return Certified(float(iv.lower), float(iv.upper), method, "\n".join(lines))


@functools.lru_cache(maxsize=256)
def certified(events: tuple[Ev, ...], relation: str, target: str, at: float) -> Certified | None:
    """privcheck's certified interval on ε(δ = at) (target ``eps``) or δ(ε = at) (target ``delta``).

    events: the composition; relation: ``add_remove`` or ``replace_one`` (matters for subsampled
    events; for the others ``sensitivity`` already states the neighbouring distance). Exact closed
    forms first (interval widened by :data:`REL_EXACT`), else privcheck's PLD accountant; None when
    neither covers the events.
    """
    if relation not in RELATIONS or target not in ("eps", "delta"):
        raise ValueError(f"relation must be one of {RELATIONS} and target 'eps' or 'delta'")
    return _exact_oracle(events, relation, target, at) or _pld_oracle(events, relation, target, at)


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


def judge(q: Query, certify: Callable = None) -> dict:
    """Ask ``q``'s library and place its answer against the certified interval; one row of details.

    status: ``refuted`` (a bound on the wrong side of the certified interval), ``holds``,
    ``vacuous`` (an upper bound of inf), ``approximation`` (with ``position`` below / inside /
    above), ``no_answer`` (the library raised or returned NaN), ``undecided`` (no certified
    interval for these events).
    """
    certify = certify or certified
    row: dict = {"query": q.label, "role": q.role, "relation": q.relation,
                 ("delta" if q.target == "eps" else "eps"): q.at}
    if q.note:
        row["note"] = q.note
    out = io.StringIO()
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
            warnings.simplefilter("always")
            value = float(q.ask())
    except Exception as exc:  # the library's failure is a finding, not our error
        row.update(status="no_answer", answer=None, error=f"{type(exc).__name__}: {exc}"[:300], code=q.code)
        return row
    if out.getvalue().strip():
        row["library_printed"] = out.getvalue().strip()[:200]
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
    row["certified"] = [cert.lower, cert.upper]
    row["certified_by"] = cert.method
    lo, up = cert.lower, cert.upper
    floor = lo - REL_FLOAT * abs(lo)
    ceil_ = up + REL_FLOAT * abs(up)
    if q.role == "approximation":
        pos = "below" if value < floor else ("above" if value > ceil_ else "inside")
        row.update(status="approximation", position=pos,
                   note=(row.get("note", "") + "; " if row.get("note") else "") + "documented approximation, not a bound"
                   + ("; BELOW the truth" if pos == "below" else ""))
        if pos == "below":
            row["below_truth_by"] = lo - value
        return row
    if q.role == "calibration":
        claimed = float(q.claim_eps)
        row["achieved_eps"] = [lo, up]
        if q.approximate:
            short = lo > claimed + REL_FLOAT * abs(claimed)
            row.update(status="approximation", position="below" if short else "inside",
                       note="calibrated with a documented approximation, not a bound"
                       + ("; the target ε is NOT achieved" if short else ""))
            if short:
                row["excess"] = lo - claimed
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
            row.update(status="vacuous", note=(row.get("note", "") + "; " if row.get("note") else "")
                       + "inf: a valid but vacuous upper bound")
            return row
        if value + q.tolerance < floor:
            row.update(status="refuted", below_certified_lower_by=lo - value)
        else:
            slack = value - up
            row.update(status="holds", slack=slack, slack_rel=(slack / up if up > 0 else None),
                       inside_interval=bool(value <= ceil_))
    else:  # lower bound
        if value - q.tolerance > ceil_:
            row.update(status="refuted", above_certified_upper_by=value - up)
        else:
            row.update(status="holds", slack=lo - value)
    if row["status"] == "refuted":
        row["reproducer"] = (q.code + "\n# privcheck's certified interval (" + cert.method + "):\n" + cert.code)
    return row


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
    return Outcome("inconclusive", claimed=f"{library} accountant answers are on the safe side", measured=None,
                   details={"skipped": True, "reason": f"{library} {hint}", "library": library})


def audit_queries(queries: Sequence[Query], library: str, dists: Sequence[str], statement: str,
                  certify: Callable | None = None) -> Outcome:
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
    if counts.get("refuted"):
        verdict = "refuted"
    elif decided:
        verdict = "holds"
    else:
        verdict = "inconclusive"
    holds = [r for r in rows if r["status"] == "holds" and r["role"] == "upper"]
    below = sum(r.get("position") == "below" for r in rows)
    order = ("refuted", "holds", "vacuous", "approximation", "no_answer", "undecided")
    measured = ", ".join(f"{counts[k]} {k.replace('_', ' ')}" for k in order if counts.get(k))
    if below:
        measured += f" ({below} below the truth)"
    extra: dict = {"counts": counts, "approximations_below_truth": below}
    if holds:
        extra["max_slack_rel"] = max((r["slack_rel"] or 0.0) for r in holds)
    refuted = [r for r in rows if r["status"] == "refuted"]
    if refuted:
        r0 = refuted[0]
        extra["first_refuted"] = {k: r0[k] for k in ("query", "answer", "certified", "target_eps") if k in r0}
        extra["interval"] = r0["certified"]
        extra["reproducer"] = r0["reproducer"]
        measured = f"{r0['query']}: {r0['answer']:.6g}; " + measured
    return Outcome(verdict, claimed=statement, measured=measured,
                   details={"library": library, "versions": versions(*dists), **extra, "rows": rows,
                            "float_allowance_rel": REL_FLOAT,
                            "rule": "upper bound < certified lower end: refuted; lower bound > certified upper end: "
                                    "refuted; calibration whose certified ε exceeds the target (+ documented "
                                    "tolerance): refuted; approximations are labelled, never judged"})


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


# ---------------------------------------------------------------- dp-accounting
_DPA = "import dp_accounting as dpa\nfrom dp_accounting.pld import pld_privacy_accountant as pa\n"
_REL = {"add_remove": "ADD_OR_REMOVE_ONE", "replace_one": "REPLACE_ONE"}


def _dpa_pld(label: str, event: str, events: tuple[Ev, ...], relation: str = "add_remove",
             target: str = "eps", at: float = 1e-5, **kw) -> Query:
    body = (_DPA + f"acc = pa.PLDAccountant(dpa.NeighboringRelation.{_REL[relation]})\n"
            f"acc.compose({event})\n")
    expr = f"acc.get_epsilon({at!r})" if target == "eps" else f"acc.get_delta({at!r})"
    return _q(label, body, expr, events=events, relation=relation, target=target, at=at, role="upper", **kw)


def dp_accounting_pld_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's PLDAccountant (pessimistic PLD, interval 1e-4) and its PLD objects."""
    T = _steps(ctx, 10_000, 1_000)
    sg = f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), {T})"
    p01, p1 = _rr_noise(0.1, 2), _rr_noise(1.0, 4)
    qs = [
        _dpa_pld("Gaussian σ=1, ε(δ=1e-5)", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),)),
        _dpa_pld("Gaussian σ=1, δ(ε=1)", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), target="delta", at=1.0),
        _dpa_pld("100 × Gaussian σ=10", "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(10.0), 100)",
                 (gaussian(10.0, count=100),)),
        _dpa_pld("Gaussian σ=1 at δ=1e-12", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), at=1e-12),
        _dpa_pld("Gaussian σ=1 at δ=1e-50", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), at=1e-50,
                 note="REFERENCE pitfall: inf below ~1e-20"),
        _dpa_pld("10 × Gaussian σ=2 + 50 × Gaussian σ=5",
                 "dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 10), "
                 "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(5.0), 50)])",
                 (gaussian(2.0, count=10), gaussian(5.0, count=50)), at=1e-6),
        _dpa_pld("replace-one: 10 × Gaussian σ=4", "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(4.0), 10)",
                 (gaussian(4.0, sensitivity=2.0, count=10),), relation="replace_one",
                 note="REPLACE_ONE shifts both means by the sensitivity: neighbouring distance 2"),
        _dpa_pld("Laplace b=1", "dpa.LaplaceDpEvent(1.0)", (laplace(1.0),)),
        _dpa_pld("Laplace b=1, δ(ε=0.5)", "dpa.LaplaceDpEvent(1.0)", (laplace(1.0),), target="delta", at=0.5),
        _dpa_pld("10 × Laplace b=2", "dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(2.0), 10)", (laplace(2.0, 10),)),
        _dpa_pld("replace-one: 400 × RR ε=0.1",
                 f"dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent({p01!r}, 2), 400)", (rr(0.1, 2, 400),),
                 relation="replace_one", note="found here: PLDAccountant drops the count of a RandomizedResponseDpEvent "
                 "(compose(event, 400) and SelfComposedDpEvent compose it once)"),
        _q("replace-one: 400 × RR ε=0.1, composed one by one",
           _DPA + "acc = pa.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)\n"
           f"for _ in range(400):\n    acc.compose(dpa.RandomizedResponseDpEvent({p01!r}, 2))\n",
           "acc.get_epsilon(1e-05)", events=(rr(0.1, 2, 400),), relation="replace_one", target="eps", at=1e-5,
           role="upper", note="the same composition without counts"),
        _dpa_pld("replace-one: 20 × 4-RR ε=1",
                 f"dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent({p1!r}, 4), 20)", (rr(1.0, 4, 20),),
                 relation="replace_one"),
        _dpa_pld("10 × discrete Laplace a=1, Δ=1",
                 "dpa.SelfComposedDpEvent(dpa.dp_event.DiscreteLaplaceDpEvent(1.0, 1), 10)",
                 (discrete_laplace(1.0, 1, 10),)),
        _dpa_pld(f"DP-SGD q=0.01 σ=1.1 T={T}", sg, (subsampled_gaussian(0.01, 1.1, T),)),
        _dpa_pld("100 × Poisson(q=0.1) Laplace b=1",
                 "dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.1, dpa.LaplaceDpEvent(1.0)), 100)",
                 (subsampled_laplace(0.1, 1.0, 100),)),
    ]
    if not ctx.quick:
        qs += [
            _dpa_pld(f"DP-SGD q=0.01 σ=1.1 T={T} at δ=1e-12", sg, (subsampled_gaussian(0.01, 1.1, T),), at=1e-12),
            _dpa_pld(f"DP-SGD q=0.01 σ=1.1 T={T}, δ(ε=5)", sg, (subsampled_gaussian(0.01, 1.1, T),),
                     target="delta", at=5.0),
        ]
    objs = "from dp_accounting.pld import privacy_loss_distribution as pld\n"
    qs += [
        _q("PLD object, optimistic: 100 × Gaussian σ=10", objs + "p = pld.from_gaussian_mechanism(10.0, "
           "pessimistic_estimate=False).self_compose(100)\n", "p.get_epsilon_for_delta(1e-05)",
           events=(gaussian(10.0, count=100),), relation="add_remove", target="eps", at=1e-5, role="lower",
           note="pessimistic_estimate=False: the optimistic discretisation, a lower bound"),
        _q("PLD object, coarse interval 0.05: 100 × Gaussian σ=10", objs + "p = pld.from_gaussian_mechanism(10.0, "
           "value_discretization_interval=0.05).self_compose(100)\n", "p.get_epsilon_for_delta(1e-05)",
           events=(gaussian(10.0, count=100),), relation="add_remove", target="eps", at=1e-5, role="upper"),
    ]
    mixed = ("from dp_accounting.pld import privacy_loss_distribution as pld\n"
             "p = pld.from_gaussian_mechanism(2.0).compose(pld.from_laplace_mechanism(1.0))"
             f".compose(pld.from_randomized_response({_rr_noise(1.0, 2)!r}, 2))\n")
    qs.append(_q("PLD objects: Gaussian σ=2 + Laplace b=1 + RR ε=1", mixed, "p.get_epsilon_for_delta(1e-5)",
                 events=(gaussian(2.0), laplace(1.0), rr(1.0, 2)), relation="add_remove", target="eps", at=1e-5,
                 role="upper", note="the accountant object refuses this mix; built from PLD objects"))
    return qs


def _dpa_rdp(label: str, event: str, events: tuple[Ev, ...], target: str = "eps", at: float = 1e-5,
             relation: str = "add_remove", **kw) -> Query:
    rel = "" if relation == "add_remove" else f"neighboring_relation=dpa.NeighboringRelation.{_REL[relation]}"
    body = ("import dp_accounting as dpa\nfrom dp_accounting.rdp import rdp_privacy_accountant as ra\n"
            f"acc = ra.RdpAccountant({rel})\nacc.compose({event})\n")
    expr = f"acc.get_epsilon({at!r})" if target == "eps" else f"acc.get_delta({at!r})"
    return _q(label, body, expr, events=events, relation=relation, target=target, at=at, role="upper", **kw)


def dp_accounting_rdp_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's RdpAccountant (default orders, add/remove)."""
    T = _steps(ctx, 10_000, 1_000)
    return [
        _dpa_rdp("100 × Gaussian σ=10", "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(10.0), 100)",
                 (gaussian(10.0, count=100),)),
        _dpa_rdp("Gaussian σ=1 at δ=1e-12", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), at=1e-12),
        _dpa_rdp("Gaussian σ=1, δ(ε=2)", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), target="delta", at=2.0),
        _dpa_rdp("10 × Gaussian σ=2 + 50 × Gaussian σ=5",
                 "dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 10), "
                 "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(5.0), 50)])",
                 (gaussian(2.0, count=10), gaussian(5.0, count=50)), at=1e-6),
        _dpa_rdp("10 × Laplace b=2", "dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(2.0), 10)", (laplace(2.0, 10),)),
        _dpa_rdp("replace-one: 400 × RR ε=0.1",
                 f"dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent({_rr_noise(0.1, 2)!r}, 2), 400)",
                 (rr(0.1, 2, 400),), relation="replace_one"),
        _dpa_rdp(f"DP-SGD q=0.01 σ=1.1 T={T}",
                 f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), {T})",
                 (subsampled_gaussian(0.01, 1.1, T),)),
    ]


def dp_accounting_calibration_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's calibration helpers: analytic Gaussian, PLD smallest noise, calibrate_dp_mechanism."""
    T = _steps(ctx, 10_000, 1_000)
    head = "import dp_accounting as dpa\nfrom dp_accounting.pld import accountant as pacc, common\n"
    qs = [
        _q("get_sigma_gaussian(ε=1, δ=1e-5)", head, "dpa.get_sigma_gaussian(1.0, 1e-5)", relation="add_remove",
           target="eps", at=1e-5, role="calibration", claim_eps=1.0, events_for=lambda s: (gaussian(s),)),
        _q("get_epsilon_gaussian(σ=1, δ=1e-5)", head, "dpa.get_epsilon_gaussian(1.0, 1e-5)",
           events=(gaussian(1.0),), relation="add_remove", target="eps", at=1e-5, role="upper"),
        _q("get_epsilon_gaussian(σ=1, δ=1e-50)", head, "dpa.get_epsilon_gaussian(1.0, 1e-50)",
           events=(gaussian(1.0),), relation="add_remove", target="eps", at=1e-50, role="upper"),
        _q("get_sigma_gaussian(ε=15, δ=1e-50)", head, "dpa.get_sigma_gaussian(15.0, 1e-50)", relation="add_remove",
           target="eps", at=1e-50, role="calibration", claim_eps=15.0, events_for=lambda s: (gaussian(s),)),
        _q("PLD get_smallest_gaussian_noise((1, 1e-5), 10 queries)", head,
           "pacc.get_smallest_gaussian_noise(common.DifferentialPrivacyParameters(1.0, 1e-5), 10)",
           relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=1.0,
           events_for=lambda s: (gaussian(s, count=10),)),
        _q("PLD get_smallest_laplace_noise((1, 1e-5), 5 queries)", head,
           "pacc.get_smallest_laplace_noise(common.DifferentialPrivacyParameters(1.0, 1e-5), 5)",
           relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=1.0,
           events_for=lambda b: (laplace(b, 5),)),
        _q(f"calibrate_dp_mechanism(RdpAccountant, DP-SGD q=0.01 T={T}, (5, 1e-5))",
           head + "from dp_accounting.rdp import rdp_privacy_accountant as ra\n",
           f"dpa.calibrate_dp_mechanism(ra.RdpAccountant, lambda z: dpa.SelfComposedDpEvent("
           f"dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(z)), {T}), 5.0, 1e-5)",
           relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=5.0,
           events_for=lambda z: (subsampled_gaussian(0.01, z, T),)),
    ]
    if not ctx.quick:
        qs.append(_q("calibrate_dp_mechanism(PLDAccountant, DP-SGD q=0.01 T=200, (1, 1e-5))",
                     head + "from dp_accounting.pld import pld_privacy_accountant as pa\n",
                     "dpa.calibrate_dp_mechanism(pa.PLDAccountant, lambda z: dpa.SelfComposedDpEvent("
                     "dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(z)), 200), 1.0, 1e-5)",
                     relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=1.0,
                     events_for=lambda z: (subsampled_gaussian(0.01, z, 200),)))
    return qs


def dp_accounting_advanced_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's advanced_composition (Kairouz–Oh–Viswanath, on its grid ε(T − 2i)) and its inverse."""
    head = "from dp_accounting.pld import accountant as pacc, common\n"
    P = "common.DifferentialPrivacyParameters"
    return [
        _q("advanced_composition((0.1, 0), 400, δ=1e-5)", head, f"pacc.advanced_composition({P}(0.1, 0.0), 400, 1e-5)",
           events=(approx(0.1, 0.0, 400),), relation="add_remove", target="eps", at=1e-5, role="upper",
           note="KOV optimum on the grid ε(T−2i) only"),
        _q("advanced_composition((0.5, 1e-6), 50, δ=1e-4)", head,
           f"pacc.advanced_composition({P}(0.5, 1e-6), 50, 1e-4)",
           events=(approx(0.5, 1e-6, 50),), relation="add_remove", target="eps", at=1e-4, role="upper"),
        _q("advanced_composition((0.001, 0), 10000, δ=1e-5)", head,
           f"pacc.advanced_composition({P}(0.001, 0.0), 10000, 1e-5)",
           events=(approx(0.001, 0.0, 10_000),), relation="add_remove", target="eps", at=1e-5, role="upper",
           note="REFERENCE pitfall: overflows (exact 0.340640)"),
        _q("get_smallest_epsilon_from_advanced_composition((10, 1e-5), 400)", head,
           f"pacc.get_smallest_epsilon_from_advanced_composition({P}(10.0, 1e-5), 400)",
           relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=10.0,
           events_for=lambda e: (approx(e, 0.0, 400),)),
    ]


# ---------------------------------------------------------------- prv-accountant
_PRV = ("from prv_accountant import PRVAccountant\nfrom prv_accountant.privacy_random_variables import "
        "PoissonSubsampledGaussianMechanism, GaussianMechanism, LaplaceMechanism, PureDPMechanism, "
        "ApproximateDPMechanism\n")


def _prv_triplet(label: str, prvs: str, counts: Sequence[int], events: tuple[Ev, ...], target: str = "eps",
                 at: float = 1e-5, eps_error: float = 0.01, note: str = "") -> list[Query]:
    """prv's (lower, estimate, upper) for one composition: three rows from one library call."""
    if target == "eps":
        call = f"acc.compute_epsilon(delta={at!r}, num_self_compositions={list(counts)})"
        derr = at / 1000
    else:
        call = f"acc.compute_delta(epsilon={at!r}, num_self_compositions={list(counts)})"
        derr = 1e-10
    body = (_PRV + f"acc = PRVAccountant(prvs=[{prvs}], max_self_compositions={list(counts)}, "
            f"eps_error={eps_error!r}, delta_error={derr!r})\nres = {call}\n")
    common = dict(events=events, relation="add_remove", target=target, at=at)
    rel_note = "prv's PoissonSubsampledGaussianMechanism is the remove direction; judged under add/remove"
    n = (note + "; " if note else "") + (rel_note if any(e.kind.startswith("subsampled") for e in events) else "")
    return [_q(f"{label} [lower]", body, "res[0]", role="lower", note=n, **common),
            _q(f"{label} [estimate]", body, "res[1]", role="approximation", note=n, **common),
            _q(f"{label} [upper]", body, "res[2]", role="upper", note=n, **common)]


def prv_queries(ctx: RunContext) -> list[Query]:
    """prv_accountant's PRVAccountant: compute_epsilon / compute_delta (lower, estimate, upper)."""
    T = _steps(ctx, 10_000, 1_000)
    sg = "PoissonSubsampledGaussianMechanism(sampling_probability=0.01, noise_multiplier=1.1)"
    qs = _prv_triplet(f"DP-SGD q=0.01 σ=1.1 T={T}", sg, [T], (subsampled_gaussian(0.01, 1.1, T),))
    qs += _prv_triplet("Gaussian σ=1 at δ=1e-12", "GaussianMechanism(noise_multiplier=1.0)", [1],
                       (gaussian(1.0),), at=1e-12, note="REFERENCE: estimate 7.2377 < exact 7.2385")
    qs += _prv_triplet("100 × Gaussian σ=10", "GaussianMechanism(noise_multiplier=10.0)", [100],
                       (gaussian(10.0, count=100),))
    qs += _prv_triplet("10 × Gaussian σ=2 + 20 × Laplace b=2 + 50 × pure ε=0.1",
                       "GaussianMechanism(noise_multiplier=2.0), LaplaceMechanism(mu=0.5), PureDPMechanism(eps=0.1)",
                       [10, 20, 50], (gaussian(2.0, count=10), laplace(2.0, 20), pure(0.1, 50)))
    qs += _prv_triplet("400 × pure ε=0.1", "PureDPMechanism(eps=0.1)", [400], (pure(0.1, 400),))
    qs += _prv_triplet("50 × (0.5, 1e-6)-DP at δ=1e-4", "ApproximateDPMechanism(epsilon=0.5, delta=1e-6)", [50],
                       (approx(0.5, 1e-6, 50),), at=1e-4)
    if not ctx.quick:
        qs += _prv_triplet("Gaussian σ=1 at δ=1e-16", "GaussianMechanism(noise_multiplier=1.0)", [1],
                           (gaussian(1.0),), at=1e-16, note="tiny δ: absolute error bounds dominate")
        qs += _prv_triplet(f"DP-SGD q=0.01 σ=1.1 T={T} at δ=1e-12", sg, [T], (subsampled_gaussian(0.01, 1.1, T),),
                           at=1e-12)
        qs += _prv_triplet(f"DP-SGD q=0.01 σ=1.1 T={T}, δ(ε=5)", sg, [T], (subsampled_gaussian(0.01, 1.1, T),),
                           target="delta", at=5.0)
        qs += _prv_triplet("DP-SGD q=1e-3 σ=0.8 T=1e6",
                           "PoissonSubsampledGaussianMechanism(sampling_probability=1e-3, noise_multiplier=0.8)",
                           [1_000_000], (subsampled_gaussian(1e-3, 0.8, 1_000_000),), eps_error=0.1)
    return qs


def prv_calibration_queries(ctx: RunContext) -> list[Query]:
    """prv_accountant.dpsgd.find_noise_multiplier (documented tolerance eps_error, default 0.1)."""
    T = _steps(ctx, 10_000, 1_000)
    return [_q(f"find_noise_multiplier(q=0.01, T={T}, (2, 1e-5))", "from prv_accountant.dpsgd import find_noise_multiplier\n",
               f"find_noise_multiplier(sampling_probability=0.01, num_steps={T}, target_epsilon=2.0, target_delta=1e-5)",
               relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=2.0, tolerance=0.1,
               events_for=lambda z: (subsampled_gaussian(0.01, z, T),),
               note="documented: 'eps_error: Error allowed for final epsilon' (default 0.1)")]


# ---------------------------------------------------------------- autodp
_AD = "from autodp import mechanism_zoo as mz, transformer_zoo as tz, dp_bank\n"


def _ad(label: str, build: str, events: tuple[Ev, ...], target: str = "eps", at: float = 1e-5, **kw) -> Query:
    expr = f"m.get_approxDP({at!r})" if target == "eps" else f"m.get_approx_delta({at!r})"
    return _q(label, _AD + f"m = {build}\n", expr, events=events, relation="add_remove", target=target, at=at,
              role="upper", **kw)


def autodp_rdp_queries(ctx: RunContext) -> list[Query]:
    """autodp's RDP-based mechanisms and compositions (Poisson subsampling: add/remove)."""
    T = _steps(ctx, 10_000, 1_000)
    p01, p1 = math.exp(0.1) / (1 + math.exp(0.1)), math.e / (1 + math.e)
    return [
        _ad("100 × GaussianMechanism σ=10", "tz.Composition()([mz.GaussianMechanism(sigma=10.0)], [100])",
            (gaussian(10.0, count=100),)),
        _ad("GaussianMechanism σ=1", "mz.GaussianMechanism(sigma=1.0)", (gaussian(1.0),)),
        _ad("LaplaceMechanism b=1", "mz.LaplaceMechanism(b=1.0)", (laplace(1.0),)),
        _ad("10 × LaplaceMechanism b=2", "tz.Composition()([mz.LaplaceMechanism(b=2.0)], [10])", (laplace(2.0, 10),)),
        _ad("RandresponseMechanism ε=0.1", f"mz.RandresponseMechanism(p={p01!r})", (rr(0.1),)),
        _ad("400 × RandresponseMechanism ε=0.1", f"tz.Composition()([mz.RandresponseMechanism(p={p01!r})], [400])",
            (rr(0.1, 2, 400),)),
        _ad("400 × PureDP_Mechanism ε=0.1", "tz.Composition()([mz.PureDP_Mechanism(eps=0.1)], [400])",
            (pure(0.1, 400),)),
        _ad("10 × Gaussian σ=2 + 5 × Laplace b=1 + 20 × RR ε=1",
            f"tz.Composition()([mz.GaussianMechanism(sigma=2.0), mz.LaplaceMechanism(b=1.0), "
            f"mz.RandresponseMechanism(p={p1!r})], [10, 5, 20])",
            (gaussian(2.0, count=10), laplace(1.0, 5), rr(1.0, 2, 20))),
        _ad(f"SubsampleGaussianMechanism q=0.01 σ=1.1 T={T}, characteristic-function (phi) accountant",
            f"mz.SubsampleGaussianMechanism({{'prob': 0.01, 'sigma': 1.1, 'coeff': {T}}}, phi_off=False)",
            (subsampled_gaussian(0.01, 1.1, T),), note="REFERENCE pitfall: broken in 0.2.3.1"),
        _ad(f"NoisySGD_Mechanism q=0.01 σ=1.1 T={T}", f"mz.NoisySGD_Mechanism(prob=0.01, sigma=1.1, niter={T})",
            (subsampled_gaussian(0.01, 1.1, T),)),
    ]


def autodp_gaussian_queries(ctx: RunContext) -> list[Query]:
    """autodp's ExactGaussianMechanism (analytic ε(δ); δ(ε) through an RDP fall-back) and dp_bank."""
    qs = [_ad("ExactGaussianMechanism σ=1, ε(1e-5)", "mz.ExactGaussianMechanism(sigma=1.0)", (gaussian(1.0),)),
          _ad("ExactGaussianMechanism σ=1, ε(1e-12)", "mz.ExactGaussianMechanism(sigma=1.0)", (gaussian(1.0),),
              at=1e-12),
          _q("dp_bank.get_eps_ana_gaussian(σ=1, δ=1e-5)", _AD, "dp_bank.get_eps_ana_gaussian(1.0, 1e-5)",
             events=(gaussian(1.0),), relation="add_remove", target="eps", at=1e-5, role="upper")]
    for sigma in (2.0, 1.0, 0.5):
        for e in (1.0, 2.0):
            qs.append(_ad(f"ExactGaussianMechanism σ={sigma:g}, δ(ε={e:g})", f"mz.ExactGaussianMechanism(sigma={sigma!r})",
                          (gaussian(sigma),), target="delta", at=e,
                          note="REFERENCE pitfall: get_approx_delta falls back to RDP (overstates δ)"))
    return qs


def autodp_calibration_queries(ctx: RunContext) -> list[Query]:
    """autodp's calibrators (accept |ε − target| < 1e-3 by construction)."""
    T = _steps(ctx, 1_000, 200)
    head = "from autodp import mechanism_zoo as mz, calibrator_zoo as cz\n"
    note = "the calibrator accepts |ε − target| < 1e-3"
    return [
        _q("eps_delta_calibrator(ExactGaussianMechanism, (1, 1e-5))", head,
           "cz.eps_delta_calibrator()(mz.ExactGaussianMechanism, 1.0, 1e-5, [0.1, 50]).params['sigma']",
           relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=1.0, tolerance=1e-3,
           events_for=lambda s: (gaussian(s),), note=note),
        _q(f"generalized_eps_delta_calibrator(SubsampleGaussianMechanism q=0.01 T={T}, (2, 1e-5))", head,
           f"cz.generalized_eps_delta_calibrator()(mz.SubsampleGaussianMechanism, 2.0, 1e-5, [0.3, 10], "
           f"params={{'prob': 0.01, 'sigma': None, 'coeff': {T}}}, para_name='sigma').params['sigma']",
           relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=2.0, tolerance=1e-3,
           events_for=lambda s: (subsampled_gaussian(0.01, s, T),), note=note),
    ]


# ---------------------------------------------------------------- opacus
def _op(label: str, cls: str, history: list[tuple], events: tuple[Ev, ...], at: float = 1e-5, role: str = "upper",
        note: str = "") -> Query:
    body = f"from opacus.accountants import {cls}\nacc = {cls}()\nacc.history = {history!r}\n"
    return _q(label, body, f"acc.get_epsilon(delta={at!r})", events=events, relation="add_remove", target="eps",
              at=at, role=role, note=note)


def opacus_queries(ctx: RunContext) -> list[Query]:
    """opacus' RDPAccountant and PRVAccountant (bounds) and GaussianAccountant (CLT approximation)."""
    T = _steps(ctx, 10_000, 1_000)
    h = T // 2
    one = [(1.1, 0.01, T)]
    two = [(1.1, 0.01, h), (2.0, 0.01, h)]
    ev1 = (subsampled_gaussian(0.01, 1.1, T),)
    ev2 = (subsampled_gaussian(0.01, 1.1, h), subsampled_gaussian(0.01, 2.0, h))
    gdp_note = "central-limit GDP view (Bu et al. 2020): documented approximation"
    return [
        _op(f"RDPAccountant DP-SGD q=0.01 σ=1.1 T={T}", "RDPAccountant", one, ev1),
        _op(f"PRVAccountant DP-SGD q=0.01 σ=1.1 T={T}", "PRVAccountant", one, ev1),
        _op(f"GaussianAccountant DP-SGD q=0.01 σ=1.1 T={T}", "GaussianAccountant", one, ev1, role="approximation",
            note=gdp_note),
        _op(f"RDPAccountant σ=1.1 then σ=2 ({h} steps each)", "RDPAccountant", two, ev2),
        _op(f"PRVAccountant σ=1.1 then σ=2 ({h} steps each)", "PRVAccountant", two, ev2),
        _op(f"GaussianAccountant σ=1.1 then σ=2 ({h} steps each)", "GaussianAccountant", two, ev2,
            role="approximation", note=gdp_note + "; get_epsilon reads only the last history entry"),
    ]


def opacus_calibration_queries(ctx: RunContext) -> list[Query]:
    """opacus.accountants.utils.get_noise_multiplier with the rdp, prv and gdp accountants."""
    T = _steps(ctx, 10_000, 1_000)
    head = "from opacus.accountants.utils import get_noise_multiplier\n"
    out = []
    for acc in ("rdp", "prv", "gdp"):
        out.append(_q(f"get_noise_multiplier(accountant={acc!r}, q=0.01, T={T}, (5, 1e-5))", head,
                      f"get_noise_multiplier(target_epsilon=5.0, target_delta=1e-5, sample_rate=0.01, steps={T}, "
                      f"accountant={acc!r})",
                      relation="add_remove", target="eps", at=1e-5, role="calibration", claim_eps=5.0,
                      events_for=lambda z: (subsampled_gaussian(0.01, z, T),), approximate=acc == "gdp",
                      note="CLT approximation" if acc == "gdp" else ""))
    return out


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


_PEERS = [
    _Peer("peers.dp_accounting.pld", "dp_accounting", ("dp_accounting",), ("dp-accounting",),
          "pld.PLDAccountant, privacy_loss_distribution",
          "dp_accounting's PLD ε(δ) and δ(ε) (pessimistic, add/remove and replace-one) are upper bounds",
          dp_accounting_pld_queries),
    _Peer("peers.dp_accounting.rdp", "dp_accounting", ("dp_accounting",), ("dp-accounting",),
          "rdp.RdpAccountant", "dp_accounting's RDP accountant answers are upper bounds", dp_accounting_rdp_queries),
    _Peer("peers.dp_accounting.calibration", "dp_accounting", ("dp_accounting",), ("dp-accounting",),
          "get_sigma_gaussian, pld.accountant.get_smallest_*, calibrate_dp_mechanism",
          "dp_accounting's calibrated parameters achieve the target (ε, δ)", dp_accounting_calibration_queries),
    _Peer("peers.dp_accounting.advanced_composition", "dp_accounting", ("dp_accounting",), ("dp-accounting",),
          "pld.accountant.advanced_composition",
          "dp_accounting's advanced (KOV) composition is an upper bound on the optimal composition",
          dp_accounting_advanced_queries),
    _Peer("peers.prv_accountant.prv", "prv_accountant", ("prv_accountant",), ("prv-accountant",),
          "PRVAccountant.compute_epsilon/compute_delta",
          "prv_accountant's (lower, estimate, upper): lower ≤ truth ≤ upper; the estimate is an approximation",
          prv_queries),
    _Peer("peers.prv_accountant.calibration", "prv_accountant", ("prv_accountant",), ("prv-accountant",),
          "dpsgd.find_noise_multiplier", "prv_accountant's noise multiplier achieves the target ε within eps_error",
          prv_calibration_queries),
    _Peer("peers.autodp.rdp", "autodp", ("autodp",), ("autodp",), "mechanism_zoo + transformer_zoo (RDP)",
          "autodp's get_approxDP of mechanisms and compositions is an upper bound", autodp_rdp_queries),
    _Peer("peers.autodp.gaussian", "autodp", ("autodp",), ("autodp",),
          "ExactGaussianMechanism, dp_bank.get_eps_ana_gaussian",
          "autodp's exact Gaussian ε(δ) and δ(ε) are upper bounds (exact where analytic)", autodp_gaussian_queries),
    _Peer("peers.autodp.calibration", "autodp", ("autodp",), ("autodp",), "calibrator_zoo",
          "autodp's calibrated parameters achieve the target (ε, δ)", autodp_calibration_queries),
    _Peer("peers.opacus.accountants", "opacus", ("opacus",), ("opacus", "torch"),
          "accountants.RDPAccountant, PRVAccountant, GaussianAccountant",
          "opacus' RDP and PRV get_epsilon are upper bounds; the GDP accountant is an approximation",
          opacus_queries, OPACUS_HINT),
    _Peer("peers.opacus.calibration", "opacus", ("opacus",), ("opacus", "torch"),
          "accountants.utils.get_noise_multiplier",
          "opacus' get_noise_multiplier achieves the target ε (rdp, prv); gdp is an approximation",
          opacus_calibration_queries, OPACUS_HINT),
]


def run_peer(peer: _Peer, ctx: RunContext) -> Outcome:
    """Run one peer claim: skip with the install hint when its library is absent, else judge its queries."""
    absent = missing(*peer.modules)
    if absent is not None:
        out = skipped(peer.library, peer.hint)
        out.details["versions"] = versions(*peer.dists)
        return out
    return audit_queries(peer.build(ctx), peer.library, peer.dists, peer.statement)


def _register(peer: _Peer) -> None:
    CATALOGUE.add_claim(Claim(peer.claim_id, peer.library, peer.where, "bound", peer.statement, ("numeric",)))
    check(peer.claim_id, "numeric")(lambda ctx, _p=peer: run_peer(_p, ctx))


for _p in _PEERS:
    _register(_p)
