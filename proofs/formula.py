"""Symbolic formula claims: the engine behind every ``symbolic`` check, and the user API.

A *formula claim* compares a quantity **derived** from a model's definitions with the
formula **as printed** in a paper (or in a user's notes), under declared assumptions on
the symbols, for a relation ``=``, ``<=`` or ``>=``. Three routes, in order:

1. **symbolic** — ``holds (symbolic)`` when sympy proves it: the difference simplifies to
   zero (``=``), or the difference, rewritten in positive variables (``x in (0, 1)`` becomes
   ``1/(1+u)`` with ``u > 0`` and so on), factors into a form sympy's assumption system proves
   nonnegative;
2. **interval proof** (``<=``, ``>=``, and ``=`` with a ``tolerance``) — ``holds (interval proof,
   N boxes, margin ≥ m)`` when branch and bound in outward-rounded interval arithmetic certifies
   the sign of the difference on every box of the declared domains (:mod:`proofs.interval`);
3. **counterexample search** — ``refuted`` when hypothesis finds a point of the domains (and
   conditions) violating the claim, shrunk to a simple one and confirmed exactly: both sides are
   substituted exactly and compared as rationals, or enclosed by interval arithmetic at 170 bits
   (50-digit evaluation only for functions interval arithmetic cannot evaluate);
   :mod:`proofs.counterexample`. For ``=`` the derived side is reported as the corrected expression.

Otherwise ``inconclusive``, with both routes' reasons on one line (``reason`` in the record's
details) and ``numeric_fallback: True``. A numeric check never yields ``holds``: only sympy or a
completed interval proof does. The bounds of routes 2 and 3 (boxes, depth, seconds, examples) are
a :class:`proofs.routes.FormulaPlan`.

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
``integer>=1`` (any lower bound). ``conditions`` (e.g. ``["p > q"]``) restrict the interval
proof and the counterexample search; sympy's proof of ``<=`` uses only the domains.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import sympy as sp
from sympy.parsing.sympy_parser import (
    convert_xor,
    parse_expr,
    rationalize,
    standard_transformations,
)

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import CATALOGUE, Check, Claim, Outcome, Registry, RunContext
from proofs.counterexample import GUIDE_DPS
from proofs.routes import DEFAULT_PLAN, FormulaPlan, settle

__all__ = [
    "Domain",
    "FormulaClaim",
    "FormulaPlan",
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


_TRANSFORMS = standard_transformations + (convert_xor, rationalize)  # 1.01 is 101/100, exactly
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
    "Sum": sp.Sum,
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
    """The decision on one comparison (see the module docstring for the rules).

    route: which route decided (``symbolic``, ``interval proof``, ``counterexample search``; empty when
    inconclusive); reason: one line saying how it was decided or why it was not; proof / search: the
    records of the interval proof(s) and of the counterexample search, when they ran.
    """

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
    route: str = ""
    reason: str = ""
    proof: list[dict] | None = None
    search: dict | None = None
    tolerance: str | None = None

    @property
    def derived_tidy(self) -> sp.Expr:
        """The derived side in its shortest cheap form (cancel/factor), for display."""
        return _tidy(self.derived)

    @property
    def claimed_text(self) -> str:
        """The printed side as text (the paper's wording when given)."""
        return self.printed_text or sp.sstr(self.printed)

    @property
    def verdict_text(self) -> str:
        """``holds (symbolic)``, ``holds (interval proof, 12 boxes, margin ≥ 0.5)``, ``refuted (counterexample …)``."""
        if self.verdict == "holds" and self.route == "symbolic":
            return "holds (symbolic)"
        return f"{self.verdict} ({self.reason})" if self.reason else self.verdict

    def details(self) -> dict:
        """JSON-ready record details: both sides in plain text and LaTeX, difference, assumptions, routes..."""
        d: dict[str, Any] = {
            "name": self.name,
            "verdict": self.verdict,
            "verdict_text": self.verdict_text,
            "reason": self.reason,
            "route": self.route,
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
        if self.tolerance is not None:
            d["tolerance"] = self.tolerance
        for key in ("counterexample", "corrected", "numeric", "proof", "search"):
            v = getattr(self, key)
            if v is not None:
                d["interval_proof" if key == "proof" else key] = v
        if self.notes:
            d["notes"] = list(self.notes)
        return d


def _ops(e: sp.Expr) -> int:
    return int(sp.count_ops(e))


#: sympy.factor is skipped on polynomials larger than this (total degree × generators): it can run for hours
FACTOR_MAX_SIZE = 60


def _factor(e: sp.Expr) -> sp.Expr:
    """factor(e) when e's numerator and denominator are small polynomials in their generators, else e itself.

    A shifted domain such as eps >= 129/100 turns exp(eps/2) into exp(129/200)·exp(u/2), and factoring the
    resulting polynomial in exp(1/200), exp(1/100), … of degree 390 does not finish: such forms are left unfactored.
    """
    return e if _too_big(e) else sp.factor(e)


def _too_big(e: sp.Expr) -> bool:
    """Whether e's numerator or denominator is a polynomial too large for factor / sympy's sign queries."""
    for part in sp.fraction(e):
        try:
            P = sp.Poly(part)
        except (sp.PolynomialError, sp.GeneratorsNeeded, ValueError, TypeError):
            continue
        if P.total_degree() * max(1, len(P.gens)) > FACTOR_MAX_SIZE:
            return True
    return False


def _nonneg(e: sp.Expr) -> bool:
    """sympy's ``is_nonnegative``, skipped (False) on large polynomials: the query factors them and can hang."""
    return False if _too_big(e) else bool(e.is_nonnegative)


def _tidy(e: sp.Expr) -> sp.Expr:
    """Shortest of e, cancel(together(e)), factor of that (no blind simplify)."""
    best = e
    try:
        c = sp.cancel(sp.together(e))
        for cand in (c, _factor(c)):
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
    direct = _factor(sp.cancel(sp.together(expr)))
    if _nonneg(direct):
        return True, direct, "factor + assumptions"
    sub, back = {}, {}
    for s, dom in doms.items():
        rep, u = dom.positive_reparam(s)
        if u is not None:
            sub[s] = rep
            back[u] = s
    if sub:
        e = expr.xreplace(sub)
        e = _factor(sp.cancel(sp.together(e)))
        if _nonneg(e):
            return True, e, "positive reparametrisation + factor"
        num, den = sp.fraction(e)
        num_e = sp.expand(num)
        if _nonneg(num_e) and den.is_positive:
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
        e3 = _factor(sp.cancel(sp.together(sp.powsimp(sp.expand_power_exp(e2.xreplace(exp_sub))))))
        if _nonneg(e3):
            return True, e3, "exp(x) = (1+v)^L substitution + factor"
        num, den = sp.fraction(e3)
        num_e = sp.expand(num)
        if _nonneg(num_e) and den.is_positive:
            return True, num_e / den, "exp substitution, expanded numerator"
    return False, direct, "no proof found"


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
    max_points: int | None = None,
    simplifiers: Sequence[Callable[[sp.Expr], sp.Expr]] = (),
    corrected: Any = None,
    notes: Iterable[str] = (),
    printed_text: str | None = None,
    tolerance: Any = None,
    plan: FormulaPlan | None = None,
) -> FormulaResult:
    """Decide ``derived <relation> printed`` under ``assumptions`` ({name: domain}).

    Routes in order (the module docstring has the rules): sympy; an interval proof for ``<=``/``>=``
    (and ``=`` with a ``tolerance``); a hypothesis counterexample search with exact confirmation.
    ``names`` reuses Symbols already built with :func:`make_symbols` (they must match the
    assumptions); ``conditions`` (sympy relations or strings) restrict the domain for the interval
    proof and the search (sympy's proof uses only the domains); ``simplifiers`` are extra targeted
    rewrites tried before blind simplify; ``corrected`` overrides the reported corrected expression
    (default for ``=``: the derived side); ``printed_text`` is the formula in the paper's notation;
    ``tolerance``: for ``=``, the allowed |derived − printed| (a number >= 0); ``plan``: bounds of the
    numeric routes (:class:`proofs.routes.FormulaPlan`); ``max_points``: the search's example count
    (shorthand for ``plan.search.max_examples``).
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
    tol = _tolerance(tolerance, rel, name)
    plan = plan or DEFAULT_PLAN
    if max_points is not None:
        plan = replace(plan, search=replace(plan.search, max_examples=int(max_points)))
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
        tolerance=None if tol is None else sp.sstr(tol),
    )
    if rel == "=":
        zero, diff, how = _zero_attempts(d_expr - p_expr, simplifiers)
        res.difference, res.how = diff, how
    else:
        target = (p_expr - d_expr) if rel == "<=" else (d_expr - p_expr)
        zero, form, how = _prove_nonneg(target, used)
        res.difference, res.how = form, how
    if zero:
        res.verdict, res.route, res.reason = "holds", "symbolic", f"symbolic: {res.how}"
    else:
        _settle_numerically(res, used, conds, seed, plan, tol, corrected, names)
    res.seconds = time.perf_counter() - t0
    return res


def _tolerance(tolerance: Any, rel: str, name: str) -> sp.Expr | None:
    """The tolerance of an ``=`` claim as an exact nonnegative number (None when not given)."""
    if tolerance is None:
        return None
    if rel != "=":
        raise PrivcheckUsageError(f"{name}: a tolerance applies to relation '=' only, not {rel!r}")
    try:
        tol = sp.nsimplify(sp.sympify(str(tolerance)), rational=True)
    except (sp.SympifyError, TypeError, ValueError):
        tol = None
    if tol is None or not tol.is_number or not tol.is_real or bool(tol < 0):
        raise PrivcheckUsageError(f"{name}: tolerance must be a number >= 0, got {tolerance!r}")
    return tol


def _settle_numerically(
    res: FormulaResult,
    used: Mapping[sp.Symbol, Domain],
    conds: list,
    seed: int | np.random.SeedSequence,
    plan: FormulaPlan,
    tol: sp.Expr | None,
    corrected: Any,
    names: Mapping[str, sp.Symbol],
) -> None:
    """The interval proof and the counterexample search (proofs.routes.settle), recorded on ``res``."""
    st = settle(
        res.name, res.derived, res.printed, res.relation, used, conditions=conds, seed=seed, plan=plan, tolerance=tol
    )
    res.verdict, res.route = st.verdict, st.route
    if st.verdict != "inconclusive":
        res.reason = st.reason
    else:
        res.reason = "sympy could not decide" + (f"; {st.reason}" if st.reason else "")
    if st.proofs:
        res.proof = [p.details() for p in st.proofs]
    if st.search is not None:
        sr = st.search
        res.search = {
            "examples": sr.examples,
            "seed": sr.seed,
            "seconds": round(sr.seconds, 4),
            "timed_out": sr.timed_out,
            "max_examples": plan.search.max_examples,
        }
        if sr.notes:
            res.search["notes"] = list(sr.notes)
    ce = st.counterexample
    if ce is not None:
        res.counterexample = ce.record()
        if res.relation == "=":
            res.corrected = sp.sstr(parse(corrected, names) if corrected is not None else res.derived_tidy)
        elif corrected is not None:
            res.corrected = sp.sstr(parse(corrected, names))
    if st.verdict == "inconclusive":
        res.numeric_fallback = True
        res.numeric = {
            "points": 0 if st.search is None else st.search.examples,
            "max_abs_gap": None if st.search is None else st.search.max_abs_gap,
            "digits": GUIDE_DPS,
            "note": "numeric evidence only, not a proof",
        }


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
        details["reason"] = _combined_reason(results, verdict, lead)
        details["verdict_text"] = f"{verdict} ({details['reason']})"
    if extra:
        details.update(extra)
    return Outcome(
        verdict=verdict,
        claimed=claimed if claimed is not None else lead.claimed_text,
        measured=measured if measured is not None else sp.sstr(lead.derived_tidy),
        details=details,
    )


def _combined_reason(results: Sequence[FormulaResult], verdict: str, lead: FormulaResult) -> str:
    """One line for several comparisons: the deciding part's reason, or how each route contributed."""
    if verdict != "holds":
        return f"{lead.name}: {lead.reason}"
    routes: dict[str, list[FormulaResult]] = {}
    for r in results:
        routes.setdefault(r.route or "symbolic", []).append(r)
    said = []
    for route, rs in routes.items():
        if route == "symbolic":
            said.append(f"{len(rs)} symbolic")
        else:
            said.append(f"{len(rs)} by {route} ({'; '.join(r.reason for r in rs)})")
    return f"{len(results)} parts: " + ", ".join(said)


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
    tolerance: Any = None
    plan: FormulaPlan | None = None

    def evaluate(self, seed: int | np.random.SeedSequence = 0) -> FormulaResult:
        """Decide the claim (same rules as every symbolic check); ``seed`` drives the counterexample search."""
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
            tolerance=self.tolerance,
            plan=self.plan,
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
    tolerance: Any = None,
    plan: FormulaPlan | None = None,
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
    ``q = 1/(e^eps + m - 1)``). conditions: relations restricting the domain (interval proof and
    counterexample search). corrected: an expression reported when refuted (default for ``=``: the
    derived side). tolerance: for ``=``, the allowed |derived − printed| (a number >= 0): the claim
    may then also be proved by interval arithmetic. plan: bounds of the interval proof and of the
    counterexample search (:class:`proofs.routes.FormulaPlan`; default :data:`proofs.routes.DEFAULT_PLAN`).
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
    _tolerance(tolerance, rel, id)  # a bad tolerance is reported when the claim is declared
    rel_txt = {"=": "=", "<=": "≤", ">=": "≥"}[rel]
    claim = Claim(id, source, where, kind, statement or f"{sp.sstr(d_expr)} {rel_txt} {sp.sstr(p_expr)}", ("symbolic",))
    fc = FormulaClaim(
        id, d_expr, p_expr, rel, dict(assumptions), names, expect, claim, conds, corrected, tolerance, plan
    )
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
