"""The numeric routes of a formula claim, after sympy: an interval proof and a counterexample search.

:func:`settle` is called by :func:`proofs.formula.compare` when the symbolic route did not prove the claim:

1. **interval proof** (relations ``<=``/``>=``, and ``=`` with a stated tolerance): the difference that
   must be >= 0 (``printed − derived`` for ``<=``, ``derived − printed`` for ``>=``, ``tol ∓ (derived −
   printed)`` for ``=``) is proved >= 0 on the declared domains by :func:`proofs.interval.prove_nonnegative`
   — ``holds (interval proof, N boxes, margin ≥ m)`` — first with a small budget;
2. **counterexample search** (:func:`proofs.counterexample.search_counterexample`): hypothesis, shrinking,
   exact confirmation — ``refuted`` with the point; a box where the prover found the difference certainly
   negative is tried first;
3. the interval proof again with its full budget, if the small one ran out;
4. otherwise ``inconclusive`` with the reasons of both routes on one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

import numpy as np
import sympy as sp

from proofs.counterexample import Counterexample, SearchPlan, SearchResult, confirm, search_counterexample
from proofs.interval.box import simplest_in, span_of
from proofs.interval.prover import ProofPlan, ProofResult, prove_nonnegative

__all__ = ["FormulaPlan", "DEFAULT_PLAN", "Settled", "settle", "proof_targets"]


@dataclass(frozen=True)
class FormulaPlan:
    """How hard the numeric routes try: the interval proof's bounds, the search's bounds, and which run.

    The interval proof first runs with a small budget (``quick_boxes``, ``quick_seconds``: most true
    inequalities need a few hundred boxes); when that does not settle it, the counterexample search runs,
    and then the proof again with its full budget (``proof``).
    """

    proof: ProofPlan = field(default_factory=ProofPlan)
    search: SearchPlan = field(default_factory=SearchPlan)
    interval: bool = True
    counterexamples: bool = True
    quick_boxes: int = 300
    quick_seconds: float = 3.0


#: the plan used when a claim gives none
DEFAULT_PLAN = FormulaPlan()


@dataclass
class Settled:
    """The verdict of the numeric routes, which route gave it, and a one-line reason."""

    verdict: str
    route: str
    reason: str
    proofs: list[ProofResult] = field(default_factory=list)
    search: SearchResult | None = None

    @property
    def counterexample(self) -> Counterexample | None:
        """The confirmed counterexample (refuted only)."""
        return None if self.search is None else self.search.found


def proof_targets(derived: sp.Expr, printed: sp.Expr, relation: str, tolerance: sp.Expr | None) -> list[sp.Expr]:
    """The expressions that must be >= 0 for the claim to hold ([] when no interval proof applies)."""
    if relation == ">=":
        return [derived - printed]
    if relation == "<=":
        return [printed - derived]
    if tolerance is None:
        return []
    return [tolerance - (derived - printed), tolerance + (derived - printed)]


def _proof_summary(proofs: list[ProofResult], tolerance: sp.Expr | None) -> str:
    if len(proofs) == 1:
        return proofs[0].summary()
    boxes = sum(p.boxes for p in proofs)
    return f"interval proof, {boxes:,} boxes, |derived - printed| <= {sp.sstr(tolerance)}"


def _witness(pr: ProofResult, domains: Mapping[sp.Symbol, Any], conditions: list) -> dict | None:
    """The simplest rational point of the box the prover found violated, if it lies in the domains."""
    if pr.witness is None:
        return None
    by_name = {s.name: s for s in domains}
    pt = {}
    for name, span in pr.witness.items():
        q = simplest_in(span)
        v = sp.Rational(q.numerator, q.denominator)
        if not domains[by_name[name]].contains(v):
            return None
        pt[by_name[name]] = v
    if conditions and not all(bool(c.xreplace(pt)) for c in conditions):
        return None
    return pt


def settle(
    name: str,
    derived: sp.Expr,
    printed: sp.Expr,
    relation: str,
    domains: Mapping[sp.Symbol, Any],
    *,
    conditions: Iterable[sp.Expr] = (),
    seed: int | np.random.SeedSequence = 0,
    plan: FormulaPlan | None = None,
    tolerance: sp.Expr | None = None,
) -> Settled:
    """Interval proof, then counterexample search, for ``derived relation printed`` (see the module docstring).

    domains: {Symbol: proofs.formula.Domain} of the symbols the two sides use; conditions: sympy
    relations; seed: the check's seed; tolerance: for ``=``, the allowed |derived − printed| (a
    nonnegative number), which also enables the interval proof of ``=``.
    """
    plan = plan or DEFAULT_PLAN
    conds = list(conditions)
    parts: list[str] = []
    proofs: list[ProofResult] = []
    hints: list[dict] = []
    targets = proof_targets(derived, printed, relation, tolerance) if plan.interval else []
    spans = {s: span_of(d) for s, d in domains.items()}
    quick = replace(
        plan.proof,
        max_boxes=min(plan.quick_boxes, plan.proof.max_boxes),
        seconds=min(plan.quick_seconds, plan.proof.seconds),
    )
    full_needed = False
    if targets:
        proofs = _prove_all(targets, spans, conds, quick)
        if all(p.proved for p in proofs):
            return Settled("holds", "interval proof", _proof_summary(proofs, tolerance), proofs)
        last = proofs[-1]
        w = _witness(last, domains, conds)
        if w is not None:
            hints.append(w)
        full_needed = last.exhausted and (quick.max_boxes, quick.seconds) != (plan.proof.max_boxes, plan.proof.seconds)
        if not full_needed:
            parts.append(last.reason if last.status != "violated" else f"interval proof: {last.reason}")
    elif plan.interval and relation == "=":
        parts.append("no interval proof for '=' without a tolerance")
    search = None
    if plan.counterexamples:
        search = search_counterexample(
            name,
            derived,
            printed,
            relation,
            domains,
            conditions=conds,
            seed=seed,
            plan=plan.search,
            tolerance=tolerance,
            hints=hints,
            points_backend=plan.proof.backend,
        )
        if search.found is not None:
            return Settled("refuted", "counterexample search", search.summary(), proofs, search)
    if full_needed:
        proofs = _prove_all(targets, spans, conds, plan.proof)
        if all(p.proved for p in proofs):
            return Settled("holds", "interval proof", _proof_summary(proofs, tolerance), proofs, search)
        last = proofs[-1]
        parts.append(last.reason if last.status != "violated" else f"interval proof: {last.reason}")
        w = _witness(last, domains, conds)
        if w is not None and search is not None:
            ce = confirm(derived, printed, relation, w, tolerance, plan.proof.backend)
            if ce is not None:
                search.found = ce
                search.notes.append("a point of the box the interval prover found violated")
                return Settled("refuted", "counterexample search", search.summary(), proofs, search)
    if search is not None:
        parts.append(search.summary())
    return Settled("inconclusive", "", "; ".join(parts), proofs, search)


def _prove_all(targets: list[sp.Expr], spans: dict, conds: list, plan: ProofPlan) -> list[ProofResult]:
    """Prove each target in turn (stopping at the first that is not proved)."""
    out = []
    for t in targets:
        out.append(prove_nonnegative(t, spans, conds, plan))
        if not out[-1].proved:
            break
    return out
