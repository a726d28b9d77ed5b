"""Certified inverse of the regularised incomplete beta function for integer parameters (no scipy).

For integers a, b ≥ 1 the regularised incomplete beta is a binomial tail,

    I_x(a, b) = P(Bin(a + b − 1, x) ≥ a),

which is all Clopper–Pearson needs (Clopper & Pearson 1934; the lower limit is the α quantile
of Beta(k, n − k + 1), the upper limit the 1 − α quantile of Beta(k + 1, n − k)).

Evaluation (:func:`binomial_tail_log_bounds`): I_x(a, b) = C(N, a) x^a (1 − x)^b · K, the form of
Numerical Recipes' ``betai`` with N = a + b − 1; the prefactor is the binomial probability
``pmf(a; N, x) · (1 − x)`` (N = a + b − 1), evaluated in log space with Loader's saddle-point
form (``stirlerr`` and the deviance ``bd0``; Loader 2000, as in R's ``dbinom``), which keeps full
relative precision for N up to 2^53 where ``lgamma`` differences would lose ~N·1e−16; the
continued fraction K is evaluated by the modified Lentz method on the side where it converges
(x < (a + 1)/(a + b + 2)), otherwise through I_x(a, b) = 1 − I_{1−x}(b, a). A tail of at most
2000 terms is summed term by term instead (small k with huge n: there the fraction in 1 − x
would inherit the rounding of 1 − x, ~1e−16/x relatively). Error budget, relative, worst cases:
log pmf ≤ 1.4e−11 (bd0's direct form, 2e−14 relatively, at log pmf ≥ −700), continued fraction
≤ 1.3e−12 (3000 iterations × 4 roundings) plus its truncation ≤ 2e−14 (it stops only after a
factor equal to 1 to the last bit that follows two fast-decaying ones, see ``_cf``), finite sum ≤ 2.4e−11 (2000 log-ratio steps of
~1.2e−14); :data:`REL_ERR` = 2e−10 covers their sum five times over, and tests/test_betainc.py
checks the resulting intervals against mpmath's exact tails. Every value is returned as an
interval widened by REL_ERR.

Inversion (:func:`betaincinv_safe`, :func:`betainccinv_safe`): a bracketed Illinois search on the
binary representation of doubles (:func:`_search`), keeping an end point whose *interval* lies on the required side of
the target. The result is therefore never inside the exact quantile (lower ends down, upper ends
up); it is tight to about REL_ERR / |d log I / d log x| relatively. When the interval cannot
decide (the continued fraction did not converge, or the target is within the error budget) the
search treats the point as not certified, so it returns the last certified point, still safe.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal, localcontext

from privcheck.base.normal import normal_quantile

__all__ = ["REL_ERR", "binomial_tail_log_bounds", "betaincinv_safe", "betainccinv_safe"]

#: relative error budget of one evaluation of I_x(a, b) (worst float error analysed: ~3e−11, see module doc)
REL_ERR = 2e-10

_MAX_EXACT = 2.0**53  # integers beyond this are not exact doubles
_LOG_2PI = math.log(2.0 * math.pi)
_CF_AMPLIFICATION = 1e3  # above this rounding amplification the fraction is redone in 40 digits
_CF_MAX_ITER = 3_000  # beyond this (only within a fraction of a standard deviation of the mean) the search stops
_RESOLUTION = 2**19  # final bracket width in doubles (relative ~1.2e−10 within a binade)
_SUM_TERMS = 2_000  # tails with at most this many terms are summed term by term
_TINY = 1e-300
# stirlerr(n) = log(n!) − [(n + ½) log n − n + ½ log 2π], exact to ~1e−15 absolutely from lgamma for n ≤ 15
_SFERR = [0.0] + [math.lgamma(i + 1.0) - (i + 0.5) * math.log(i) + i - 0.5 * _LOG_2PI for i in range(1, 16)]


def _stirlerr(n: float) -> float:
    """Error of Stirling's formula for log n! (n a positive integer as float); Loader (2000)."""
    if n <= 15.0:
        return _SFERR[int(n)]
    nn = n * n
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, m: float) -> float:
    """Deviance term x log(x/m) + m − x ≥ 0, without cancellation when x ≈ m (Loader 2000)."""
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2.0 * x * v
        v *= v
        for j in range(1, 1000):
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
    return x * math.log(x / m) + m - x


def _log_pmf(k: float, n: float, x: float) -> float:
    """log P(Bin(n, x) = k) for integers 0 ≤ k ≤ n (floats), 0 < x < 1, relative precision kept for huge n."""
    nx = n * x
    nq = n - nx if x < 0.5 else n * (1.0 - x)  # 1 − x is exact for x ≥ ½
    if k == 0:
        return n * math.log1p(-x)
    if k == n:
        return n * math.log(x)
    lc = _stirlerr(n) - _stirlerr(k) - _stirlerr(n - k) - _bd0(k, nx) - _bd0(n - k, nq)
    return lc - 0.5 * (_LOG_2PI + math.log(k) + math.log(n - k) - math.log(n))  # n − k exact (not 1 − k/n)


def _cf(a: float, b: float, x: float) -> float | None:
    """Continued fraction of I_x(a, b) (Numerical Recipes ``betacf``, modified Lentz); None if not converged.

    Each Lentz step forms 1 + aa·d and 1 + aa/c; where these cancel (x close to the switch point
    (a + 1)/(a + b + 2), for large a or b: 1 − (a + b)x/(a + 1) can be 3e−7 while its terms are 1),
    the step's rounding is amplified by |aa·d|/|1 + aa·d| and propagates to every later factor:
    k = 144886108, n = 144888108, x = 0.99998614 lost 5.6e−10 relatively, beyond REL_ERR (issue 29
    §2). The amplification is tracked; above :data:`_CF_AMPLIFICATION` the fraction is redone in
    40-digit decimal arithmetic (:func:`_cf_wide`), where the same amplification costs ~1e−33."""
    h, amp = _cf_float(a, b, x)
    if h is not None and amp <= _CF_AMPLIFICATION:
        return h
    return _cf_wide(a, b, x)


def _cf_float(a: float, b: float, x: float) -> tuple[float | None, float]:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    amp = (qab * x / qap) / abs(d) if d != 0 else math.inf
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    e1 = e2 = math.inf  # |de − 1| of the previous two iterations
    for m in range(1, _CF_MAX_ITER):
        m2 = 2.0 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            ad, ac = aa * d, aa / c
            d = 1.0 + ad
            c = 1.0 + ac
            amp = max(amp, abs(ad) / abs(d) if d != 0 else math.inf, abs(ac) / abs(c) if c != 0 else math.inf)
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = c if abs(c) > _TINY else _TINY
            de = d * c
            h *= de
        e0 = abs(de - 1.0)
        # converged when the last factor is 1 to the last bit AND the factors before it were already
        # small and decaying fast (d·c can round to 1.0 by coincidence): the rest is <= e1·r/(1 − r),
        # r = e1/e2 <= 1/2, i.e. <= 2e−14
        if e0 < 1e-16 and e1 < 1e-14 and e1 <= 0.5 * e2:
            return h, amp
        e2, e1 = e1, e0
    return None, amp


def _cf_wide(a: float, b: float, x: float) -> float | None:
    """The same continued fraction in 40-digit decimal arithmetic (a, b, x exact), rounded to a double.

    Python's ``decimal`` rounds every operation correctly at the context's precision and runs in C
    (libmpdec): about 10 times faster than the same loop in mpmath, with the same 40 digits."""
    with localcontext() as ctx:
        ctx.prec = 40
        a_, b_, x_ = Decimal(a), Decimal(b), Decimal(x)
        qab, qap, qam = a_ + b_, a_ + 1, a_ - 1
        one, tiny, eps = Decimal(1), Decimal("1e-300"), Decimal("1e-30")
        c = one
        d = one - qab * x_ / qap
        d = one / (d if abs(d) > tiny else tiny)
        h = d
        e1 = e2 = Decimal("Infinity")
        for m in range(1, 4 * _CF_MAX_ITER):
            m2 = 2 * m
            for aa in (
                m * (b_ - m) * x_ / ((qam + m2) * (a_ + m2)),
                -(a_ + m) * (qab + m) * x_ / ((a_ + m2) * (qap + m2)),
            ):
                d = one + aa * d
                d = one / (d if abs(d) > tiny else tiny)
                c = one + aa / c
                c = c if abs(c) > tiny else tiny
                de = d * c
                h *= de
            e0 = abs(de - one)
            if e0 < eps and e1 < 100 * eps and e1 <= e2 / 2:
                return float(h)
            e2, e1 = e1, e0
    return None


def _check_ab(a, b) -> tuple[float, float]:
    for name, v in (("a", a), ("b", b)):
        if int(v) != v or not 1 <= v <= _MAX_EXACT:
            raise ValueError(f"{name} must be an integer in [1, 2**53], got {v!r}")
    return float(a), float(b)


def _direct_log(a: float, b: float, x: float, lower: bool, y: float | None = None) -> float | None:
    """log of I_x(a, b) (lower=False: the tail P(Bin(N, x) ≥ a)) or of 1 − I_x(a, b) = I_{1−x}(b, a)
    (lower=True: P(Bin(N, x) ≤ a − 1)) from the continued fraction on its converging side; None if
    that side is not the converging one or the fraction did not converge.

    lower=True evaluates at the point ``1 − y`` (``y``: a double, default ``1 − x`` rounded), which
    is exact in doubles, so the prefactor and the fraction in ``y`` describe one and the same
    point; :func:`_log_side` brackets ``x`` by two such points when ``1 − x`` is not a double."""
    n = a + b - 1.0
    if not lower:  # I_x(a, b): prefactor pmf(a; N, x)·(1 − x)
        if not x < (a + 1.0) / (a + b + 2.0):
            return None
        h = _cf(a, b, x)
        log_pre = _log_pmf(a, n, x) + math.log1p(-x)
    else:  # I_{1−x}(b, a): prefactor pmf(b; N, 1 − x)·x = pmf(a − 1; N, x)·x
        y = 1.0 - x if y is None else y
        if not y < (b + 1.0) / (a + b + 2.0):
            return None
        x = 1.0 - y  # exact (Sterbenz) for y ≥ ½; y < ½ comes only from x > ½, where 1 − x was exact
        h = _cf(b, a, y)
        log_pre = _log_pmf(a - 1.0, n, x) + math.log(x)
    if h is None or not h > 0:
        return None
    return log_pre + math.log(h)


def _sum_log(a: float, b: float, x: float, lower: bool) -> float:
    """log of the tail as a finite sum of at most :data:`_SUM_TERMS` binomial probabilities.

    lower=False: P(X ≥ a) = Σ_{j=a}^{N} pmf(j); lower=True: P(X ≤ a − 1) = Σ_{j=0}^{a−1} pmf(j)
    (X ~ Bin(N, x), N = a + b − 1). The terms are computed from the largest index inwards by the
    ratio pmf(j ∓ 1)/pmf(j), all in log space relative to the first term; only x and log1p(−x) are
    used, so no 1 − x is rounded (the continued fraction in 1 − x loses ~1e−16/x relatively).
    """
    n = a + b - 1.0
    lr = math.log(x) - math.log1p(-x)  # log(x / (1 − x))
    if lower:
        j, stop, step = a - 1.0, -1.0, -1.0
    else:
        j, stop, step = a, n + 1.0, 1.0
    first = _log_pmf(j, n, x)
    total, t, top = 1.0, 0.0, 0.0  # Σ exp(t_i − top), top = the largest t_i so far
    while True:
        nj = j + step
        if nj == stop:
            break
        dt = math.log((n - j) / nj) + lr if step > 0 else math.log(j / (n - nj)) - lr
        t += dt
        j = nj
        if t > top:
            total, top = total * math.exp(top - t) + 1.0, t
        else:
            term = math.exp(t - top)
            total += term
            if dt < 0 and term < 1e-17 * total:  # decreasing terms with decreasing ratios: the rest is negligible
                break
    return first + top + math.log(total)


def _log_side(a: float, b: float, x: float, lower: bool) -> tuple[float, float] | None:
    """Bounds ``(lo, hi)`` (before :data:`REL_ERR`) on the log of the requested tail by a finite sum
    (few terms) or the continued fraction (its side); else None.

    The fraction of the lower tail runs in 1 − x; when 1 − x is not a double (x < ½), the tail at x
    lies between its values at the two points 1 − y on either side of x (y the doubles around
    1 − x), the tail being monotone in x, so both are evaluated. (Using 1 − x rounded with the
    prefactor at x is wrong by up to |d log I / d x|·2^−54: ~8e−8 relatively at n = 10^12.)"""
    if (a if lower else b) <= _SUM_TERMS:  # few terms: exact finite sum, no 1 − x rounded
        s = _sum_log(a, b, x, lower)
        return s, s
    if not lower:
        v = _direct_log(a, b, x, lower)
        return None if v is None else (v, v)
    y = 1.0 - x
    if 1.0 - y == x:
        v = _direct_log(a, b, x, lower, y)
        return None if v is None else (v, v)
    y2 = math.nextafter(y, 0.0 if 1.0 - y < x else 1.0)  # 1 − y and 1 − y2 lie on either side of x
    v1, v2 = _direct_log(a, b, x, lower, y), _direct_log(a, b, x, lower, y2)
    if v1 is None or v2 is None:
        return None
    return min(v1, v2), max(v1, v2)


def binomial_tail_log_bounds(a, b, x: float, lower: bool = False) -> tuple[float, float]:
    """Certified bounds ``(lo, hi)`` on log I_x(a, b) (``lower=True``: on log(1 − I_x(a, b))).

    a, b: integers in [1, 2^53]; x: float in [0, 1]. I_x(a, b) = P(Bin(a + b − 1, x) ≥ a), so
    ``lower=True`` bounds log P(Bin(a + b − 1, x) ≤ a − 1) with full relative precision in its
    small tail. Returns ``(-inf, 0.0)`` when the evaluation cannot be certified (the continued
    fraction did not converge): an interval that is always true.
    """
    a, b = _check_ab(a, b)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must be in [0, 1], got {x!r}")
    if x == 0.0 or x == 1.0:
        val = 0.0 if (x == 1.0) != lower else -math.inf
        return val, val
    direct = _log_side(a, b, x, lower)
    if direct is not None:
        return direct[0] + math.log1p(-REL_ERR), direct[1] + math.log1p(REL_ERR)
    comp = _log_side(a, b, x, not lower)  # the other side converges: value = 1 − comp
    if comp is None:
        return -math.inf, 0.0
    c_lo, c_hi = math.exp(comp[0]) * (1.0 - REL_ERR), math.exp(comp[1]) * (1.0 + REL_ERR)
    lo = math.log1p(-c_hi) if c_hi < 1.0 else -math.inf
    hi = math.log1p(-c_lo) if c_lo < 1.0 else -math.inf
    return lo - 1e-15, min(0.0, hi + 1e-15)  # log1p's own rounding


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _float(i: int) -> float:
    return struct.unpack("<d", struct.pack("<q", i))[0]


def _search(safe_end: float, other_end: float, excess, guess: float) -> float:
    """The last double certified safe between two ends: a bracketed Illinois (regula falsi) search.

    ``excess(x)`` is the certified upper bound of the tail's log minus the log of the target, so
    a point is *certified safe* exactly when ``excess(x) <= 0``; it is monotone along the way up
    to the evaluation's error budget, and a point that cannot be certified (for whatever reason)
    must return a positive value. The search works on the binary representation of doubles:
    it gallops from ``guess`` (a normal approximation of the quantile; a first step of 2^40
    doubles, then the secant through the last two points extrapolated to the root, at least
    doubling and at most ×256) to a bracket [certified safe, not certified], then shrinks it with
    Illinois steps
    (a secant through the two ends, the stale end's value halved when one end is kept twice;
    Dowell & Jarratt 1971), each kept at least half the final resolution inside the bracket so
    that a step landing next to the root is followed by one across it, and a bisection after
    a secant step that did not halve |excess| (so at most every other step is a bisection). It stops when the bracket spans at most
    :data:`_RESOLUTION` doubles below ½ (a relative width of about 1e−10, below the evaluation's
    own error budget) and adjacent doubles in [½, 1), where 1 − x has only ~1e−16 absolute
    resolution. Only the classification ``excess <= 0`` moves the safe end, so the result is
    certified whatever the secant does; it needs ~6–12 evaluations where bisection needed ~40.
    """
    i_s, i_o = _bits(safe_end), _bits(other_end)
    f_s = f_o = None  # the ends' excess (None: an end of the domain, never evaluated)
    step_dir = 1 if i_o > i_s else -1
    pos = min(max(_bits(guess), min(i_s, i_o) + 1), max(i_s, i_o) - 1)
    f_pos = excess(_float(pos))
    safe = f_pos <= 0
    if safe:
        i_s, f_s = pos, f_pos
    else:
        i_o, f_o = pos, f_pos
    toward = step_dir if safe else -step_dir  # from pos towards the root
    step = 2**40
    while True:  # gallop until the root is bracketed or the far end is reached
        cand = pos + toward * step
        if ((i_o if safe else i_s) - cand) * toward <= 0:
            break
        f = excess(_float(cand))
        if (f <= 0) != safe:  # crossed: bracketed
            if safe:
                i_o, f_o = cand, f
            else:
                i_s, f_s = cand, f
            break
        if safe:
            i_s, f_s = cand, f
        else:
            i_o, f_o = cand, f
        # next step: the secant through the last two points extrapolated to the root, grown ×2 … ×256
        slope = (f - f_pos) / step
        dist = -f / slope if slope != 0 and math.isfinite(slope) and math.isfinite(f) else -1.0
        pos, f_pos = cand, f
        step = int(min(max(1.25 * dist, 2 * step), 256 * step)) if dist > 0 else 2 * step
    kept = 0  # +1: the safe end moved last, −1: the other end moved last
    bisect, last = False, math.inf  # last: |excess| at the previous new point
    while True:
        width = abs(i_o - i_s)
        tol = _RESOLUTION if _float(i_s) < 0.5 else 1  # in [½, 1) resolve 1 − x fully
        if width <= tol:
            return _float(i_s)
        if bisect or f_s is None or f_o is None or not (math.isfinite(f_s) and math.isfinite(f_o)):
            off = width // 2
        else:  # secant through (i_s, f_s ≤ 0) and (i_o, f_o > 0), kept tol/2 inside both ends
            margin = max(1, tol // 2)
            off = min(max(round(width * (f_s / (f_s - f_o))), margin), width - margin)
        mid = i_s + step_dir * off
        f = excess(_float(mid))
        if f <= 0:
            i_s, f_s = mid, f
            if kept == 1 and f_o is not None:
                f_o /= 2  # Illinois: the other end was kept twice
            kept = 1
        else:
            i_o, f_o = mid, f
            if kept == -1 and f_s is not None:
                f_s /= 2
            kept = -1
        bisect = not bisect and not abs(f) <= last / 2  # a secant step that did not halve |excess|
        last = abs(f)


def _start(a: float, b: float, p: float) -> float:
    """Starting point of the search: the p quantile of the normal with Beta(a, b)'s mean and variance.

    Only a guess (it keeps the first evaluations away from the mean, where the continued
    fraction is slowest); the search brackets and certifies the quantile from there.
    """
    mean = a / (a + b)
    sd = math.sqrt(a * b / ((a + b) * (a + b) * (a + b + 1.0)))
    return min(max(mean + normal_quantile(p) * sd, mean * 1e-3), 1.0 - (1.0 - mean) * 1e-3)


def _check_level(name: str, y: float) -> float:
    y = float(y)
    if not 0.0 < y < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {y!r}")
    return y


def betaincinv_safe(a, b, p: float) -> float:
    """A point x ≤ the exact p quantile of Beta(a, b), i.e. with I_x(a, b) ≤ p certified.

    a, b: integers in [1, 2^53]; p: in (0, 1). The largest such double up to the error budget
    (:data:`REL_ERR`). Clopper–Pearson's lower limit is ``betaincinv_safe(k, n − k + 1, α)``.
    """
    a, b = _check_ab(a, b)
    p = _check_level("p", p)
    lp = math.log(p)
    return _search(0.0, 1.0, lambda x: binomial_tail_log_bounds(a, b, x)[1] - lp, _start(a, b, p))


def betainccinv_safe(a, b, q: float) -> float:
    """A point x ≥ the exact point with 1 − I_x(a, b) = q, i.e. with 1 − I_x(a, b) ≤ q certified.

    a, b: integers in [1, 2^53]; q: in (0, 1). The smallest such double up to the error budget.
    Clopper–Pearson's upper limit is ``betainccinv_safe(k + 1, n − k, α)``; q is the small
    lower tail P(Bin(a + b − 1, x) ≤ a − 1), evaluated without cancellation.
    """
    a, b = _check_ab(a, b)
    q = _check_level("q", q)
    lq = math.log(q)
    return _search(1.0, 0.0, lambda x: binomial_tail_log_bounds(a, b, x, lower=True)[1] - lq, _start(a, b, 1.0 - q))
