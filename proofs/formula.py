"""Symbolic formula claims: the engine behind every ``symbolic`` check, and the user API.

A *formula claim* compares a quantity **derived** from a model's definitions with the
formula **as printed** in a paper (or in a user's notes), under declared assumptions on
the symbols, for a relation ``=``, ``<=`` or ``>=``:

- ``holds`` when sympy proves it: the difference simplifies to zero (``=``), or the
  difference, rewritten in positive variables (``x in (0, 1)`` becomes ``1/(1+u)`` with
  ``u > 0`` and so on), factors into a form sympy's assumption system proves nonnegative;
- ``refuted`` when a point of a seeded grid of exact rationals inside the declared domains
  makes the two sides differ (for ``=``) or violate the inequality; the point and both
  sides, exactly and to 40 digits, are reported, and for ``=`` the derived side is the
  corrected expression;
- ``inconclusive`` when sympy can neither prove nor refute: the same grid is then
  evaluated numerically (mpmath through sympy's evalf, 50 digits) and reported with
  ``numeric_fallback: True``. A numeric check never yields ``holds``.

User API (pasteable; a file of such calls runs with ``privcheck verify --file my_claims.py``
and under pytest with the ``privcheck_claims`` fixture / :func:`privcheck.pytest_plugin.assert_claims`)::

    from proofs.formula import formula_claim

    formula_claim(
        "mygroup.rr.variance",
        derived="E2 - E1**2",            # or a sympy expression
        printed="p*(1 - p)",
        assumptions={"p": "(0,1)", "E1": "real", "E2": "real"},
        substitutions={"E1": "p", "E2": "p"},   # definitions used by the derivation
        relation="=",                     # "=", "<=" (derived <= printed) or ">="
        expect="holds",                   # the verdict the group expects; CI fails otherwise
        source="our notes, eq. 3",
    )

Domains for ``assumptions``: ``real``, ``positive`` (``>0``), ``nonnegative`` (``>=0``),
intervals such as ``(0,1)``, ``[0,1]``, ``(1,oo)``, ``(0,1/2]`` and integers
``integer>=1`` (any lower bound). ``conditions`` (e.g. ``["p > q"]``) restrict the grid of
candidate counterexamples; a proof of ``<=`` uses only the domains.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import sympy as sp
from sympy.parsing.sympy_parser import (
    convert_xor,
    parse_expr,
    standard_transformations,
)

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import generator
from privcheck.claims import CATALOGUE, Check, Claim, Outcome, Registry, RunContext

__all__ = [
    "Domain",
    "FormulaClaim",
    "FormulaResult",
    "formula_claim",
    "compare",
    "combine",
    "make_symbols",
    "parse",
    "collecting",
    "Phi",
    "outcome_from",
]

RELATIONS = {"=": "=", "==": "=", "<=": "<=", "≤": "<=", ">=": ">=", "≥": ">="}
VERDICT_EXPECT = ("holds", "refuted", "inconclusive")
#: expressions with more operations than this are not passed to sympy.simplify
SIMPLIFY_MAX_OPS = 250
#: digits of the numeric evaluations (counterexample values, numeric fallback)
DIGITS = 50


def Phi(x: sp.Expr) -> sp.Expr:
    """Standard normal CDF as a sympy expression, ``(1 + erf(x/√2))/2``."""
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


# --------------------------------------------------------------------------- domains
@dataclass(frozen=True)
class Domain:
    """The declared range of one symbol: an interval (bounds may be ±oo) and integrality.

    Parsed from strings such as ``"(0,1)"``, ``"positive"``, ``"integer>=1"``.
    """

    spec: str
    lo: sp.Expr = sp.S.NegativeInfinity
    hi: sp.Expr = sp.S.Infinity
    lo_open: bool = True
    hi_open: bool = True
    integer: bool = False

    @classmethod
    def parse(cls, name: str, spec: str) -> "Domain":
        """Parse a domain string for symbol ``name`` (raises PrivcheckUsageError if unknown)."""
        s = str(spec).strip().replace(" ", "").lower()
        aliases = {
            "real": "(-oo,oo)",
            "positive": "(0,oo)",
            ">0": "(0,oo)",
            "nonnegative": "[0,oo)",
            ">=0": "[0,oo)",
            "probability": "[0,1]",
            "unit": "(0,1)",
            ">1": "(1,oo)",
        }
        s2 = aliases.get(s, s)
        m = re.fullmatch(r"(integer|int)(>=|>)(-?\d+)", s2)
        if m:
            lo = int(m.group(3)) + (1 if m.group(2) == ">" else 0)
            return cls(str(spec), sp.Integer(lo), sp.S.Infinity, False, True, True)
        if s2 in ("integer", "int"):
            return cls(str(spec), sp.S.NegativeInfinity, sp.S.Infinity, True, True, True)
        m = re.fullmatch(r"([\(\[])([^,]+),([^,]+)([\)\]])", s2)
        if not m:
            raise PrivcheckUsageError(
                f"assumption for {name!r} must be real, positive, nonnegative, an interval like (0,1) or "
                f"[0,1] or (1,oo), or integer>=K; got {spec!r}"
            )
        try:
            lo, hi = sp.sympify(m.group(2)), sp.sympify(m.group(3))
        except (sp.SympifyError, TypeError):
            raise PrivcheckUsageError(f"assumption for {name!r}: cannot read the bounds of {spec!r}") from None
        if not (lo.is_number and hi.is_number) or bool(sp.Gt(lo, hi)):
            raise PrivcheckUsageError(f"assumption for {name!r}: interval {spec!r} must have numeric bounds lo <= hi")
        return cls(str(spec), lo, hi, m.group(1) == "(", m.group(4) == ")", False)

    def assumptions(self) -> dict:
        """sympy assumptions implied by the domain (always real)."""
        a: dict[str, bool] = {"real": True}
        if self.integer:
            a["integer"] = True
        if self.lo.is_finite and (self.lo > 0 or (self.lo == 0 and self.lo_open)):
            a["positive"] = True
        elif self.lo.is_finite and self.lo >= 0:
            a["nonnegative"] = True
        if self.hi.is_finite and (self.hi < 0 or (self.hi == 0 and self.hi_open)):
            a["negative"] = True
        return a

    def contains(self, v: sp.Expr) -> bool:
        """Whether the exact number ``v`` lies in the domain."""
        if self.integer and not v.is_integer:
            return False
        lo_ok = (v > self.lo) if self.lo_open else (v >= self.lo)
        hi_ok = (v < self.hi) if self.hi_open else (v <= self.hi)
        return bool(lo_ok) and bool(hi_ok)

    def positive_reparam(self, sym: sp.Symbol) -> tuple[sp.Expr, sp.Symbol | None]:
        """``sym`` written in a fresh positive variable u (interior of the domain), or (sym, None).

        (0,oo) keeps sym; (a,oo) → a + u; (a,b) → a + (b − a)/(1 + u); integers ≥ k → k − 1 + n
        with n a positive integer. Closed ends are treated by continuity.
        """
        lo, hi = self.lo, self.hi
        if self.integer:
            if lo.is_finite:
                n = sp.Symbol(f"{sym.name}__n", integer=True, positive=True)
                return lo - 1 + n, n
            return sym, None
        if lo.is_finite and hi.is_infinite:
            if lo == 0:
                return sym, None
            u = sp.Symbol(f"{sym.name}__u", positive=True)
            return lo + u, u
        if lo.is_finite and hi.is_finite:
            u = sp.Symbol(f"{sym.name}__u", positive=True)
            return lo + (hi - lo) / (1 + u), u
        if lo.is_infinite and hi.is_finite:
            u = sp.Symbol(f"{sym.name}__u", positive=True)
            return hi - u, u
        return sym, None

    def candidates(self, rng: np.random.Generator, n_random: int = 4) -> list[sp.Rational]:
        """Exact rational candidate values inside the domain: simple ones first, then seeded random ones."""
        if self.integer:
            base = [0, 1, 2, 3, 4, 5, 7, 10, -1, -2]
            lo = int(self.lo) if self.lo.is_finite else -3
            vals = [sp.Integer(lo + b) for b in range(6)] + [sp.Integer(b) for b in base]
            vals += [sp.Integer(int(lo + rng.integers(0, 30))) for _ in range(n_random)]
        else:
            base = [
                "1/2",
                "1/3",
                "2/3",
                "1/4",
                "3/4",
                "1/10",
                "9/10",
                "1",
                "3/2",
                "2",
                "5/2",
                "3",
                "4",
                "5",
                "7",
                "10",
                "0",
                "-1/2",
                "-1",
                "-2",
                "-3",
                "1/100",
                "99/100",
            ]
            vals = [sp.Rational(b) for b in base]
            lo = float(self.lo) if self.lo.is_finite else -10.0
            hi = float(self.hi) if self.hi.is_finite else lo + 20.0 if self.lo.is_finite else 10.0
            for _ in range(n_random):
                x = float(rng.uniform(lo, hi))
                vals.append(sp.Rational(Fraction(x).limit_denominator(97)))
            if self.lo.is_finite and self.hi.is_finite:  # points strictly inside, near both ends
                for t in ("1/2", "1/5", "4/5", "1/50", "49/50"):
                    vals.append(self.lo + (self.hi - self.lo) * sp.Rational(t))
        out: list[sp.Rational] = []
        for v in vals:
            v = sp.nsimplify(v)
            if self.contains(v) and v not in out:
                out.append(v)
        if not out:
            raise PrivcheckUsageError(f"domain {self.spec!r} has no rational candidate values")
        return out


def make_symbols(assumptions: Mapping[str, str]) -> tuple[dict[str, sp.Symbol], dict[sp.Symbol, Domain]]:
    """sympy Symbols for ``{name: domain string}``; returns (name → Symbol, Symbol → Domain)."""
    names: dict[str, sp.Symbol] = {}
    doms: dict[sp.Symbol, Domain] = {}
    for name, spec in assumptions.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(name)):
            raise PrivcheckUsageError(f"symbol name must be an identifier, got {name!r}")
        dom = Domain.parse(name, spec)
        sym = sp.Symbol(name, **dom.assumptions())
        names[name] = sym
        doms[sym] = dom
    return names, doms


_TRANSFORMS = standard_transformations + (convert_xor,)
_FUNCS = {
    "exp": sp.exp,
    "log": sp.log,
    "ln": sp.log,
    "sqrt": sp.sqrt,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "binomial": sp.binomial,
    "Phi": Phi,
    "Abs": sp.Abs,
    "abs": sp.Abs,
    "Min": sp.Min,
    "Max": sp.Max,
    "min": sp.Min,
    "max": sp.Max,
    "E": sp.E,
    "pi": sp.pi,
    "oo": sp.oo,
    "gamma": sp.gamma,
    "Rational": sp.Rational,
    "factorial": sp.factorial,
    "tanh": sp.tanh,
    "cosh": sp.cosh,
    "sinh": sp.sinh,
}


def parse(text: Any, names: Mapping[str, sp.Symbol], what: str = "expression") -> sp.Expr:
    """Parse ``text`` (a string, number or sympy expression) using only the declared symbols.

    ``^`` means power; ``Phi`` is the standard normal CDF. Undeclared names raise
    PrivcheckUsageError.
    """
    if isinstance(text, sp.Basic):
        expr = text
    elif isinstance(text, (int, float, Fraction)):
        expr = sp.nsimplify(text)
    elif isinstance(text, str):
        local = dict(_FUNCS)
        local.update(names)
        try:
            expr = parse_expr(text, local_dict=local, transformations=_TRANSFORMS)
        except Exception as exc:  # sympy raises many types here
            raise PrivcheckUsageError(f"{what}: cannot parse {text!r} ({type(exc).__name__}: {exc})") from None
    else:
        raise PrivcheckUsageError(f"{what} must be a string or sympy expression, got {type(text).__name__}")
    declared = set(names.values())
    unknown = sorted(s.name for s in expr.free_symbols if s not in declared)
    if unknown:
        raise PrivcheckUsageError(f"{what}: undeclared symbol(s) {', '.join(unknown)}; declare them in assumptions")
    return expr


# --------------------------------------------------------------------------- results
@dataclass
class FormulaResult:
    """The decision on one comparison (see the module docstring for the rules)."""

    name: str
    verdict: str
    relation: str
    derived: sp.Expr
    printed: sp.Expr
    difference: sp.Expr | None
    how: str
    assumptions: dict[str, str]
    counterexample: dict | None = None
    corrected: str | None = None
    numeric_fallback: bool = False
    numeric: dict | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    printed_text: str | None = None

    @property
    def derived_tidy(self) -> sp.Expr:
        """The derived side in its shortest cheap form (cancel/factor), for display."""
        return _tidy(self.derived)

    @property
    def claimed_text(self) -> str:
        """The printed side as text (the paper's wording when given)."""
        return self.printed_text or sp.sstr(self.printed)

    def details(self) -> dict:
        """JSON-ready record details: both sides in plain text and LaTeX, difference, assumptions..."""
        d: dict[str, Any] = {
            "name": self.name,
            "verdict": self.verdict,
            "relation": self.relation,
            "printed": {
                "text": self.claimed_text,
                "expression": sp.sstr(self.printed),
                "latex": sp.latex(self.printed),
            },
            "derived": {"text": sp.sstr(self.derived_tidy), "latex": sp.latex(self.derived_tidy)},
            "difference": None if self.difference is None else sp.sstr(self.difference),
            "difference_latex": None if self.difference is None else sp.latex(self.difference),
            "difference_meaning": (
                "derived - printed"
                if self.relation == "="
                else "printed - derived (must be >= 0)"
                if self.relation == "<="
                else "derived - printed (must be >= 0)"
            ),
            "decided_by": self.how,
            "assumptions": dict(self.assumptions),
            "numeric_fallback": self.numeric_fallback,
            "seconds": round(self.seconds, 4),
        }
        if self.counterexample is not None:
            d["counterexample"] = self.counterexample
        if self.corrected is not None:
            d["corrected"] = self.corrected
        if self.numeric is not None:
            d["numeric"] = self.numeric
        if self.notes:
            d["notes"] = list(self.notes)
        return d


def _ops(e: sp.Expr) -> int:
    return int(sp.count_ops(e))


def _tidy(e: sp.Expr) -> sp.Expr:
    """Shortest of e, cancel(together(e)), factor of that (no blind simplify)."""
    best = e
    try:
        c = sp.cancel(sp.together(e))
        for cand in (c, sp.factor(c)):
            if _ops(cand) < _ops(best):
                best = cand
    except Exception:  # display only
        pass
    return best


def _zero_attempts(diff: sp.Expr, extra: Sequence[Callable[[sp.Expr], sp.Expr]] = ()) -> tuple[bool, sp.Expr, str]:
    """Try targeted simplifications of ``diff``; return (is_zero, simplest form, method)."""
    if diff == 0:
        return True, sp.S.Zero, "identical"
    best, best_how = diff, "none"
    steps: list[tuple[str, Callable[[sp.Expr], sp.Expr]]] = [
        ("expand", sp.expand),
        ("together/cancel", lambda e: sp.cancel(sp.together(e))),
        ("powsimp/expand", lambda e: sp.expand(sp.powsimp(sp.expand_power_exp(e)))),
        ("expand_log/exp", lambda e: sp.expand(sp.expand_log(e, force=False))),
    ]
    steps += [(f"custom{i}", f) for i, f in enumerate(extra)]
    for how, f in steps:
        try:
            e = f(diff)
        except Exception:  # a failing rewrite is just not a proof
            continue
        if e == 0:
            return True, sp.S.Zero, how
        if _ops(e) < _ops(best):
            best, best_how = e, how
    if _ops(best) <= SIMPLIFY_MAX_OPS:
        e = sp.simplify(best)
        if e == 0:
            return True, sp.S.Zero, "simplify"
        if _ops(e) < _ops(best):
            best, best_how = e, "simplify"
    return False, best, best_how


def _prove_nonneg(expr: sp.Expr, doms: Mapping[sp.Symbol, Domain]) -> tuple[bool, sp.Expr, str]:
    """Try to prove ``expr >= 0`` on the domains; return (proved, rewritten form, method)."""
    direct = sp.factor(sp.cancel(sp.together(expr)))
    if direct.is_nonnegative:
        return True, direct, "factor + assumptions"
    sub, back = {}, {}
    for s, dom in doms.items():
        rep, u = dom.positive_reparam(s)
        if u is not None:
            sub[s] = rep
            back[u] = s
    if sub:
        e = expr.xreplace(sub)
        e = sp.factor(sp.cancel(sp.together(e)))
        if e.is_nonnegative:
            return True, e, "positive reparametrisation + factor"
        num, den = sp.fraction(e)
        num_e = sp.expand(num)
        if num_e.is_nonnegative and den.is_positive:
            return True, num_e / den, "positive reparametrisation, expanded numerator"
    # exponentials of positive variables: x = L·log(1+v) turns exp(r·x) into (1+v)^(L·r)
    e2 = expr.xreplace(sub) if sub else expr
    exp_sub = {}
    for x in sorted(e2.free_symbols, key=lambda s: s.name):
        if not x.is_positive:
            continue
        coeffs = []
        for f in e2.atoms(sp.exp):
            if x in f.args[0].free_symbols:
                c = sp.expand(f.args[0]).coeff(x)
                if not c.is_Rational or c == 0 or sp.expand(f.args[0] - c * x).has(x):
                    coeffs = None
                    break
                coeffs.append(c)
        if not coeffs:
            continue
        L = sp.ilcm(*[sp.Rational(c).q for c in coeffs]) if len(coeffs) > 1 else sp.Rational(coeffs[0]).q
        v = sp.Symbol(f"{x.name}__v", positive=True)
        exp_sub[x] = L * sp.log(1 + v)
    if exp_sub:
        e3 = sp.factor(sp.cancel(sp.together(sp.powsimp(sp.expand_power_exp(e2.xreplace(exp_sub))))))
        if e3.is_nonnegative:
            return True, e3, "exp(x) = (1+v)^L substitution + factor"
        num, den = sp.fraction(e3)
        num_e = sp.expand(num)
        if num_e.is_nonnegative and den.is_positive:
            return True, num_e / den, "exp substitution, expanded numerator"
    return False, direct, "no proof found"


def _exp_scale(x: sp.Symbol, exprs: Sequence[sp.Expr]) -> int | None:
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


def _grid(
    doms: Mapping[sp.Symbol, Domain], rng: np.random.Generator, max_points: int, exprs: Sequence[sp.Expr] = ()
) -> Iterator[dict]:
    syms = list(doms)
    cands = {s: doms[s].candidates(rng) for s in syms}
    for s in syms:  # symbols inside exp(): prefer L·log(r) so that exp() evaluates to a rational
        if doms[s].integer:
            continue
        L = _exp_scale(s, exprs)
        if L is not None:
            extra = [L * sp.log(sp.Integer(r)) for r in (3, 2, 4, 5, 9, 10)]
            extra = [v for v in extra if doms[s].contains(v)]
            cands[s] = extra + cands[s]
    if not syms:
        yield {}
        return
    yield {s: cands[s][0] for s in syms}
    for i in range(1, 6):  # walk the simple values together
        yield {s: cands[s][min(i, len(cands[s]) - 1)] for s in syms}
    for i in range(8):  # simple values, staggered across symbols
        yield {s: cands[s][(i + j) % min(6, len(cands[s]))] for j, s in enumerate(syms)}
    for _ in range(max_points):
        yield {s: cands[s][int(rng.integers(0, len(cands[s])))] for s in syms}


def _num(e: sp.Expr) -> sp.Expr | None:
    """``e`` evaluated to DIGITS digits, or None if not a finite real number."""
    try:
        v = sp.N(e, DIGITS)
    except Exception:
        return None
    if not v.is_number or v.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or v.is_real is False:
        return None
    if not (v.is_Float or v.is_Integer or v.is_Rational):
        re_, im_ = v.as_real_imag()
        if abs(sp.N(im_, DIGITS)) > sp.Float(10) ** (-DIGITS + 10):
            return None
        v = sp.N(re_, DIGITS)
    return v


def _eval_point(derived: sp.Expr, printed: sp.Expr, pt: dict) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr] | None:
    a = derived.xreplace(pt) if pt else derived
    b = printed.xreplace(pt) if pt else printed
    try:
        a = a.doit() if a.has(sp.Sum, sp.Product, sp.Derivative, sp.Limit) else a
        b = b.doit() if b.has(sp.Sum, sp.Product, sp.Derivative, sp.Limit) else b
    except Exception:
        return None
    av, bv = _num(a), _num(b)
    if av is None or bv is None:
        return None
    return a, b, av, bv


def compare(
    name: str,
    derived: Any,
    printed: Any,
    assumptions: Mapping[str, str],
    *,
    relation: str = "=",
    names: Mapping[str, sp.Symbol] | None = None,
    conditions: Iterable[Any] = (),
    seed: int | np.random.SeedSequence = 0,
    max_points: int = 60,
    simplifiers: Sequence[Callable[[sp.Expr], sp.Expr]] = (),
    corrected: Any = None,
    notes: Iterable[str] = (),
    printed_text: str | None = None,
) -> FormulaResult:
    """Decide ``derived <relation> printed`` under ``assumptions`` ({name: domain}).

    ``names`` reuses Symbols already built with :func:`make_symbols` (they must match the
    assumptions); ``conditions`` (sympy relations or strings) filter the counterexample grid;
    ``simplifiers`` are extra targeted rewrites tried before blind simplify; ``corrected``
    overrides the reported corrected expression (default for ``=``: the derived side);
    ``printed_text`` is the formula in the paper's notation, shown as the claimed value.
    """
    t0 = time.perf_counter()
    rel = RELATIONS.get(str(relation).strip())
    if rel is None:
        raise PrivcheckUsageError(f"relation must be one of =, <=, >=; got {relation!r}")
    if names is None:
        names, doms = make_symbols(assumptions)
    else:
        doms = {names[n]: Domain.parse(n, s) for n, s in assumptions.items()}
    d_expr = parse(derived, names, f"{name}: derived")
    p_expr = parse(printed, names, f"{name}: printed")
    conds = [parse(c, names, f"{name}: condition") for c in conditions]
    used = {s: doms[s] for s in doms if s in (d_expr.free_symbols | p_expr.free_symbols)}
    res = FormulaResult(
        name,
        "inconclusive",
        rel,
        d_expr,
        p_expr,
        None,
        "",
        {s.name: doms[s].spec for s in used},
        notes=list(notes),
        printed_text=printed_text,
    )
    if rel == "=":
        zero, diff, how = _zero_attempts(d_expr - p_expr, simplifiers)
        res.difference, res.how = diff, how
        if zero:
            res.verdict = "holds"
    else:
        target = (p_expr - d_expr) if rel == "<=" else (d_expr - p_expr)
        proved, form, how = _prove_nonneg(target, used)
        res.difference, res.how = form, how
        if proved:
            res.verdict = "holds"
    if res.verdict != "holds":
        rng = generator(seed, "grid", name)
        worst = None
        checked = 0
        for pt in _grid(used, rng, max_points, (d_expr, p_expr)):
            if conds and not all(bool(c.xreplace(pt)) for c in conds):
                continue
            ev = _eval_point(d_expr, p_expr, pt)
            if ev is None:
                continue
            a, b, av, bv = ev
            checked += 1
            gap = (av - bv) if rel in ("=", ">=") else (bv - av)
            scale = max(sp.Float(1), abs(av), abs(bv))
            tol = scale * sp.Float(10) ** (-(DIGITS - 10))
            exact_rational = a.is_Rational and b.is_Rational
            if rel == "=":
                bad = (a != b) if exact_rational else abs(gap) > tol
            else:
                bad = (gap < 0) if exact_rational else gap < -tol
            if worst is None or abs(gap) > abs(worst):
                worst = gap
            if bad:
                res.verdict = "refuted"
                res.counterexample = {
                    "point": {s.name: sp.sstr(v) for s, v in pt.items()},
                    "derived": sp.sstr(a),
                    "printed": sp.sstr(b),
                    "derived_value": sp.sstr(sp.N(av, 40)),
                    "printed_value": sp.sstr(sp.N(bv, 40)),
                    "exact": bool(exact_rational),
                    "evaluation": "exact rational arithmetic" if exact_rational else f"{DIGITS}-digit evaluation",
                }
                if rel == "=":
                    res.corrected = sp.sstr(parse(corrected, names) if corrected is not None else res.derived_tidy)
                elif corrected is not None:
                    res.corrected = sp.sstr(parse(corrected, names))
                break
        if res.verdict == "inconclusive":
            res.numeric_fallback = True
            res.numeric = {
                "points": checked,
                "max_abs_gap": None if worst is None else sp.sstr(sp.N(abs(worst), 5)),
                "digits": DIGITS,
                "note": "sympy could not decide; no counterexample on the seeded grid "
                "(numeric evidence only, not a proof)",
            }
    res.seconds = time.perf_counter() - t0
    return res


def combine(
    results: Sequence[FormulaResult],
    *,
    claimed: Any = None,
    measured: Any = None,
    extra: Mapping[str, Any] | None = None,
) -> Outcome:
    """One Outcome from several comparisons: refuted if any is, else inconclusive if any is, else holds.

    ``claimed``/``measured`` default to the printed/derived sides of the first
    comparison that decided the verdict.
    """
    if not results:
        raise ValueError("combine needs at least one result")
    if any(r.verdict == "refuted" for r in results):
        verdict = "refuted"
    elif any(r.verdict == "inconclusive" for r in results):
        verdict = "inconclusive"
    else:
        verdict = "holds"
    lead = next((r for r in results if r.verdict == verdict), results[0])
    details: dict[str, Any] = (
        lead.details()
        if len(results) == 1
        else {
            "parts": [r.details() for r in results],
            "numeric_fallback": any(r.numeric_fallback for r in results),
        }
    )
    if len(results) > 1:
        for key in ("counterexample", "corrected"):
            v = lead.details().get(key)
            if v is not None:
                details[key] = v
        details["deciding_part"] = lead.name
    if extra:
        details.update(extra)
    return Outcome(
        verdict=verdict,
        claimed=claimed if claimed is not None else lead.claimed_text,
        measured=measured if measured is not None else sp.sstr(lead.derived_tidy),
        details=details,
    )


def outcome_from(result: FormulaResult) -> Outcome:
    """An Outcome for one comparison."""
    return combine([result])


# --------------------------------------------------------------------------- user claims
_TARGETS: list[Registry] = []
_FORMULA_IDS: dict[int, set[str]] = {}


@contextlib.contextmanager
def collecting(registry: Registry) -> Iterator[Registry]:
    """Within the block, module-level :func:`formula_claim` calls register into ``registry``.

    Used by the pytest plugin to load a user's claims file into a private registry.
    """
    _TARGETS.append(registry)
    try:
        yield registry
    finally:
        _TARGETS.pop()


def _current_registry(explicit: Registry | None) -> Registry:
    if explicit is not None:
        return explicit
    return _TARGETS[-1] if _TARGETS else CATALOGUE


@dataclass
class FormulaClaim:
    """A declared formula claim (built by :func:`formula_claim`)."""

    id: str
    derived: sp.Expr
    printed: sp.Expr
    relation: str
    assumptions: dict[str, str]
    names: dict[str, sp.Symbol]
    expect: str | None
    claim: Claim
    conditions: tuple = ()
    corrected: Any = None

    def evaluate(self, seed: int | np.random.SeedSequence = 0) -> FormulaResult:
        """Decide the claim (same rules as every symbolic check); ``seed`` drives the grid."""
        return compare(
            self.id,
            self.derived,
            self.printed,
            self.assumptions,
            relation=self.relation,
            names=self.names,
            conditions=self.conditions,
            seed=seed,
            corrected=self.corrected,
        )

    def check(self, ctx: RunContext) -> Outcome:
        """The registered check function: evaluate with the run's seed sequence."""
        return outcome_from(self.evaluate(ctx.seed_seq))


def formula_claim(
    id: str,
    *,
    derived: Any,
    printed: Any,
    assumptions: Mapping[str, str],
    relation: str = "=",
    expect: str | None = "holds",
    source: str = "user",
    where: str = "",
    statement: str | None = None,
    substitutions: Mapping[str, Any] | None = None,
    conditions: Iterable[Any] = (),
    corrected: Any = None,
    kind: str = "formula",
    register: bool = True,
    registry: Registry | None = None,
) -> FormulaClaim:
    """Declare a formula claim and (by default) register it as a ``symbolic`` check.

    id: dotted claim id (unique); derived: the side obtained from the model's definitions;
    printed: the formula as published; both strings (``^`` = power, ``Phi`` = normal CDF)
    or sympy expressions over the declared symbols. assumptions: {symbol: domain}
    (``real``, ``positive``, ``nonnegative``, ``(0,1)``, ``[0,1]``, ``(1,oo)``, ``integer>=1``...).
    relation: ``=``, ``<=`` (derived ≤ printed) or ``>=``. expect: the verdict you expect
    (``holds``, ``refuted``, ``inconclusive``; None for no expectation) — ``privcheck verify``
    exits 1 and the pytest helper fails when the verdict differs. substitutions:
    {symbol: expression} applied to the derived side before comparing (definitions such as
    ``q = 1/(e^eps + m - 1)``). conditions: relations restricting the counterexample grid.
    corrected: an expression reported when refuted (default for ``=``: the derived side).
    register: add the Claim and its Check to ``registry`` (default: the registry of an
    enclosing :func:`collecting` block, else the built-in CATALOGUE; re-declaring the same id
    from this function replaces the earlier declaration).
    """
    if not isinstance(id, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*", id):
        raise PrivcheckUsageError(f"claim id must be a dotted identifier like 'mygroup.eq3', got {id!r}")
    if expect is not None and expect not in VERDICT_EXPECT:
        raise PrivcheckUsageError(f"expect must be one of {', '.join(VERDICT_EXPECT)} or None, got {expect!r}")
    rel = RELATIONS.get(str(relation).strip())
    if rel is None:
        raise PrivcheckUsageError(f"relation must be one of =, <=, >=; got {relation!r}")
    if not assumptions:
        raise PrivcheckUsageError("assumptions must declare every symbol, e.g. {'p': '(0,1)'}")
    names, _ = make_symbols(assumptions)
    d_expr = parse(derived, names, f"{id}: derived")
    p_expr = parse(printed, names, f"{id}: printed")
    if substitutions:
        sub = {
            names[k] if k in names else None: parse(v, names, f"{id}: substitution {k}")
            for k, v in substitutions.items()
        }
        if None in sub:
            bad = [k for k in substitutions if k not in names]
            raise PrivcheckUsageError(f"substitutions: undeclared symbol(s) {', '.join(bad)}")
        d_expr = d_expr.subs(sub)
    conds = tuple(parse(c, names, f"{id}: condition") for c in conditions)
    rel_txt = {"=": "=", "<=": "≤", ">=": "≥"}[rel]
    claim = Claim(id, source, where, kind, statement or f"{sp.sstr(d_expr)} {rel_txt} {sp.sstr(p_expr)}", ("symbolic",))
    fc = FormulaClaim(id, d_expr, p_expr, rel, dict(assumptions), names, expect, claim, conds, corrected)
    if register:
        reg = _current_registry(registry)
        mine = _FORMULA_IDS.setdefault(id_of(reg), set())
        if id in mine:  # re-declaration from a re-executed file: replace
            reg.claims[id] = claim
            reg.checks[id] = [c for c in reg.checks.get(id, []) if c.method != "symbolic" or c.part != ""]
        else:
            reg.add_claim(claim)
        reg.add_check(Check(id, "symbolic", fc.check, expect=expect))
        mine.add(id)
    return fc


def id_of(reg: Registry) -> int:
    """Identity key of a registry (for the re-declaration bookkeeping)."""
    return id(reg)
