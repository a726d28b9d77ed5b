"""privcheck's certified interval on ε(δ) or δ(ε) for a tuple of :class:`Ev` (closed forms, else the PLD accountant)."""

from __future__ import annotations

import functools
import importlib
import math
from dataclasses import dataclass

from privcheck.catalogue.peers.events import (
    REL_EXACT,
    RELATIONS,
    Ev,
)


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
            return widen(
                gdp.gdp_eps(mu, at),
                "exact GDP (002 Lemmas 1-3)",
                f"from accountants.gdp import gdp_eps\nprint(gdp_eps({mu!r}, {at!r}))",
            )
        return widen(
            gdp.gdp_delta(mu, at),
            "exact GDP (002 Lemmas 1-3)",
            f"from accountants.gdp import gdp_delta\nprint(gdp_delta({mu!r}, {at!r}))",
        )
    if len(events) == 1:
        e = events[0]
        binary = e.kind == "pure" or (e.kind == "rr" and e.p("k") == 2)
        if binary:
            eps, T = e.p("eps"), e.count
            if target == "eps":
                return widen(
                    comp.rr_composition_eps(eps, T, at),
                    "exact binomial sum (Kairouz-Oh-Viswanath)",
                    f"from accountants.composition import rr_composition_eps\n"
                    f"print(rr_composition_eps({eps!r}, {T}, {at!r}))",
                )
            return widen(
                comp.rr_composition_delta(eps, T, at),
                "exact binomial sum (Kairouz-Oh-Viswanath)",
                f"from accountants.composition import rr_composition_delta\n"
                f"print(rr_composition_delta({eps!r}, {T}, {at!r}))",
            )
        if e.kind == "approx" and target == "eps":
            eps, d, T = e.p("eps"), e.p("delta"), e.count
            r = comp.optimal_composition(eps, T, at, d)
            return widen(
                r.eps,
                "exact optimal composition (Kairouz-Oh-Viswanath Thm 3.3)",
                f"from accountants.composition import optimal_composition\n"
                f"print(optimal_composition({eps!r}, {T}, {at!r}, {d!r}).eps)",
            )
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
            return P.GaussianEvent(
                sigma=e.p("sigma"), sensitivity=e.p("sensitivity")
            ), f"GaussianEvent(sigma={e.p('sigma')!r}, sensitivity={e.p('sensitivity')!r})"
        if k == "laplace":
            return P.LaplaceEvent(b=e.p("b")), f"LaplaceEvent(b={e.p('b')!r})"
        if k == "discrete_laplace":
            return P.DiscreteLaplaceEvent(
                a=e.p("a"), sensitivity=int(e.p("sensitivity"))
            ), f"DiscreteLaplaceEvent(a={e.p('a')!r}, sensitivity={int(e.p('sensitivity'))})"
        if k == "rr":
            return P.RandomizedResponseEvent(
                eps=e.p("eps"), k=int(e.p("k"))
            ), f"RandomizedResponseEvent(eps={e.p('eps')!r}, k={int(e.p('k'))})"
        if k == "pure":
            return P.PureDPEvent(eps=e.p("eps")), f"PureDPEvent(eps={e.p('eps')!r})"
        if k == "subsampled_gaussian":
            return P.PoissonSampledEvent(
                P.GaussianEvent(sigma=e.p("sigma"), sensitivity=1.0), q=e.p("q")
            ), f"PoissonSampledEvent(GaussianEvent(sigma={e.p('sigma')!r}, sensitivity=1.0), q={e.p('q')!r})"
        if k == "subsampled_laplace":
            return P.PoissonSampledEvent(
                P.LaplaceEvent(b=e.p("b")), q=e.p("q")
            ), f"PoissonSampledEvent(LaplaceEvent(b={e.p('b')!r}), q={e.p('q')!r})"
        raise KeyError(k)

    return [(one(e), e.count) for e in events]


#: the FFT size of the finer certification asked when an answer falls strictly inside the first interval
FINE_FFT_SIZE = 2**20


def _pld_accountant(events: tuple[Ev, ...], relation: str, fine: bool):
    """privcheck's PLD accountant of ``events`` under ``relation`` and the code that built the events (None
    when not available or not covered); coarse grids come from :func:`_shared_accountant`."""
    try:
        PLDAccountant = importlib.import_module("accountants.pld").PLDAccountant
    except (ImportError, AttributeError):
        return None
    try:
        built = _pld_events(events)
    except (KeyError, AttributeError, TypeError):
        return None
    from privcheck.base.errors import PrivcheckUsageError

    size = {"target_fft_size": FINE_FFT_SIZE} if fine else {}
    try:
        acc = PLDAccountant(relation=relation, **size)
        for (ev, _src), count in built:
            acc.compose(ev, count=count)
    except PrivcheckUsageError:  # e.g. subsampling under replace_one: not certified here
        return None
    return acc, built


@functools.lru_cache(maxsize=4)
def _shared_accountant(events: tuple[Ev, ...], relation: str):
    """:func:`_pld_accountant` on the default grid, one per composition and relation in this process: the
    queries of a grid of δ (or ε) values share its composed PLD instead of rebuilding it (issue 33). Its
    grid step depends only on the composition, so an answer does not depend on the queries asked before.
    Finer grids (hundreds of MB) are not kept."""
    return _pld_accountant(events, relation, False)


def _pld_oracle(events: tuple[Ev, ...], relation: str, target: str, at: float, fine: bool = False) -> Certified | None:
    """privcheck's certified PLD accountant (accountants.pld.PLDAccountant), when available; ``fine``: on a
    grid of :data:`FINE_FFT_SIZE` points (narrower, slower)."""
    got = _pld_accountant(events, relation, True) if fine else _shared_accountant(events, relation)
    if got is None:
        return None
    acc, built = got
    opts = f", target_fft_size={FINE_FFT_SIZE}" if fine else ""
    lines = ["from accountants.pld import *", f"acc = PLDAccountant(relation={relation!r}{opts})"]
    for (_ev, src), count in built:
        lines.append(f"acc.compose({src}, count={count})")
    iv = acc.epsilon(delta=at) if target == "eps" else acc.delta(eps=at)
    lines.append(f"print(acc.epsilon(delta={at!r}))" if target == "eps" else f"print(acc.delta(eps={at!r}))")
    how = getattr(iv, "method", "")
    notes = "; ".join(getattr(iv, "notes", ()) or ())
    method = (
        f"privcheck PLD accountant ({'finer grid, ' if fine else ''}certified interval"
        + (f", {how}" if how else "")
        + (f"; {notes}" if notes else "")
        + ")"
    )
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


@functools.lru_cache(maxsize=64)
def certified_finer(events: tuple[Ev, ...], relation: str, target: str, at: float) -> Certified | None:
    """As :func:`certified` from the PLD accountant on a finer grid (:data:`FINE_FFT_SIZE` points): asked
    when an answer lies strictly inside the first interval, to decide it if the truth allows (None when
    the PLD accountant does not cover the events)."""
    if relation not in RELATIONS or target not in ("eps", "delta"):
        raise ValueError(f"relation must be one of {RELATIONS} and target 'eps' or 'delta'")
    return _pld_oracle(events, relation, target, at, fine=True)
