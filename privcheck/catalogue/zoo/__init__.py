"""The zoo: third-party DP libraries audited black-box, as catalogue claims ``zoo.<library>.<mechanism>``.

One module per library (:mod:`.pure_ldp`, :mod:`.multi_freq_ldpy`, :mod:`.diffprivlib`, :mod:`.opendp`,
:mod:`.pydp`) declares :class:`Entry` objects: the library's documented guarantee (ε, or (ε, δ), under its
own neighbouring relation), an adapter turning its one-output call into a sampler (through
:func:`privcheck.per_sample`, no hand-written view: the auditor picks views by output type,
:mod:`privcheck.auditor.autoviews`), a parameter grid (ε ∈ :data:`EPS_GRID`, natural domain sizes,
an input just outside the documented domain) and, where the documented probabilities allow, a
*true-ε calculator* (labelled as such; it reuses :mod:`estimators.oracles`).

Each case is audited with the one auditor (:func:`privcheck.audit`); the cases of a claim share the
check's confidence (Bonferroni). Sizes (:func:`case_samples`): the full run is adaptive per case
(``samples=Auto(...)``, :mod:`privcheck.auditor.adaptive`), targeting :data:`TARGET_OF_TRUE` of the *true*
ε — the calculator's, expressed as the fraction of the claimed ε that ``Auto`` takes; the claimed ε where
there is no calculator — within a per-case budget (:data:`CASE_MAX_DRAWS`, :data:`CASE_MAX_SECONDS`;
the environment variable :data:`BUDGET_ENV` overrides them, e.g. ``seconds=900,draws=2e7``);
(ε, δ) cases, ``--quick`` and ``--samples N`` use fixed sizes. Every row reads "claimed / true /
certified": ``eps_claimed``, ``eps_true`` (with ``calculator``), ``eps_lower``, ``certified`` (=
eps_lower / eps_claimed) and ``certified_of_true`` (= eps_lower / eps_true, basis in
``certified_basis``), with a one-line ``power`` statement when a case stays below the target, plus
the library version, adapter, worst pair, event, seconds, draws/s of the audit and the library's
own call rate, and whether the library honours numpy seeding (``reproducible``).

Robustness: a missing library gives an ``inconclusive`` record with the install hint; a case whose
mechanism raises, refuses an input (outside the domain: that is a correct answer), produces an output
type the auditor cannot code, or runs past :data:`CASE_TIMEOUT` seconds gives one line in its row,
and the rest of the claim (and of the zoo) runs.

The zoo is *not* part of the default catalogue run (``privcheck verify`` without patterns): it needs
the optional libraries and minutes of per-sample library calls; run it with ``privcheck verify 'zoo.*'``.
"""

from __future__ import annotations

from privcheck.catalogue.zoo.engine import *  # noqa: F403 - the engine's public names, as before
from privcheck.catalogue.zoo.engine import __all__ as _engine_names

# the library modules: importing each registers its entries, in this order (the order of the claims)
from privcheck.catalogue.zoo import pure_ldp  # noqa: E402,F401,I001  isort: skip
from privcheck.catalogue.zoo import multi_freq_ldpy  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import diffprivlib  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import opendp  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import pydp  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import flwr  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import flwr_rounds  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import opacus  # noqa: E402,F401  isort: skip

# gray-box entries (privcheck.trace, privcheck.audit_calibrator): zoo.<library>.trace.* / .calibrator.*
from privcheck.catalogue.zoo import trace_diffprivlib  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import trace_pure_ldp  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import trace_multi_freq_ldpy  # noqa: E402,F401  isort: skip
from privcheck.catalogue.zoo import trace_flwr  # noqa: E402,F401  isort: skip

__all__ = list(_engine_names)
