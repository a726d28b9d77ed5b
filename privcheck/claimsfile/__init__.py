"""User claims files: TOML (``privacy``, ``accountant``, ``estimator``, ``sampling``, ``trace``, ``calibrator``,
``scores`` entries) and Python modules.

``privcheck verify --file my_claims.toml`` (or ``.py``) registers the file's
claims next to the built-in catalogue and runs them; each user claim declares
the verdict it expects, and the run exits with code 1 when one is not met
(code 2, with one line naming the file, the entry and the problem, when the
file itself is wrong).

TOML format
-----------
Top-level keys: ``privacy``, ``accountant``, ``estimator``, ``sampling``, ``trace``,
``calibrator``, ``scores`` (arrays of tables, ``[[privacy]]`` …); nothing else. Keys common to every entry:

============  ========  =====================================================
``id``        string    required; letters, digits, ``.``, ``_``, ``-``; unique
``expect``    string    ``"holds"`` (default), ``"refuted"`` or ``"inconclusive"``
``source``    string    optional: where the claim comes from (shown as source)
``statement`` string    optional: the claim in words
============  ========  =====================================================

``[[privacy]]`` — audit a built-in mechanism's ε (:func:`privcheck.auditor.audit`):

==============  ========  ===================================================
``mechanism``   string    required; a name from ``privcheck list`` (``de``, ``pm`` …)
``params``      table     the mechanism's parameters (``{m = 4, eps = 1.0}``)
``eps``         number    claimed ε > 0 (default: the mechanism's nominal ε)
``delta``       number    claimed δ in [0, 1) (default: the mechanism's nominal δ);
                          with ``mu``/``accountant``: the δ at which the certified
                          ε lower end ``eps_lower_at_delta`` is reported
``mu``          number    instead of ``eps``: a μ-GDP claim, μ > 0 (``audit --mu``)
``accountant``  string    instead of ``eps``: the certified trade-off curve of PLD
                or array  events ``"KIND:NAME=VALUE,...[xCOUNT]"`` (an array is
                          composed; ``audit --accountant``, ``budget pld --event``)
``samples``     integer   Monte Carlo draws per input, ≥ 20 (default 100000;
                or string ``--samples`` overrides, ``--quick`` divides by 5), or
                          ``"auto"`` / ``"auto:key=value,..."`` (ε claims only:
                          rounds until certified, as ``audit --samples auto``;
                          ``--quick`` divides its draws budget by 5)
``exact``       bool      compute the exact ε (default: when the mechanism has it;
                          not with ``mu``/``accountant``)
``monte_carlo`` bool      run the Monte Carlo lower bound (default true)
==============  ========  ===================================================

One check per entry: method ``exact`` when the exact ε is computed (the Monte
Carlo bound, if run, is a second opinion in the details), else ``mc``. The
verdict is the audit's: ``refuted`` if the exact ε or a valid lower bound
exceeds the claim; for ``mu``/``accountant`` claims, if an empirical trade-off
box lies below the claimed curve (measured: ``mu_lower``, the certified lower
end of μ, or ``points_below_curve``).

``[[privacy]]`` with ``sampler`` instead of ``mechanism`` — audit user code
(Monte Carlo lower bound, method ``mc``):

===============  ========  ==================================================
``sampler``      string    required: ``"pkg.module:function"`` or
                           ``"file.py:function"`` (searched first in the
                           claims file's directory); ``f(x, n, rng)`` returning
                           ``n`` outputs, or one output per call with ``per_sample``
``inputs``       array     candidate inputs (all ordered pairs are searched);
                           at least two unless ``pairs`` is given
``pairs``        array     neighbouring inputs ``[[a, b], ...]``: only these
                           pairs (both orders) are searched (central DP)
``eps``          number    the claimed ε; or ``mu`` or ``accountant`` as above
                           (one of the three is required)
``delta``        number    claimed δ in [0, 1) (default 0)
``samples``      integer   as above (or ``"auto"``)
``per_sample``   bool      the function returns one output per call,
                           ``fn(x, rng)`` or ``fn(x)`` (:func:`privcheck.per_sample`)
``seed_global``  bool      with ``per_sample``: seed numpy's and random's global
                           generators per chunk (libraries with a global RNG)
``view``         string    ``"pkg.module:function"``: audit ``view(outputs)``
                           (post-processing; :mod:`privcheck.auditor.views`)
===============  ========  ==================================================

``[[accountant]]`` — compare an accountant's answer with a claimed bound:

=============  ========  ====================================================
``query``      string    required; one of :data:`QUERIES` (``gdp.eps``, ``compose.drv`` …)
``params``     table     the query's parameters (numbers ≥ 0 or lists of them)
``bound``      number    required; the claimed value
``relation``   string    ``"<="`` (default: computed ≤ bound), ``">="`` or ``"="``
``rel_tol``    number    relative tolerance of ``"="`` (default 1e-9)
``output``     string    which field of a structured answer (default per query)
``events``     list      ``query = "pld"`` only: ``--event`` specs of the composition
``neighbouring`` string  ``query = "pld"``: ``"add_remove"`` (default) or ``"replace_one"``
``delta``      number    ``query = "pld"``: with ``eps_bound``, claims ε(δ) ≤ eps_bound
``eps_bound``  number    ``query = "pld"``: the claimed ε at ``delta``
``eps``        number    ``query = "pld"``: with ``delta_bound``, claims δ(ε) ≤ delta_bound
``delta_bound`` number   ``query = "pld"``: the claimed δ at ``eps``
``mu_bound``   number    ``query = "pld"``: claims μ-GDP with μ ≤ mu_bound
``alpha_min``  number    ``query = "pld"``: with ``mu_bound``, the smallest α compared
``alpha``      number    ``query = "pld"``: with ``beta_bound``, claims β(α) ≥ beta_bound
``beta_bound`` number    ``query = "pld"``: the claimed type-II error at ``alpha``
``fpr``        number    ``query = "pld"``: with ``tpr_bound``, claims TPR(fpr) ≤ tpr_bound
``tpr_bound``  number    ``query = "pld"``: the claimed attack TPR at ``fpr``
=============  ========  ====================================================

``query = "pld"`` takes no ``params``/``bound``: the claims are decided by
certified intervals from one build (:mod:`privcheck.claimsfile.accountant_pld`).

``[[estimator]]`` — simulate an estimator and test its mean and variance
(:func:`privcheck.estimator_check.check_estimator`, Student-t interval for the
bias, Bonett interval for the variance, Bonferroni over the tests):

====================  ========  =============================================
``estimator``         string    ``"output"`` (a mechanism's output as an estimate
                                of its input) or a 003 frequency estimator:
                                ``"c_de"``, ``"g_de"``, ``"c_hat"``, ``"T"``
``mechanism``         string    for ``"output"``: a scalar mechanism (``pm``, ``duchi``,
                                ``hm``, ``laplace``, ``gaussian``)
``params``            table     for ``"output"``: the mechanism's parameters
``scenario``          table     ``"output"``: ``{x = 0.5}`` (the input);
                                frequency: ``{n, n_i, pi, eps, m}`` (n nodes, n_i
                                hold the value, sampling probability π, direct
                                encoding with ε over a domain of size m)
``claimed_mean``      number    default: the true value (x, or n_i): unbiasedness
``claimed_variance``  number    optional claimed variance > 0
``tolerance``         number    optional TOST margin > 0: ``holds`` then needs the
                                bias shown within ±tolerance
``var_rel_tol``       number    relative margin of "variance equals the claim" (0.1)
``replicates``        integer   simulated replicates ≥ 10 (default 20000)
====================  ========  =============================================

``[[sampling]]`` — test a pipeline's batches against the sampling scheme its
accountant assumes (:func:`privcheck.check_sampling`; exact tests, Holm over the
tests tried; method ``exact``):

=============  ========  ====================================================
``file``       string    saved batches (``.json``, ``.txt``, ``.npy``, ``.npz``;
                         relative to the claims file), or
``batches``    string    ``"pkg.module:function"`` returning batches, a data
                         loader or a batch sampler (exactly one of the two)
``n``          integer   required; number of records (indices in [0, n))
``q``          number    declared rate in (0, 1] (default: estimated, not tested)
``scheme``     string    ``"poisson"`` (default), ``"fixed"`` or ``"shuffle"``
``epochs``     integer   passes over a re-iterable loader (default 1)
=============  ========  ====================================================

``[[trace]]`` — a gray-box trace of user code on neighbouring inputs (:func:`privcheck.trace`;
method ``numeric``: coupled runs, no statistics):

===============  ========  ==================================================
``function``     string    required: ``"pkg.module:function"`` or ``"file.py:function"``,
                           ``fn(x, rng)`` or ``fn(x)`` returning the noisy release
``pairs``        array     neighbouring inputs ``[[a, b], ...]``
``inputs``       array     candidate inputs (every ordered pair is traced)
``neighbours``   string    ``"pkg.module:function"`` returning a hypothesis strategy
                           of pairs (:mod:`privcheck.strategies`), searched
``sensitivity``  number    declared sensitivity > 0 (omit: invariance only)
``norm``         string    ``"l1"``, ``"l2"`` (default) or ``"linf"``
``runs``         integer   coupled runs per pair (default 10; ``--quick``: 3)
``seed``         integer   the trace's seed (default: from the run's seed)
``rng_type``     string    ``"generator"`` (default), ``"random_state"``, ``"global"``
``nonfinite``    bool      trace NaN/±inf neighbours (default true)
``examples``     integer   search examples with ``neighbours`` (default 100)
===============  ========  ==================================================

``[[calibrator]]`` — a noise calibrator ``fn(eps=, delta=, sensitivity=) -> scale``
against the exact curve of its mechanism (:func:`privcheck.audit_calibrator`; method ``numeric``):

===============  ========  ==================================================
``function``     string    required: the calibrator, ``"pkg.module:function"``
``mechanism``    string    ``"gaussian"`` (default), ``"laplace"``,
                           ``"discrete-laplace"``, ``"discrete-gaussian"``
``eps``          array     claimed ε values > 0 (default 0.01 … 50)
``delta``        array     claimed δ values in [0, 1) (default 1e-3 … 1e-12;
                           0 for the pure mechanisms)
``sensitivity``  number    Δ > 0 (default 1; an integer for discrete mechanisms)
===============  ========  ==================================================

``[[scores]]`` — certified bounds from canary score files
(:func:`privcheck.canaries.audit_scores`, method ``numeric``: the scores are data, the audit is
deterministic):

===============  ========  ==================================================
``scores_in``    string    required; scores of the canaries included (``.npy``,
                           ``.csv`` or ``.txt``, one per line; relative paths
                           from the claims file's directory)
``scores_out``   string    required; scores of the canaries left out
``eps``          number    the claim: ε (with ``delta``) …
``mu``           number    … or μ of a μ-GDP claim (one of the two is required)
``delta``        number    δ of ε and of ``eps_lower`` (default 0)
``method``       string    ``auto`` (default, = ``one-run-fdp``), ``cp``, ``gdp``,
                           ``one-run``, ``one-run-fdp``
``confidence``   number    of the bounds (default 0.95)
``thresholds``   string    ``"bonferroni"`` (default), ``"split"``, ``"split:F"``
                           or a number (a fixed threshold)
``sides``        string    ``"both"`` (default) or ``"forward"``
===============  ========  ==================================================

Python format
-------------
A ``.py`` file is executed (:func:`runpy.run_path`); the claims it registers in
:data:`privcheck.claims.CATALOGUE` are the file's claims: calls of
``proofs.formula.formula_claim(..., expect="holds")``, or a
``CATALOGUE.add_claim(Claim(...))`` followed by ``@privcheck.check(id, method)``
functions (a :class:`~privcheck.claims.Check` added directly may carry ``expect``).
"""

from __future__ import annotations

from privcheck.claimsfile.accountant import query_names
from privcheck.claimsfile.loader import load_user_file, unload_user_file

__all__ = ["load_user_file", "unload_user_file", "query_names"]
