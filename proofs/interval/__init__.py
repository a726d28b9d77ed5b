"""Validated numerics for formula claims: interval arithmetic with outward rounding and a branch-and-bound prover.

- :mod:`proofs.interval.points` — certified values of exp, log, sqrt, erf, erfc at exact points
  (python-flint's arb when installed, else mpmath's directed rounding and a certified erf/erfc);
- :mod:`proofs.interval.arith` — interval operations on ``mpmath.iv`` numbers (:class:`Ops`);
- :mod:`proofs.interval.compile` — sympy expression → interval evaluator (:func:`compile_expr`);
- :mod:`proofs.interval.box` — boxes of exact rational spans and how unbounded ones are split;
- :mod:`proofs.interval.prover` — :func:`prove_nonnegative` (branch and bound, monotonicity, limits,
  touching points) with its :class:`ProofPlan` and :class:`ProofResult`.
"""

from proofs.interval.prover import ProofPlan, ProofResult, prove_nonnegative

__all__ = ["ProofPlan", "ProofResult", "prove_nonnegative"]
