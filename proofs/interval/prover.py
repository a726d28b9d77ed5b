"""Branch-and-bound proof that an expression is >= 0 on a box, by interval arithmetic.

:func:`prove_nonnegative` covers the box (the closure of the declared domains, see
:mod:`proofs.interval.box`) with sub-boxes and settles each one by, in order:

1. **enclosure** — the interval value of the target on the box has lower end >= 0 (certified; the
   smallest such lower end over all boxes is the reported margin, a proved lower bound of the target);
   an enclosure entirely below 0 (with the conditions certainly true there) stops the proof as
   ``violated``: the box is handed back as a place to look for a counterexample;
2. **monotonicity** — the interval value of ∂T/∂x on the box has one sign, so the minimum over the box
   lies on one face: the face (x fixed at that end) is proved instead. At an infinite end, or where T is
   not defined at the end (an open end), the face is the one-sided limit, computed by sympy (the
   symbolic route), and the limit expression is proved on the remaining variables;
3. **touching points** (from ``touching_depth`` on) — where T touches 0 (e.g. exp(ε) − 1 − ε at ε = 0),
   first-order monotonicity may fail: then ±∂T/∂x >= 0 is proved on the box by the same method
   (a sub-proof, itself able to use ∂²T), and the box reduces to its face as in 2. This is the Taylor
   argument T(x) = T(x₀) + ∫ T′ with every step certified;
4. otherwise the box is split (the variable with the largest |∂T/∂x|·width, unbounded ones first).

A point box whose enclosure contains 0 is decided exactly by sympy (value simplifies to 0) or not at all.
The proof stops with the reason when a box is still unresolved at ``max_depth`` bisections, or when the
box or time budget runs out; an expression interval arithmetic cannot evaluate gives ``unsupported``.
Conditions (``p > q``) discard boxes where they are certainly false; a box where they are neither
certainly true nor certainly false is only split (its faces may lie outside them), and monotonicity is
used only on boxes where they certainly hold.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Iterable, Mapping

import sympy as sp
from mpmath.libmp import fzero

from proofs.interval.arith import (
    Ops,
    Undefined,
    decimal_text,
    interval_text,
    is_negative,
    is_nonnegative,
    lower,
    to_fraction,
    upper,
)
from proofs.interval.box import Span, bounds_text, is_point, simplest_in, split_span, u_width
from proofs.interval.compile import Unsupported, compile_both, compile_expr, erfcx
from proofs.interval.points import backend as make_backend
from proofs.interval.points import ivprec
from proofs.interval.scaling import scale_out

__all__ = ["ProofPlan", "ProofResult", "prove_nonnegative"]

#: derivatives (and limits) of larger expressions are not attempted (sympy's cost grows fast)
MAX_DERIVATIVE_OPS = 400


@dataclass(frozen=True)
class ProofPlan:
    """Bounds and settings of one interval proof.

    max_boxes: boxes examined in all (sub-proofs included); max_depth: bisections along one branch;
    seconds: wall-clock bound; prec: working precision in bits; backend: ``auto`` (arb when
    python-flint is installed, else mpmath), ``flint`` or ``mpmath``; monotonicity: use ∂T/∂x;
    touching_depth / touching_order / sub_boxes: from which depth derivative sub-proofs are tried, how
    deeply they nest (3 = up to ∂³T), and each one's box budget.
    """

    max_boxes: int = 20_000
    max_depth: int = 60
    seconds: float = 20.0
    prec: int = 64
    backend: str = "auto"
    monotonicity: bool = True
    touching_depth: int = 6
    touching_order: int = 3
    sub_boxes: int = 400


@dataclass
class ProofResult:
    """Outcome of :func:`prove_nonnegative`.

    status: ``proved`` | ``violated`` (a box where the target is certainly < 0: ``witness``) |
    ``stopped`` (budget, depth or an undecided step: ``reason``) | ``unsupported`` (``reason``).
    margin: a proved lower bound of the target over the domain (when proved).
    """

    status: str
    boxes: int = 0
    margin: Fraction | None = None
    depth: int = 0
    seconds: float = 0.0
    backend: str = ""
    prec: int = 0
    reason: str = ""
    stats: dict = field(default_factory=dict)
    witness: dict[str, Span] | None = None
    touching: list[str] = field(default_factory=list)
    exhausted: bool = False
    scaled_by: str | None = None

    @property
    def proved(self) -> bool:
        """Whether the target was proved >= 0."""
        return self.status == "proved"

    def margin_text(self) -> str:
        """``margin ≥ 1.2e-3`` (rounded down), or ``margin ≥ 0`` at a touching point."""
        if self.margin is None:
            return "margin unknown"
        m = decimal_text(self.margin, 3, down=True)
        return f"margin ≥ {m}·exp({self.scaled_by})" if self.scaled_by and self.margin != 0 else f"margin ≥ {m}"

    def summary(self) -> str:
        """One line: what was proved or why the proof stopped."""
        if self.proved:
            txt = f"interval proof, {self.boxes:,} box{'es' if self.boxes != 1 else ''}, {self.margin_text()}"
            if self.touching:
                txt += f", touches 0 at {'; '.join(self.touching[:2])}"
            return txt
        return self.reason

    def details(self) -> dict:
        """JSON-ready record of the proof (boxes, depth, margin, seconds, backend, steps used)."""
        d: dict[str, Any] = {
            "status": self.status,
            "boxes": self.boxes,
            "max_depth_reached": self.depth,
            "seconds": round(self.seconds, 4),
            "backend": self.backend,
            "precision_bits": self.prec,
            "steps": dict(self.stats),
        }
        if self.margin is not None:
            d["margin_lower_bound"] = decimal_text(self.margin, 6, down=True)
        if self.scaled_by is not None:
            d["divided_by"] = f"exp({self.scaled_by})"
        if self.touching:
            d["touching"] = list(self.touching)
        if self.reason:
            d["reason"] = self.reason
        if self.witness is not None:
            d["violated_on"] = bounds_text(self.witness)
        return d


class _Stop(Exception):
    """The proof ends here (budget, time, or an unresolved box of the main target)."""

    def __init__(self, message: str, exhausted: bool = False) -> None:
        super().__init__(message)
        self.exhausted = exhausted


class _Fail(Exception):
    """A sub-proof failed (the caller tries something else)."""


class _Violated(Exception):
    def __init__(self, box: dict, enc: Any) -> None:
        super().__init__("violated")
        self.box, self.enc = box, enc


@dataclass
class _Ctx:
    local: bool  # a sub-proof: failures raise _Fail, not _Stop
    cap: int  # box budget of this (sub-)proof
    used: int = 0


class _Target:
    """An expression to prove >= 0, compiled, with lazily compiled partial derivatives."""

    def __init__(self, expr: sp.Expr, order_syms: list, kind: str, order: int, conds: bool) -> None:
        self.expr = expr
        self.kind = kind  # main | limit | derivative
        self.order = order
        self.conds = conds
        self.syms = [s for s in order_syms if s in expr.free_symbols]
        self.where = ""  # for a limit target: which limit (shown at a touching point)
        self.f = compile_both(expr)
        self._d: dict = {}
        self._order_syms = order_syms

    def plain(self) -> "_Target":
        """The same target without the conditions (for faces and limits)."""
        if not self.conds:
            return self
        t = object.__new__(_Target)
        t.__dict__.update(self.__dict__)
        t.conds = False
        return t

    def derivative(self, s: sp.Symbol) -> tuple[sp.Expr, Any] | None:
        """(∂T/∂s simplified cheaply, its evaluator), or None when too large or not evaluable."""
        if s not in self._d:
            self._d[s] = _derivative(self.expr, s)
        return self._d[s]


_TARGETS: dict = {}
#: compiled targets kept between proofs (a quick proof, then the full one, reuse the derivatives sympy computed)
TARGET_CACHE_SIZE = 512


def _cached_target(expr: sp.Expr, order_syms: tuple, kind: str, order: int, conds: bool) -> _Target:
    key = (expr, order_syms, kind, order, conds)
    got = _TARGETS.get(key)
    if got is None:
        if len(_TARGETS) >= TARGET_CACHE_SIZE:
            _TARGETS.pop(next(iter(_TARGETS)))
        got = _Target(expr, list(order_syms), kind, order, conds)
        _TARGETS[key] = got
    return got


def cheap_form(e: sp.Expr) -> sp.Expr:
    """The shortest of a few cheap rewrites of ``e`` (never ``simplify``, which can take minutes).

    powsimp(expand(e)) merges exponentials with expanded exponents, so terms such as
    e^ε·φ(−ε/μ − μ/2) and φ(−ε/μ + μ/2) become equal and cancel exactly before any interval is formed.
    """
    cands = [e, sp.powsimp(e), sp.factor_terms(e)]
    if sp.count_ops(e) <= 150:
        try:
            cands.append(sp.powsimp(sp.expand(e)))
        except Exception:  # expand can fail on odd expressions: keep the others
            pass
    return min(cands, key=sp.count_ops)


def _derivative(expr: sp.Expr, s: sp.Symbol) -> tuple[sp.Expr, Any] | None:
    if sp.count_ops(expr) > MAX_DERIVATIVE_OPS:
        return None
    try:
        best = cheap_form(sp.diff(expr, s))
        return best, compile_both(best)
    except (Unsupported, ValueError, TypeError, NotImplementedError):
        return None


def _condition_gap(c: Any) -> tuple[sp.Expr, bool] | None:
    """(g, strict) with the condition meaning g > 0 (strict) or g >= 0; None for other relations."""
    if isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan)):
        return c.lhs - c.rhs, isinstance(c, sp.StrictGreaterThan)
    if isinstance(c, (sp.StrictLessThan, sp.LessThan)):
        return c.rhs - c.lhs, isinstance(c, sp.StrictLessThan)
    return None


class _Prover:
    def __init__(self, spans: Mapping[sp.Symbol, Span], conditions: Iterable[Any], plan: ProofPlan) -> None:
        self.spans = dict(spans)
        self.order = sorted(self.spans, key=lambda s: s.name)
        self.plan = plan
        self.points = make_backend(plan.backend)
        self.ops = Ops(self.points, plan.prec)
        self.conds = []
        for c in conditions:
            g = _condition_gap(c)
            if g is None:
                continue
            try:
                self.conds.append((compile_expr(g[0]), g[1], [s for s in self.order if s in g[0].free_symbols]))
            except Unsupported:
                continue
        self.boxes = 0
        self.depth = 0
        self.margin: Fraction | None = None
        self.touching: list[str] = []
        self.stats = {"monotone_faces": 0, "limits": 0, "touching_subproofs": 0, "discarded_by_conditions": 0}
        self.t0 = time.perf_counter()
        self._env_cache: dict[Span, Any] = {}
        self._limits: dict = {}
        self._touch_tries = 0
        self._faces: dict = {}

    def target(self, expr: sp.Expr, kind: str, order: int, conds: bool = False) -> _Target:
        """The compiled target for ``expr`` (raises Unsupported), cached across proofs (see :func:`_cached_target`)."""
        return _cached_target(expr, tuple(self.order), kind, order, conds)

    # ------------------------------------------------------------------ evaluation
    def _env(self, box: Mapping[sp.Symbol, Span], syms: Iterable[sp.Symbol]) -> dict:
        env = {}
        for s in syms:
            sp_ = box[s]
            got = self._env_cache.get(sp_)
            if got is None:
                got = self.ops.span(sp_.lo, sp_.hi)
                self._env_cache[sp_] = got
            env[s] = got
        return env

    def _eval(self, f: Any, syms: Iterable[sp.Symbol], box: Mapping) -> Any:
        try:
            return f(self._env(box, syms), self.ops)
        except (Undefined, ZeroDivisionError):
            return None

    def _conditions(self, box: Mapping) -> str:
        """``true`` (all certainly hold), ``false`` (one certainly fails) or ``mixed``."""
        state = "true"
        for f, strict, syms in self.conds:
            g = self._eval(f, syms, box)
            if g is None:
                state = "mixed"
                continue
            a, b = lower(g), upper(g)
            if (sp_sign(b) < 0) or (strict and sp_sign(b) <= 0):
                return "false"
            if not (sp_sign(a) > 0 or (not strict and sp_sign(a) >= 0)):
                state = "mixed"
        return state

    # ------------------------------------------------------------------ bookkeeping
    def _tick(self, ctx: _Ctx) -> None:
        self.boxes += 1
        ctx.used += 1
        if self.boxes > self.plan.max_boxes:
            raise _Stop(f"box budget of {self.plan.max_boxes:,} boxes used up", exhausted=True)
        if self.boxes % 32 == 0 and time.perf_counter() - self.t0 > self.plan.seconds:
            raise _Stop(f"time budget of {self.plan.seconds:g} s used up after {self.boxes:,} boxes", exhausted=True)
        if ctx.local and ctx.used > ctx.cap:
            raise _Fail("sub-proof budget")

    def _give_up(self, tgt: _Target, box: Mapping, ctx: _Ctx, why: str) -> None:
        if ctx.local:
            raise _Fail(why)
        enc = self._eval(tgt.f, tgt.syms, box)
        where = bounds_text({s.name: box[s] for s in tgt.syms}) or "the single point"
        value = "not defined there" if enc is None else f"enclosure {interval_text(enc, 4)}"
        what = "" if tgt.kind == "main" else f" (of the {tgt.kind} {sp.sstr(tgt.expr)[:60]})"
        raise _Stop(f"{why} on {where}{what}: {value}")

    def _record(self, tgt: _Target, enc: Any) -> None:
        if tgt.kind == "derivative":
            return
        m = to_fraction(lower(enc))
        if m is not None and (self.margin is None or m < self.margin):
            self.margin = m

    # ------------------------------------------------------------------ the search
    def region(self, tgt: _Target, box: dict, ctx: _Ctx) -> None:
        """Prove tgt >= 0 on box (raises _Stop / _Fail / _Violated otherwise)."""
        stack: list[tuple[dict, int]] = [(box, 0)]
        while stack:
            b, depth = stack.pop()
            self._tick(ctx)
            self.depth = max(self.depth, depth)
            done, derivs = self._settle(tgt, b, depth, ctx)
            if done:
                continue
            if depth >= self.plan.max_depth:
                self._give_up(tgt, b, ctx, f"unresolved after {depth} bisections")
            s = self._pick(tgt, b, derivs)
            if s is None:
                self._give_up(tgt, b, ctx, "undecided at a single point")
            left, right = split_span(b[s])
            stack.append(({**b, s: right}, depth + 1))
            stack.append(({**b, s: left}, depth + 1))

    def _settle(self, tgt: _Target, b: dict, depth: int, ctx: _Ctx) -> tuple[bool, dict]:
        conds_hold = True
        if tgt.conds and self.conds:
            state = self._conditions(b)
            if state == "false":
                self.stats["discarded_by_conditions"] += 1
                return True, {}
            conds_hold = state == "true"
        enc = self._eval(tgt.f, tgt.syms, b)
        if enc is not None:
            if is_nonnegative(enc):
                self._record(tgt, enc)
                if lower(enc) == fzero and all(is_point(b[s]) for s in tgt.syms):
                    self._touch_point(tgt, b)
                return True, {}
            if is_negative(enc) and conds_hold:
                if ctx.local or tgt.kind == "derivative":
                    raise _Fail("negative")
                raise _Violated(b, enc)
        free = [s for s in tgt.syms if not is_point(b[s])]
        if not free:
            return self._at_point(tgt, b, ctx, conds_hold), {}
        derivs: dict = {}
        if not conds_hold:  # a face of this box may lie outside the conditions: only splitting is sound here
            return False, derivs
        if self.plan.monotonicity:
            for s in free:
                d = tgt.derivative(s)
                de = None if d is None else self._eval(d[1], [v for v in tgt.syms], b)
                derivs[s] = de
                if de is None:
                    continue
                if is_nonnegative(de):
                    return self._face(tgt, b, s, "lo", ctx), {}
                if sp_sign(upper(de)) <= 0:
                    return self._face(tgt, b, s, "hi", ctx), {}
        if self._touch_now(depth) and tgt.order < self.plan.touching_order:
            for s in free:
                if self._touching(tgt, b, s, ctx):
                    return True, {}
        return False, derivs

    def _touch_now(self, depth: int) -> bool:
        td = self.plan.touching_depth
        return depth >= td and (depth - td) % 6 == 0

    def _pick(self, tgt: _Target, b: dict, derivs: dict) -> sp.Symbol | None:
        free = [s for s in tgt.syms if not is_point(b[s])]
        if not free:
            return None
        unbounded = [s for s in free if b[s].lo is None or b[s].hi is None]
        if unbounded:
            return max(unbounded, key=lambda s: u_width(b[s]))
        smear = {}
        for s in free:
            de = derivs.get(s)
            lo = None if de is None else to_fraction(lower(de))
            hi = None if de is None else to_fraction(upper(de))
            if lo is None or hi is None:
                smear = {}
                break
            smear[s] = max(abs(lo), abs(hi)) * (b[s].hi - b[s].lo)
        if smear and max(smear.values()) > 0:
            return max(free, key=lambda s: smear[s])
        return max(free, key=lambda s: u_width(b[s]))

    def _at_point(self, tgt: _Target, b: dict, ctx: _Ctx, conds_hold: bool = True) -> bool:
        """A point box whose enclosure straddles 0: more precision, then sympy's exact value."""
        ops, self.ops = self.ops, Ops(self.points, self.plan.prec * 4)
        try:
            with ivprec(self.plan.prec * 4):
                enc = tgt.f({s: self.ops.span(b[s].lo, b[s].lo) for s in tgt.syms}, self.ops)
        except (Undefined, ZeroDivisionError):
            enc = None
        finally:
            self.ops = ops
        if enc is not None and is_nonnegative(enc):
            self._record(tgt, enc)
            return True
        pt = {s: sp.Rational(b[s].lo.numerator, b[s].lo.denominator) for s in tgt.syms}
        try:
            val = tgt.expr.xreplace(pt)
            zero = val == 0 or sp.simplify(val) == 0
        except Exception:  # sympy may fail on odd values: then it is undecided
            zero = False
        if zero:
            if tgt.kind != "derivative":
                self.margin = Fraction(0) if self.margin is None else min(self.margin, Fraction(0))
                self._touch_point(tgt, b)
            return True
        if enc is not None and is_negative(enc) and conds_hold and not ctx.local and tgt.kind != "derivative":
            raise _Violated(b, enc)
        return False

    def _touch_point(self, tgt: _Target, b: dict) -> None:
        if tgt.kind == "derivative":
            return
        where = ", ".join([f"{s.name} = {b[s].lo}" for s in tgt.syms] + ([tgt.where] if tgt.where else []))
        if where not in self.touching:
            self.touching.append(where)

    def _face(self, tgt: _Target, b: dict, s: sp.Symbol, end: str, ctx: _Ctx) -> bool:
        """T is monotone in s on b: prove it on the face s = end (or on the limit there)."""
        v = b[s].lo if end == "lo" else b[s].hi
        if v is not None:
            face = {**b, s: b[s].point(v)}
            if self._zero_face(tgt, s, v):  # T vanishes on the whole face (e.g. log(1 + p(e^eps - 1)) - eps at p = 1)
                self.stats["monotone_faces"] += 1
                self._record(tgt, _make_zero())
                self._touch_face(tgt, face, s, v)
                return True
            enc = self._eval(tgt.f, tgt.syms, face)
            if enc is not None and to_fraction(lower(enc)) is not None:  # defined at the end, bounded below
                self.stats["monotone_faces"] += 1
                self.region(tgt.plain(), face, ctx)
                return True
        lim = self._limit(tgt, b, s, v, end, ctx)
        if lim is sp.oo:
            return True
        if lim is -sp.oo:
            if ctx.local or tgt.kind == "derivative":
                raise _Fail("limit -oo")
            raise _Violated(b, None)
        try:
            lt = self.target(lim, "limit" if tgt.kind != "derivative" else "derivative", tgt.order)
            lt.where = ", ".join(
                w
                for w in (tgt.where, f"{s.name} → {'-oo' if v is None and end == 'lo' else 'oo' if v is None else v}")
                if w
            )
        except Unsupported as exc:
            self._give_up(tgt, b, ctx, f"limit {sp.sstr(lim)[:60]} not evaluable ({exc})")
            return False
        self.stats["limits"] += 1
        rest = {k: w for k, w in b.items() if k != s}
        self.region(lt, rest, ctx)
        return True

    def _zero_face(self, tgt: _Target, s: sp.Symbol, v: Fraction) -> bool:
        """Whether T with s = v is identically 0 (sympy's automatic evaluation; cached)."""
        key = (tgt.expr, s, v)
        if key not in self._faces:
            try:
                self._faces[key] = tgt.expr.xreplace({s: sp.Rational(v.numerator, v.denominator)}) == 0
            except Exception:  # an odd substitution: not known to vanish
                self._faces[key] = False
        return self._faces[key]

    def _touch_face(self, tgt: _Target, face: dict, s: sp.Symbol, v: Fraction) -> None:
        if tgt.kind == "derivative":
            return
        rest = [k for k in tgt.syms if k != s and not is_point(face[k])]
        where = f"{s.name} = {v}" + (" (the whole face)" if rest else "")
        if where not in self.touching:
            self.touching.append(where)

    def _limit(self, tgt: _Target, b: dict, s: sp.Symbol, v: Fraction | None, end: str, ctx: _Ctx) -> sp.Expr:
        if v is None:
            point, direction, label = (-sp.oo if end == "lo" else sp.oo), "+", ("-oo" if end == "lo" else "oo")
        else:
            point, direction, label = sp.Rational(v.numerator, v.denominator), ("+" if end == "lo" else "-"), str(v)
        key = (tgt.expr, s, point, direction)
        if key not in self._limits:
            got = None
            if sp.count_ops(tgt.expr) <= MAX_DERIVATIVE_OPS:
                try:
                    got = sp.limit(tgt.expr.rewrite(sp.erfc) if tgt.expr.has(erfcx) else tgt.expr, s, point, direction)
                except Exception:  # sympy's limit raises many kinds; no limit is then known
                    got = None
            bad = got is None or got.has(sp.Limit, sp.nan, sp.zoo, sp.AccumBounds) or (got.is_real is False)
            self._limits[key] = None if bad else got
        lim = self._limits[key]
        if lim is None:
            side = direction if v is not None else ""
            self._give_up(tgt, b, ctx, f"no limit as {s.name} → {label}{side} found by sympy (the remaining gap)")
        return lim

    def _touching(self, tgt: _Target, b: dict, s: sp.Symbol, ctx: _Ctx) -> bool:
        d = tgt.derivative(s)
        if d is None or self._touch_tries > 200:
            return False
        self._touch_tries += 1
        centre = {k: (w.point(simplest_in(w)) if k in tgt.syms else w) for k, w in b.items()}
        mid = self._eval(d[1], tgt.syms, centre)
        signs = [1, -1] if mid is None or not is_negative(mid) else [-1, 1]
        for sign in signs:
            try:
                sub = self.target(sign * d[0], "derivative", tgt.order + 1)
            except Unsupported:
                return False
            try:
                self.region(sub, b, _Ctx(True, self.plan.sub_boxes))
            except _Fail:
                continue
            self.stats["touching_subproofs"] += 1
            return self._face(tgt, b, s, "lo" if sign > 0 else "hi", ctx)
        return False


def _make_zero():
    from mpmath import iv

    return iv.make_mpf((fzero, fzero))


def sp_sign(v) -> int:
    """Sign of a raw mpf (−1, 0, 1)."""
    from mpmath import libmp

    return libmp.mpf_sign(v)


def prove_nonnegative(
    expr: sp.Expr,
    spans: Mapping[sp.Symbol, Span],
    conditions: Iterable[Any] = (),
    plan: ProofPlan | None = None,
) -> ProofResult:
    """Prove ``expr >= 0`` for every point of ``spans`` (closed, possibly unbounded; see the module docstring).

    spans: {Symbol: Span} for every free symbol of ``expr`` (others are ignored); conditions: sympy
    relations (``p > q``) restricting the region; plan: bounds (:class:`ProofPlan`). Never returns
    ``proved`` unless every box was certified with outward-rounded interval arithmetic (or an exact sympy
    value / sympy limit at a face, as described in the module docstring).

    When the terms share an exponential factor e^g (Gaussian tails, :func:`proofs.interval.scaling.scale_out`),
    the target divided by e^g is tried first with a quarter of the budget (``scaled_by`` then names g and
    the margin is that of expr·e^{−g}), then the target as given with the rest; the box count is that of the
    proof reported (a failed scaled attempt's is ``stats["scaled_attempt_boxes"]``).
    """
    plan = plan or ProofPlan()
    t0 = time.perf_counter()
    missing = [s.name for s in expr.free_symbols if s not in spans]
    if missing:
        raise ValueError(f"no span for {', '.join(sorted(missing))}")
    expr = sp.sympify(expr)
    scaled = scale_out(expr)
    if scaled is None:
        return _prove_one(expr, spans, conditions, plan, t0)
    first = replace(plan, max_boxes=max(1, plan.max_boxes // 4), seconds=plan.seconds / 4)
    res = _prove_one(scaled[0], spans, conditions, first, t0)
    res.scaled_by = sp.sstr(scaled[1])
    if res.status in ("proved", "violated"):
        return res
    rest = replace(plan, max_boxes=plan.max_boxes - res.boxes, seconds=max(0.0, plan.seconds - res.seconds))
    res2 = _prove_one(expr, spans, conditions, rest, time.perf_counter())
    res2.seconds = time.perf_counter() - t0
    res2.stats["scaled_attempt_boxes"] = res.boxes  # reported apart: where that attempt stopped may depend on time
    return res2


def _prove_one(
    expr: sp.Expr, spans: Mapping[sp.Symbol, Span], conditions: Iterable[Any], plan: ProofPlan, t0: float
) -> ProofResult:
    try:
        prover = _Prover(spans, conditions, plan)
    except ImportError:
        return ProofResult("unsupported", reason="python-flint is not installed (interval backend 'flint')")
    res = ProofResult("proved", backend=prover.points.name, prec=plan.prec)
    with ivprec(plan.prec):
        try:
            main = prover.target(cheap_form(expr), "main", 0, bool(prover.conds))
            box = {s: prover.spans[s] for s in main.syms}
            prover.region(main, box, _Ctx(False, plan.max_boxes))
        except Unsupported as exc:
            res.status, res.reason = "unsupported", str(exc)
        except _Violated as v:
            res.status = "violated"
            res.witness = {s.name: w for s, w in v.box.items()}
            enc = "" if v.enc is None else f" (enclosure {interval_text(v.enc, 4)})"
            res.reason = f"the difference is negative on {bounds_text(res.witness)}{enc}"
        except _Stop as stop:
            res.status, res.reason = "stopped", f"interval proof stopped: {stop}"
            res.exhausted = stop.exhausted
        except RecursionError:
            res.status, res.reason = "stopped", "interval proof stopped: nesting too deep"
    res.boxes, res.depth, res.stats = prover.boxes, prover.depth, prover.stats
    res.margin = prover.margin if res.status == "proved" else None
    res.touching = prover.touching
    res.seconds = time.perf_counter() - t0
    if res.status == "proved" and res.margin is None:  # every box discarded by the conditions
        res.reason = "the conditions exclude the whole domain"
    return res
