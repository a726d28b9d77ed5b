"""Symbolic (sympy) checks of the papers' closed forms, one module per paper.

Importing the package registers each module's ``symbolic`` checks in the
built-in catalogue:

- :mod:`proofs.formula` — the engine (derived vs printed, proofs, exact counterexamples)
  and the user API :func:`proofs.formula.formula_claim`;
- :mod:`proofs.fedsel` (000), :mod:`proofs.sqsgd` (001), :mod:`proofs.gdp` (002, Dong–Roth–Su
  GDP results and Lemma 4), :mod:`proofs.biswas` (003), :mod:`proofs.seif` (004).
"""
from proofs import fedsel  # noqa: F401
from proofs import sqsgd  # noqa: F401
from proofs import gdp  # noqa: F401
from proofs import biswas  # noqa: F401
from proofs import seif  # noqa: F401
