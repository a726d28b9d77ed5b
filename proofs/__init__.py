"""Symbolic (sympy) checks of the papers' closed forms, one module per paper.

Importing a module of this package registers its ``symbolic`` checks in the built-in catalogue;
importing the package itself registers nothing and imports nothing (so ``proofs.formula``, or one
paper's module, loads without the others: ``privcheck verify gdp.conversion`` imports only
:mod:`proofs.gdp`). :data:`MODULES` lists them for :func:`privcheck.catalogue.load_all`:

- :mod:`proofs.formula` — the engine (derived vs printed, proofs, exact counterexamples)
  and the user API :func:`proofs.formula.formula_claim`;
- :mod:`proofs.fedsel` (000), :mod:`proofs.sqsgd` (001), :mod:`proofs.gdp` (002, Dong–Roth–Su
  GDP results and Lemma 4), :mod:`proofs.biswas` (003), :mod:`proofs.seif` (004).
"""

#: the modules registering the built-in symbolic checks, in registration order
MODULES = ("proofs.fedsel", "proofs.sqsgd", "proofs.gdp", "proofs.biswas", "proofs.seif")
