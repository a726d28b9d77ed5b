"""Root finding that returns the conservative end, and outward rounding, for the accountants.

An accountant's answer is a bound: the ε it reports must have a true δ at most
the requested δ. A root finder that stops at a tolerance may land on either
side of the root; :func:`conservative_root` brackets the root, finds it with
Brent's method and then steps towards the safe side until the function, as
evaluated, is on that side. :func:`round_up` moves a float up by a few units in
the last place to absorb the rounding of a closed form.
"""
from __future__ import annotations

import math
from typing import Callable

from scipy import optimize

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


def conservative_root(f: Callable[[float], float], lo: float, hi: float, *, safe: str = "high",
                      rtol: float = 4e-16) -> float:
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
        x = float(optimize.brentq(f, lo, hi, xtol=5e-324 if lo == 0 or hi == 0 else 1e-300,
                                  rtol=max(rtol, 4 * 2.0**-52), maxiter=1000))
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
