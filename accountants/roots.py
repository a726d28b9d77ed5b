"""Root finding that returns the conservative end, and outward rounding, for the accountants.

An accountant's answer is a bound: the ε it reports must have a true δ at most
the requested δ. A root finder that stops at a tolerance may land on either
side of the root; :func:`conservative_root` brackets the root, finds it with
Brent's method and then steps towards the safe side until the function, as
evaluated, is on that side. :func:`round_up` moves a float up by a few units in
the last place to absorb the rounding of a closed form. Brent's method is a pure-Python port of
scipy's ``brentq`` (same iterates), so the light paths (``privcheck budget gdp``) do not import
scipy.optimize (2.8 s on a loaded machine).
"""

from __future__ import annotations

import math
from typing import Callable

__all__ = ["conservative_root", "round_up", "BracketError"]


class BracketError(ValueError):
    """The function does not change sign on the given interval (no root to bracket)."""


def round_up(x: float, ulps: int = 4) -> float:
    """``x`` moved up by ``ulps`` units in the last place (``inf`` and ``nan`` unchanged)."""
    if not math.isfinite(x):
        return x
    for _ in range(ulps):
        x = math.nextafter(x, math.inf)
    return x


def round_down(x: float, ulps: int = 4) -> float:
    """``x`` moved down by ``ulps`` units in the last place (``inf`` and ``nan`` unchanged)."""
    if not math.isfinite(x):
        return x
    for _ in range(ulps):
        x = math.nextafter(x, -math.inf)
    return x


def _brentq(f: Callable[[float], float], xa: float, xb: float, xtol: float, rtol: float, maxiter: int) -> float:
    """Brent's root finder, a line-by-line port of scipy's ``brentq.c`` (Brent 1973, ch. 4).

    ``f(xa)`` and ``f(xb)`` must differ in sign (else ValueError); RuntimeError after ``maxiter``.
    """
    xpre, xcur = xa, xb
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = f(xpre), f(xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            try:
                if xpre == xblk:  # interpolate
                    stry = -fcur * (xcur - xpre) / (fcur - fpre)
                else:  # extrapolate
                    dpre = (fpre - fcur) / (xpre - xcur)
                    dblk = (fblk - fcur) / (xblk - xcur)
                    stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            except ZeroDivisionError:  # C gives inf/nan here, which fails the test below: bisect
                stry = math.nan
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):  # good short step
                spre, scur = scur, stry
            else:  # bisect
                spre = scur = sbis
        else:  # bisect
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = f(xcur)
    raise RuntimeError("brentq did not converge")


def conservative_root(
    f: Callable[[float], float], lo: float, hi: float, *, safe: str = "high", rtol: float = 4e-16
) -> float:
    """A point next to the root of a monotone ``f`` on ``[lo, hi]`` on the ``safe`` side of it.

    ``safe="high"``: ``f`` is decreasing with ``f(lo) > 0 >= f(hi)``; returns an
    ``x`` with ``f(x) <= 0`` (as evaluated) within a few relative ulps of the root,
    i.e. the smallest such float up to the step search. ``safe="low"``: ``f`` is
    increasing with ``f(lo) <= 0 < f(hi)``; returns ``x`` with ``f(x) <= 0``, the
    largest such up to the step search. If ``f(lo) <= 0`` (resp. ``f(hi) <= 0``)
    the end itself is returned. Raises :class:`BracketError` if the safe end of
    the bracket is not safe.
    """
    if safe not in ("high", "low"):
        raise ValueError("safe must be 'high' or 'low'")
    safe_end, other_end = (hi, lo) if safe == "high" else (lo, hi)
    if not f(safe_end) <= 0:
        raise BracketError(f"no sign change on [{lo!r}, {hi!r}]: the safe end has f > 0")
    if f(other_end) <= 0:
        return other_end
    try:
        x = float(
            _brentq(
                f, lo, hi, xtol=5e-324 if lo == 0 or hi == 0 else 1e-300, rtol=max(rtol, 4 * 2.0**-52), maxiter=1000
            )
        )
    except (ValueError, RuntimeError):
        x = (lo + hi) / 2
    # walk to the safe side: f(x) <= 0 as evaluated
    direction = 1.0 if safe == "high" else -1.0
    step = max(abs(x) * 2.0**-52, 5e-324)
    while not f(x) <= 0:
        nxt = x + direction * step
        if (safe == "high" and nxt >= hi) or (safe == "low" and nxt <= lo):
            return safe_end
        x = nxt
        step *= 2.0
    return x
