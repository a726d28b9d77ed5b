"""Counterexamples to a formula claim: a shrinking hypothesis search, then an exact confirmation.

:func:`search_counterexample` draws points from the declared domains with hypothesis (exact rationals,
``st.fractions``; integers; and for a symbol that only appears in ``exp(c·x)`` with rational c, also
``x = L·log(r)`` so that the exponentials are rational), keeps those satisfying the conditions, and
steers towards a violation with ``hypothesis.target`` (the relative violation, evaluated at 30 digits
with mpmath: guidance only). A violating point makes the test fail, so hypothesis shrinks it to a simple
one. The run is deterministic (``@seed`` from the check's seed sequence, no example database unless
``SearchPlan.database`` names a directory) and bounded (``max_examples`` and ``seconds``).

No point is reported before :func:`confirm` proves it: both sides are substituted exactly; if both are
rational the comparison is exact; otherwise the difference is enclosed by interval arithmetic at
:data:`CONFIRM_BITS` bits (outward rounding, :mod:`proofs.interval`) and must exclude the allowed range;
only for functions interval arithmetic cannot evaluate is a 50-digit evaluation used (and labelled so).
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from privcheck.base.seeding import derive
from proofs.interval.arith import Ops, Undefined, is_negative, is_nonnegative
from proofs.interval.compile import Unsupported, compile_expr
from proofs.interval.points import backend as make_backend
from proofs.interval.points import ivprec

__all__ = ["SearchPlan", "SearchResult", "Counterexample", "search_counterexample", "confirm", "exp_scale"]

#: precision of the interval confirmation of a counterexample (≈ 51 decimal digits)
CONFIRM_BITS = 170
#: digits of the numeric evaluations (guidance, and the confirmation of non-interval expressions)
DIGITS = 50
GUIDE_DPS = 30


@dataclass(frozen=True)
class SearchPlan:
    """Bounds of one counterexample search.

    max_examples: points hypothesis generates (before shrinking); max_shrinks: points evaluated after the
    first violation (hypothesis's shrinking is then cut short: the simplest violation seen is kept); seconds:
    wall-clock bound (the
    search stops early, reporting it); max_denominator: of the rational points; database: a
    directory for hypothesis's example database (None: no database is written anywhere).
    """

    max_examples: int = 200
    max_shrinks: int = 150
    seconds: float = 20.0
    max_denominator: int = 1000
    database: str | None = None


@dataclass
class Counterexample:
    """A confirmed violating point: exact values of both sides and how the violation was proved."""

    point: dict[sp.Symbol, sp.Expr]
    derived: sp.Expr
    printed: sp.Expr
    derived_value: str
    printed_value: str
    exact: bool
    evaluation: str

    def record(self) -> dict:
        """JSON-ready record (the ``counterexample`` of a formula check's details)."""
        return {
            "point": {s.name: sp.sstr(v) for s, v in self.point.items()},
            "derived": sp.sstr(self.derived),
            "printed": sp.sstr(self.printed),
            "derived_value": self.derived_value,
            "printed_value": self.printed_value,
            "exact": self.exact,
            "evaluation": self.evaluation,
        }

    def text(self) -> str:
        """``eps = 1/2: derived 0.6487… vs printed 0.5`` (one line)."""
        pt = ", ".join(f"{s.name} = {sp.sstr(v)}" for s, v in self.point.items()) or "no free symbols"
        return f"{pt}: derived {_short(self.derived_value)} vs printed {_short(self.printed_value)} ({self.evaluation})"


def _short(value: str) -> str:
    """A 40-digit value shown to 12 significant digits (exponent kept)."""
    try:
        return sp.sstr(sp.Float(value, 40).evalf(12))
    except (ValueError, TypeError):
        return value


@dataclass
class SearchResult:
    """What a search found: a confirmed counterexample or None, with the effort spent."""

    found: Counterexample | None
    examples: int = 0
    seconds: float = 0.0
    timed_out: bool = False
    seed: int = 0
    max_abs_gap: str | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: the counterexample, or how far the search went."""
        if self.found is not None:
            return f"counterexample {self.found.text()}"
        cut = ", stopped by its time bound" if self.timed_out else ""
        return f"no counterexample in {self.examples:,} hypothesis examples (seed {self.seed}{cut})"


# --------------------------------------------------------------------------- strategies
def exp_scale(x: sp.Symbol, exprs: Sequence[sp.Expr]) -> int | None:
    """L such that every exp(c·x + …) in ``exprs`` has c·L integer (None if x is not only in such exps)."""
    dens = []
    for e in exprs:
        for f in e.atoms(sp.exp):
            if x in f.args[0].free_symbols:
                arg = sp.expand(f.args[0])
                c = arg.coeff(x)
                if not c.is_Rational or c == 0 or (arg - c * x).has(x):
                    return None
                dens.append(sp.Rational(c).q)
    if not dens:
        return None
    return int(sp.ilcm(*dens)) if len(dens) > 1 else dens[0]


def _inner(v: sp.Expr, up: bool, den: int) -> tuple[Fraction, bool]:
    """(a rational at or inside the bound v, whether it equals v exactly)."""
    if v.is_Rational:
        return Fraction(int(v.p), int(v.q)), True
    k = sp.ceiling(v * den) if up else sp.floor(v * den)
    q = Fraction(int(k), den)
    return q, False  # irrational v: q is strictly inside


def _ends(lo: Fraction | None, lo_open: bool, hi: Fraction | None, hi_open: bool) -> Callable[[Fraction], bool]:
    """A cheap exact test that q lies in the (possibly open) span."""

    def ok(q: Fraction) -> bool:
        if lo is not None and (q < lo or (lo_open and q == lo)):
            return False
        return not (hi is not None and (q > hi or (hi_open and q == hi)))

    return ok


def _fractions(lo: Fraction | None, hi: Fraction | None, max_den: int):
    """Fractions n/d in [lo, hi] (None: unbounded), d <= max_den; shrinking makes d, then |n|, small.

    (hypothesis's own ``fractions`` re-validates a flat-mapped strategy at every draw; this is cheaper.)
    """
    from hypothesis import strategies as st

    @st.composite
    def draw_fraction(draw):
        d = draw(st.integers(min_value=1, max_value=max_den))
        nlo = None if lo is None else -((-lo.numerator * d) // lo.denominator)  # ceil(lo·d)
        nhi = None if hi is None else (hi.numerator * d) // hi.denominator  # floor(hi·d)
        if nlo is not None and nhi is not None and nlo > nhi:
            d, nlo, nhi = lo.denominator, lo.numerator, lo.numerator
        n = draw(st.integers(min_value=nlo, max_value=nhi))
        return Fraction(n, d)

    return draw_fraction()


def _strategy(sym: sp.Symbol, dom: Any, exprs: Sequence[sp.Expr], plan: SearchPlan):
    """A hypothesis strategy of exact sympy values inside ``dom`` (a proofs.formula.Domain); no float anywhere."""
    from hypothesis import strategies as st

    D = plan.max_denominator
    if dom.integer:
        lo_i = int(sp.ceiling(dom.lo)) if dom.lo.is_finite else None
        hi_i = int(sp.floor(dom.hi)) if dom.hi.is_finite else None
        return st.integers(min_value=lo_i, max_value=hi_i).map(sp.Integer)
    lo, lo_exact = _inner(dom.lo, True, D) if dom.lo.is_finite else (None, False)
    hi, hi_exact = _inner(dom.hi, False, D) if dom.hi.is_finite else (None, False)
    inside = _ends(lo, dom.lo_open and lo_exact, hi, dom.hi_open and hi_exact)
    plain = _fractions(lo, hi, D).filter(inside).map(lambda q: sp.Rational(q.numerator, q.denominator))
    L = exp_scale(sym, exprs)
    if L is None:
        return plain
    # x = L·log(r): exp(c·x) = r^(c·L) is rational; x in the domain iff r in (e^(lo/L), e^(hi/L))
    rlo, rlo_exact = (Fraction(0), True) if lo is None else _inner(sp.exp(sp.Rational(lo) / L), True, D)
    rhi, rhi_exact = (None, False) if hi is None else _inner(sp.exp(sp.Rational(hi) / L), False, D)
    if lo is not None and not lo_exact:  # lo was already moved inside: keep r strictly above e^(lo/L)
        rlo_exact = False
    r_inside = _ends(rlo, (dom.lo_open and rlo_exact) or lo is None, rhi, dom.hi_open and rhi_exact)
    if rhi is not None and rhi <= rlo:
        return plain
    logs = (
        _fractions(rlo, rhi, D)
        .filter(lambda r: r > 0 and r_inside(r))
        .map(lambda r: L * sp.log(sp.Rational(r.numerator, r.denominator)))
    )
    return st.one_of(logs, plain)


# --------------------------------------------------------------------------- numeric guidance
def _numeric(exprs: Sequence[sp.Expr], syms: Sequence[sp.Symbol]) -> Callable[[dict], list | None]:
    """A function point -> [values at GUIDE_DPS digits] (None where not real); lambdify, else evalf."""
    fns = []
    for e in exprs:
        try:
            fns.append(sp.lambdify(list(syms), e, modules="mpmath"))
        except Exception:  # lambdify cannot print some expressions: evaluate those with sympy
            fns.append(None)

    def run(pt: dict) -> list | None:
        out = []
        with mpmath.workdps(GUIDE_DPS):
            args = [mpmath.mpmathify(sp.N(pt[s], GUIDE_DPS + 5)) for s in syms]
            for e, f in zip(exprs, fns):
                try:
                    v = f(*args) if f is not None else sp.N(e.xreplace(pt), GUIDE_DPS)
                    v = mpmath.mpmathify(complex(v) if isinstance(v, sp.Expr) and not v.is_real else v)
                except Exception:  # a pole, a complex value, an overflow: no guidance from this point
                    return None
                if isinstance(v, mpmath.mpc):
                    if abs(v.imag) > mpmath.mpf(10) ** (-GUIDE_DPS + 5) * (1 + abs(v.real)):
                        return None
                    v = v.real
                if not mpmath.isfinite(v):
                    return None
                out.append(v)
        return out

    return run


def _violation(a, b, relation: str, tol) -> Any:
    """How much the point violates ``a relation b`` (> 0 means violated), in mpmath numbers."""
    if relation == ">=":
        return b - a
    if relation == "<=":
        return a - b
    return abs(a - b) - tol


# --------------------------------------------------------------------------- confirmation
def confirm(
    derived: sp.Expr,
    printed: sp.Expr,
    relation: str,
    point: Mapping[sp.Symbol, sp.Expr],
    tolerance: sp.Expr | None = None,
    points_backend: str = "auto",
) -> Counterexample | None:
    """The point as a proved counterexample, or None when it cannot be confirmed (see the module docstring)."""
    pt = dict(point)
    try:
        a, b = derived.xreplace(pt), printed.xreplace(pt)
        if a.has(sp.Sum, sp.Product, sp.Derivative, sp.Limit, sp.Integral):
            a = a.doit()
        if b.has(sp.Sum, sp.Product, sp.Derivative, sp.Limit, sp.Integral):
            b = b.doit()
    except Exception:  # sympy failing on a point is no confirmation
        return None
    if a.free_symbols or b.free_symbols:
        return None
    tol = sp.S.Zero if tolerance is None else sp.nsimplify(tolerance)
    if a.is_Rational and b.is_Rational and tol.is_Rational:
        gap = a - b
        bad = {">=": gap < 0, "<=": gap > 0, "=": abs(gap) > tol}[relation]
        return _ce(pt, a, b, True, "exact rational arithmetic") if bool(bad) else None
    verdict = _certify(a - b, relation, tol, points_backend)
    if verdict is True:
        return _ce(pt, a, b, False, f"certified interval evaluation ({CONFIRM_BITS} bits, outward rounding)")
    if verdict is False:
        return None
    return _confirm_numeric(pt, a, b, relation, tol)


def _certify(diff: sp.Expr, relation: str, tol: sp.Expr, points_backend: str) -> bool | None:
    """True if interval arithmetic proves the violation, False if it proves none, None if it cannot tell."""
    try:
        f = compile_expr(diff)
        ops = Ops(make_backend(points_backend), CONFIRM_BITS)
        with ivprec(CONFIRM_BITS):
            enc = f({}, ops)
            t = compile_expr(tol)({}, ops)
            if relation == ">=":
                return True if is_negative(enc) else (False if is_nonnegative(enc) else None)
            if relation == "<=":
                return True if is_negative(-enc) else (False if is_nonnegative(-enc) else None)
            above = is_negative(t - enc)  # diff > tol everywhere
            below = is_negative(enc + t)  # diff < -tol everywhere
            inside = is_nonnegative(t - enc) and is_nonnegative(enc + t)
            return True if (above or below) else (False if inside else None)
    except (Unsupported, Undefined, ZeroDivisionError, ValueError, ImportError):
        return None


def _confirm_numeric(pt: dict, a: sp.Expr, b: sp.Expr, relation: str, tol: sp.Expr) -> Counterexample | None:
    """50-digit evaluation (for expressions interval arithmetic cannot evaluate); a margin of 10^-40 is required."""
    try:
        av, bv = sp.N(a, DIGITS), sp.N(b, DIGITS)
    except Exception:  # not evaluable: no confirmation
        return None
    if (
        not (av.is_real and bv.is_real)
        or av.has(sp.zoo, sp.nan, sp.oo, -sp.oo)
        or bv.has(sp.zoo, sp.nan, sp.oo, -sp.oo)
    ):
        return None
    gap = av - bv
    noise = max(sp.Float(1), abs(av), abs(bv)) * sp.Float(10) ** (-(DIGITS - 10))
    bad = {">=": gap < -noise, "<=": gap > noise, "=": abs(gap) > sp.N(tol, DIGITS) + noise}[relation]
    return _ce(pt, a, b, False, f"{DIGITS}-digit evaluation") if bool(bad) else None


def _ce(pt: dict, a: sp.Expr, b: sp.Expr, exact: bool, how: str) -> Counterexample:
    return Counterexample(pt, a, b, sp.sstr(sp.N(a, 40)), sp.sstr(sp.N(b, 40)), exact, how)


# --------------------------------------------------------------------------- the search
def _seed_int(seed: int | np.random.SeedSequence, name: str) -> int:
    return int(derive(seed, "counterexample", name).generate_state(1, dtype=np.uint32)[0])


def _complexity(pt: Mapping[sp.Symbol, sp.Expr]) -> tuple:
    """Size of a point (bits of its numbers), for choosing the simplest confirmed one."""
    total = 0
    for v in pt.values():
        for r in v.atoms(sp.Rational):
            total += abs(int(r.p)).bit_length() + int(r.q).bit_length()
        total += 4 * len(v.atoms(sp.log))
    return (total, sp.sstr(list(pt.values())))


class _Found(Exception):
    """Raised inside the hypothesis test at a violating point (so that hypothesis shrinks it)."""


def search_counterexample(
    name: str,
    derived: sp.Expr,
    printed: sp.Expr,
    relation: str,
    domains: Mapping[sp.Symbol, Any],
    *,
    conditions: Iterable[sp.Expr] = (),
    seed: int | np.random.SeedSequence = 0,
    plan: SearchPlan | None = None,
    tolerance: sp.Expr | None = None,
    hints: Iterable[Mapping[sp.Symbol, sp.Expr]] = (),
    points_backend: str = "auto",
) -> SearchResult:
    """Search the domains for a point violating ``derived relation printed`` and confirm it exactly.

    relation: ``=``, ``<=`` or ``>=``; domains: {Symbol: proofs.formula.Domain} of the free symbols;
    conditions: sympy relations restricting the points; seed: the check's seed (int or SeedSequence;
    the hypothesis seed is derived from it and ``name``); tolerance: for ``=``, the allowed |difference|;
    hints: points tried (and confirmed) first, e.g. from a box the interval prover found violated.
    """
    plan = plan or SearchPlan()
    t0 = time.perf_counter()
    syms = sorted(domains, key=lambda s: s.name)
    conds = list(conditions)
    tol = sp.S.Zero if tolerance is None else sp.nsimplify(tolerance)
    res = SearchResult(None, seed=_seed_int(seed, name))
    for h in hints:
        ce = confirm(derived, printed, relation, h, tolerance, points_backend)
        if ce is not None:
            res.found, res.notes = ce, ["a point of the box the interval prover found violated"]
            res.seconds = time.perf_counter() - t0
            return res
    if not syms:
        res.examples = 1
        res.found = confirm(derived, printed, relation, {}, tolerance, points_backend)
        res.seconds = time.perf_counter() - t0
        return res
    guide = _numeric([derived, printed], syms)
    tol_n = mpmath.mpmathify(sp.N(tol, GUIDE_DPS))
    found: list[dict] = []
    first_found = [0]
    worst: list[Any] = []

    def check(pt: dict) -> None:
        from hypothesis import assume, target

        if time.perf_counter() - t0 > plan.seconds:
            res.timed_out = True
            return
        if found and res.examples - first_found[0] > plan.max_shrinks:
            return  # shrinking long enough: the candidates found so far are kept
        if conds and not all(bool(c.xreplace(pt)) for c in conds):
            assume(False)
        res.examples += 1
        vals = guide(pt)
        if vals is None:
            return
        a, b = vals
        v = _violation(a, b, relation, tol_n)
        scale = 1 + abs(a) + abs(b)
        worst.append(abs(a - b))
        target(float(mpmath.mpf(max(min(v / scale, 1e300), -1e300))), label="violation")
        if v > mpmath.mpf(10) ** (-GUIDE_DPS + 8) * scale:
            if not found:
                first_found[0] = res.examples
            found.append(dict(pt))
            raise _Found()

    _run_hypothesis(check, {s: _strategy(s, domains[s], [derived, printed], plan) for s in syms}, res, plan)
    for pt in sorted({sp.sstr(p): p for p in found}.values(), key=_complexity)[:8]:
        ce = confirm(derived, printed, relation, pt, tolerance, points_backend)
        if ce is not None:
            res.found = ce
            break
    if found and res.found is None:
        res.notes.append(f"{len(found)} candidate point(s) violated at {GUIDE_DPS} digits but none was confirmed")
    if worst:
        res.max_abs_gap = mpmath.nstr(max(worst), 5)
    res.seconds = time.perf_counter() - t0
    return res


_STORAGE: list[str] = []


@contextlib.contextmanager
def _private_storage() -> Iterator[None]:
    """Point hypothesis's storage directory at a private temporary one for the block.

    hypothesis caches the constants of local modules under its storage directory (``./.hypothesis`` by
    default) even without a database; the search must not write into the user's project.
    """
    from hypothesis import configuration

    if not _STORAGE:
        _STORAGE.append(tempfile.mkdtemp(prefix="privcheck-hypothesis-"))
        atexit.register(shutil.rmtree, _STORAGE[0], True)
    key = "__hypothesis_home_directory"
    old = configuration.__dict__.get(key)
    configuration.set_hypothesis_home_dir(_STORAGE[0])
    try:
        yield
    finally:
        configuration.__dict__[key] = old


def _run_hypothesis(check: Callable[[dict], None], strategies: dict, res: SearchResult, plan: SearchPlan) -> None:
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st
    from hypothesis.database import DirectoryBasedExampleDatabase

    db = None if plan.database is None else DirectoryBasedExampleDatabase(plan.database)
    config = settings(
        database=db,
        max_examples=plan.max_examples,
        deadline=None,
        derandomize=False,
        phases=(Phase.explicit, Phase.generate, Phase.target, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
    )

    @hseed(res.seed)
    @config
    @given(st.fixed_dictionaries(strategies))
    def run(pt: dict) -> None:
        check(pt)

    try:
        with _private_storage():
            run()
    except _Found:
        pass
    except Exception as exc:  # hypothesis's own errors (Unsatisfiable, Flaky...): the points seen still count
        name = type(exc).__name__
        if name not in ("FlakyFailure", "Flaky", "FlakyReplay"):
            res.notes.append(f"hypothesis stopped: {name}: {str(exc).splitlines()[0][:120] if str(exc) else ''}")
