"""True-ε calculators of the zoo: exact ε of a library's *documented* probabilities, via estimators.oracles.

Each returns a float (``inf`` when some output is possible under one input only). They describe the
mechanism the library documents, not its code: a gap between a calculator and a certified Monte Carlo
bound above it is an implementation departing from its documentation (a finding).
"""

from __future__ import annotations

import math

from estimators import oracles
from privcheck.base.exact import precision_for


def grr(eps: float, d: int) -> float:
    """k-RR over ``d`` values with keep probability e^ε/(e^ε+d−1): exact ε."""
    with precision_for(eps):
        return oracles.GeneralisedRandomisedResponse(d=d, eps=eps).exact_epsilon().eps


def unary(p: float, q: float) -> float:
    """Unary encoding with own-bit probability ``p`` and other-bit probability ``q`` (floats as documented)."""
    with precision_for(abs(math.log(p / q)) + 1):
        return oracles.unary_exact(p, q).eps


def sue(eps: float) -> float:
    """SUE (p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p)."""
    with precision_for(eps):
        return oracles.unary_exact(*oracles.unary_probabilities(eps, optimised=False)).eps


def oue(eps: float) -> float:
    """OUE (p = 1/2, q = 1/(e^ε+1))."""
    with precision_for(eps):
        return oracles.unary_exact(*oracles.unary_probabilities(eps, optimised=True)).eps


def local_hashing(eps: float, g: int) -> float:
    """Local hashing into ``g`` values followed by GRR over [g]."""
    with precision_for(eps):
        return oracles.lh_exact(*oracles.lh_probabilities(eps, g)).eps


def subset(eps: float, d: int, k: int) -> float:
    """k-subset selection as a *set* (order not part of the output)."""
    with precision_for(eps):
        return oracles.SubsetSelection(d=d, eps=eps, k=k).exact_epsilon().eps


def attained(eps: float) -> float:
    """Mechanisms whose documented law attains its ε exactly in real arithmetic (Laplace and geometric with
    b = Δ/ε, binary and k-ary randomised response with keep probability e^ε/(e^ε+k−1)): the closed form ε."""
    return float(eps)
