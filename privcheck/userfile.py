"""User claim files: TOML (``privacy``, ``accountant``, ``estimator`` entries) and Python modules.

``privcheck verify --file my_claims.toml`` (or ``.py``) registers the file's
claims next to the built-in catalogue and runs them; each user claim declares
the verdict it expects, and the run exits with code 1 when one is not met
(code 2, with one line naming the file, the entry and the problem, when the
file itself is wrong).

TOML format
-----------
Top-level keys: ``privacy``, ``accountant``, ``estimator`` (arrays of tables,
``[[privacy]]`` …); nothing else. Keys common to every entry:

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
``delta``       number    claimed δ in [0, 1) (default: the mechanism's nominal δ)
``samples``     integer   Monte Carlo draws per input, ≥ 20 (default 100000;
                          ``--samples`` overrides, ``--quick`` divides by 5)
``exact``       bool      compute the exact ε (default: when the mechanism has it)
``monte_carlo`` bool      run the Monte Carlo lower bound (default true)
==============  ========  ===================================================

One check per entry: method ``exact`` when the exact ε is computed (the Monte
Carlo bound, if run, is a second opinion in the details), else ``mc``. The
verdict is the audit's: ``refuted`` if the exact ε or a valid lower bound
exceeds the claim.

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
``eps``          number    required: claimed ε
``delta``        number    claimed δ in [0, 1) (default 0)
``samples``      integer   as above
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
=============  ========  ====================================================

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

Python format
-------------
A ``.py`` file is executed (:func:`runpy.run_path`); the claims it registers in
:data:`privcheck.claims.CATALOGUE` are the file's claims: calls of
``proofs.formula.formula_claim(..., expect="holds")``, or a
``CATALOGUE.add_claim(Claim(...))`` followed by ``@privcheck.check(id, method)``
functions (a :class:`~privcheck.claims.Check` added directly may carry ``expect``).
"""

from __future__ import annotations

import inspect
import math
import os
import re
import runpy
from dataclasses import dataclass, field
from typing import Any, Callable

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import CATALOGUE, Check, Claim, Outcome, RunContext

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

EXPECTS = ("holds", "refuted", "inconclusive")
TABLES = ("privacy", "accountant", "estimator")
RELATIONS = ("<=", ">=", "=")
DEFAULT_SAMPLES = 100_000
DEFAULT_REPLICATES = 20_000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_COMMON = {"id": str, "expect": str, "source": str, "statement": str}
_KEYS: dict[str, dict[str, Any]] = {
    "privacy": {
        **_COMMON,
        "mechanism": str,
        "params": dict,
        "eps": float,
        "delta": float,
        "samples": int,
        "exact": bool,
        "monte_carlo": bool,
        "sampler": str,
        "inputs": list,
        "pairs": list,
        "per_sample": bool,
        "seed_global": bool,
        "view": str,
    },
    "accountant": {
        **_COMMON,
        "query": str,
        "params": dict,
        "bound": float,
        "relation": str,
        "rel_tol": float,
        "output": str,
    },
    "estimator": {
        **_COMMON,
        "estimator": str,
        "mechanism": str,
        "params": dict,
        "scenario": dict,
        "claimed_mean": float,
        "claimed_variance": float,
        "tolerance": float,
        "var_rel_tol": float,
        "replicates": int,
    },
}
_REQUIRED = {"privacy": ("id",), "accountant": ("id", "query", "bound"), "estimator": ("id", "estimator", "scenario")}

_LOADED: dict[str, list[str]] = {}


# --------------------------------------------------------------------------- accountant queries
@dataclass(frozen=True)
class Query:
    """An accountant query of the TOML format: the function, the default output field, and cost.

    where: ``"module:function"`` of :mod:`accountants`, called with the entry's params as
    keywords (imported on first use: the wireless and planner modules import scipy.stats and
    scipy.optimize, which a file without such queries does not need); output: the attribute
    of a structured answer compared with the bound (None for a plain number); cheap: evaluated once at load time to
    report bad parameters as usage errors.
    """

    where: str
    output: str | None
    doc: str
    cheap: bool = True

    @property
    def fn(self) -> Callable[..., Any]:
        """The accountant function (its module imported now)."""
        import importlib

        module, _, attr = self.where.partition(":")
        return getattr(importlib.import_module(module), attr)


def _queries() -> dict[str, Query]:
    gdp, co, am, wl, pl = ("accountants." + m for m in ("gdp", "composition", "amplification", "wireless", "planners"))
    return {
        "gdp.delta": Query(f"{gdp}:gdp_delta", None, "δ(ε) of μ-GDP; params mu, eps"),
        "gdp.eps": Query(f"{gdp}:gdp_eps", None, "ε at δ of μ-GDP; params mu, delta"),
        "gdp.mu": Query(f"{gdp}:gdp_mu", None, "largest μ giving (ε, δ); params eps, delta"),
        "gdp.compose": Query(f"{gdp}:compose_gdp", None, "μ of a composition; params mus, steps"),
        "gdp.budget": Query(
            f"{gdp}:gdp_budget",
            "eps",
            "composed GDP budget; params mus, steps, eps or delta; output eps (default), delta or mu",
        ),
        "gaussian.sigma": Query(
            f"{gdp}:gaussian_sigma", None, "Gaussian σ for μ or (ε, δ); params sensitivity, mu | eps, delta"
        ),
        "compose.basic": Query(f"{co}:basic_composition", "eps", "basic composition; params eps, delta, steps"),
        "compose.drv": Query(
            f"{co}:drv_composition", "eps", "DRV advanced composition; params eps, steps, delta_tilde, delta"
        ),
        "compose.kov": Query(f"{co}:kov_composition", "eps", "KOV closed form; params eps, delta_tilde, delta, steps"),
        "compose.optimal": Query(
            f"{co}:optimal_composition", "eps", "exact optimal composition; params eps, steps, delta_total, delta"
        ),
        "amplify.poisson": Query(f"{am}:poisson_amplification", "eps", "Poisson subsampling; params eps, delta, q"),
        "amplify.subsampled_gaussian": Query(
            f"{am}:subsampled_gaussian",
            "eps_rdp",
            "subsampled Gaussian (autodp RDP); params sigma, q, steps, delta",
            cheap=False,
        ),
        "wireless.c": Query(
            f"{wl}:wireless_c", None, "004 c = (2L/σ_min)√(2 log(1.25/δ_ℓ)); params L, sigma_min, delta_l"
        ),
        "wireless.lemma1": Query(f"{wl}:lemma1_eps", None, "004 eq. 16 ε_c; params K, c, delta_prime"),
        "wireless.central_uniform": Query(
            f"{wl}:central_uniform", "eps", "004 eq. 14 (ε_c, δ_c); params K, p, c, delta_prime, delta_l"
        ),
        "plan.noise": Query(
            f"{pl}:noise_for_budget",
            "answer",
            "smallest σ for (ε, δ) over steps; params eps, delta, steps, sensitivity, q",
            cheap=False,
        ),
        "plan.max_steps": Query(
            f"{pl}:max_steps",
            "answer",
            "largest T within (ε, δ); params eps, delta, sigma, sensitivity, q",
            cheap=False,
        ),
    }


def query_names() -> list[str]:
    """The accountant query names accepted in ``[[accountant]]`` entries."""
    return sorted(_queries())


# --------------------------------------------------------------------------- public API
def load_user_file(path: str, *, distributed: bool = False) -> list[str]:
    """Register the claims of a user file (``.toml`` or ``.py``) and return their ids, in file order.

    Loading the same file twice returns the same ids without registering again. distributed: the
    run samples on a Dask cluster (TOML entries' sample sizes are then capped at
    :data:`~privcheck.base.resources.MAX_SAMPLES`, else at :data:`~privcheck.base.resources.MAX_SAMPLES_LOCAL`);
    oversize entries are refused at load from their size estimate.
    Raises :class:`PrivcheckUsageError` (one line naming the file, the entry
    and the problem) for a missing file, malformed TOML, unknown keys or
    names, wrong types, NaN or out-of-range values, or a file that registers
    no claim.
    """
    from privcheck.claim_index import load_claims

    load_claims()  # the built-in claims (ids a file must not redefine); their checks load on selection
    if not isinstance(path, (str, os.PathLike)):
        raise PrivcheckUsageError(f"claims file must be a path, got {path!r}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise PrivcheckUsageError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise PrivcheckUsageError(f"{path}: not a file")
    key = os.path.realpath(path)
    if key in _LOADED:
        return list(_LOADED[key])
    ext = os.path.splitext(path)[1].lower()
    if ext == ".toml":
        ids = _load_toml(path, distributed)
    elif ext == ".py":
        ids = _load_python(path)
    else:
        raise PrivcheckUsageError(f"{path}: claims files must end in .toml or .py")
    if not ids:
        raise PrivcheckUsageError(f"{path}: the file registers no claim")
    _LOADED[key] = ids
    return list(ids)


def unload_user_file(path: str) -> None:
    """Remove the claims (and checks) a loaded user file registered (tests, long-lived processes)."""
    key = os.path.realpath(os.fspath(path))
    for cid in _LOADED.pop(key, []):
        CATALOGUE.claims.pop(cid, None)
        CATALOGUE.checks.pop(cid, None)


# --------------------------------------------------------------------------- Python files
def _load_python(path: str) -> list[str]:
    from privcheck.auditor.user_code import interrupt_is_real
    from privcheck.claim_index import builtin_modules, recording

    try:
        with recording() as records:
            runpy.run_path(path, run_name="privcheck_user_claims")
    except PrivcheckUsageError as exc:
        raise PrivcheckUsageError(f"{path}: {_one_line(exc)}") from None
    except SyntaxError as exc:
        raise PrivcheckUsageError(f"{path}:{exc.lineno}: SyntaxError: {exc.msg}") from None
    except SystemExit as exc:
        raise PrivcheckUsageError(f"{path}: the file called exit({exc.code})") from None
    except KeyboardInterrupt:
        if interrupt_is_real():
            raise
        raise PrivcheckUsageError(f"{path}: the file raised KeyboardInterrupt while loading") from None
    except Exception as exc:  # a user file that fails to import is bad input, reported in one line
        raise PrivcheckUsageError(f"{path}: {type(exc).__name__}: {_one_line(exc)}") from None
    # the user's claims: those the file (or its own modules) registered a claim or check for; built-in
    # modules the file imports register theirs too, told apart by the module that registered them
    builtin = builtin_modules()
    ids = list(dict.fromkeys(cid for mod, cid, reg in records if reg is CATALOGUE and mod not in builtin))
    for cid in ids:
        if not CATALOGUE.checks.get(cid):
            raise PrivcheckUsageError(f"{path}: claim {cid!r} has no check (use formula_claim or @check)")
    return ids


def _one_line(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(text.split()) or type(exc).__name__


# --------------------------------------------------------------------------- TOML files
def _load_toml(path: str, distributed: bool = False) -> list[str]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise PrivcheckUsageError(f"{path}: malformed TOML: {_one_line(exc)}") from None
    except OSError as exc:
        raise PrivcheckUsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    for key in data:
        if key not in TABLES:
            raise PrivcheckUsageError(
                f"{path}: unknown top-level key {key!r}; allowed: {', '.join(f'[[{t}]]' for t in TABLES)}"
            )
    paper = os.path.basename(path).replace(" ", "_")
    specs: list[tuple[Claim, Check]] = []
    seen: set[str] = set()
    for table in TABLES:
        entries = data.get(table, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise PrivcheckUsageError(f"{path}: {table!r} must be an array of tables, written [[{table}]]")
        for i, raw in enumerate(entries, start=1):
            ent = _Entry(path, table, i, raw, distributed=distributed)
            ent.validate_keys()
            cid = ent.id
            if cid in seen:
                ent.fail(f"id {cid!r} is used twice in this file")
            seen.add(cid)
            if cid in CATALOGUE.claims:
                ent.fail(f"id {cid!r} is already a claim of the catalogue; choose another id")
            builder = {"privacy": _privacy, "accountant": _accountant, "estimator": _estimator}[table]
            specs.append(builder(ent, paper))
    for claim, chk in specs:  # register only when the whole file is valid
        CATALOGUE.add_claim(claim)
        CATALOGUE.add_check(chk)
    return [c.id for c, _ in specs]


@dataclass
class _Entry:
    """One TOML entry under validation; :meth:`fail` raises the one-line usage error."""

    path: str
    table: str
    index: int
    raw: dict
    id: str = ""
    expect: str = "holds"
    values: dict = field(default_factory=dict)
    distributed: bool = False  # the run samples on Dask (larger sample cap)

    def where(self) -> str:
        label = f"[[{self.table}]] #{self.index}"
        rid = self.raw.get("id")
        return f"{label} (id {rid!r})" if isinstance(rid, str) else label

    def fail(self, problem: str) -> None:
        raise PrivcheckUsageError(f"{self.path}: {self.where()}: {problem}")

    def validate_keys(self) -> None:
        allowed = _KEYS[self.table]
        for key, val in self.raw.items():
            if key not in allowed:
                self.fail(f"unknown key {key!r}; allowed: {', '.join(allowed)}")
            self.values[key] = self._typed(key, val, allowed[key])
        for key in _REQUIRED[self.table]:
            if key not in self.raw:
                self.fail(f"missing required key {key!r}")
        self.id = self.values["id"]
        if not _ID.match(self.id):
            self.fail(f"id must contain only letters, digits, '.', '_' and '-', got {self.id!r}")
        self.expect = self.values.get("expect", "holds")
        if self.expect not in EXPECTS:
            self.fail(f"expect must be one of {', '.join(EXPECTS)}, got {self.expect!r}")

    def _typed(self, key: str, val: Any, typ: type) -> Any:
        if typ is float:
            if isinstance(val, bool) or not isinstance(val, (int, float)):
                self.fail(f"{key} must be a number, got {val!r}")
            if not math.isfinite(val):
                self.fail(f"{key} must be a finite number, got {val!r}")
            return float(val)
        if typ is int:
            if isinstance(val, bool) or not isinstance(val, int):
                self.fail(f"{key} must be an integer, got {val!r}")
            return val
        if typ is dict:
            if not isinstance(val, dict):
                self.fail(f"{key} must be a table such as {{name = value}}, got {val!r}")
            return {k: self._param(f"{key}.{k}", v) for k, v in val.items()}
        if not isinstance(val, typ):
            self.fail(f"{key} must be a {typ.__name__}, got {val!r}")
        return val

    def _param(self, name: str, val: Any) -> Any:
        """A parameter value: a finite number, a word, a bool, or a list of finite numbers."""
        if isinstance(val, float) and not math.isfinite(val):
            self.fail(f"{name} must be a finite number, got {val!r}")
        if isinstance(val, list):
            for v in val:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    self.fail(f"{name} must be a list of finite numbers, got {val!r}")
        elif isinstance(val, dict):
            self.fail(f"{name} must be a number, a word or a list of numbers, not a table")
        return val

    def claim(self, paper: str, kind: str, method: str, statement: str) -> Claim:
        where = self.values.get("source", f"{self.table} #{self.index}")
        return Claim(self.id, paper, where, kind, self.values.get("statement", statement), (method,))

    def guard(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` and turn a usage/value/type error into this entry's one-line usage error."""
        from privcheck.auditor.user_code import UserCodeError

        try:
            return fn()
        except UserCodeError as exc:  # the user's code exited, crashed or misbehaved while probed
            raise UserCodeError(
                f"{self.path}: {self.where()}: {exc}", exc.function, exc.kind, exc.user_traceback, exc.cause
            ) from None
        except (PrivcheckUsageError, ValueError, TypeError, KeyError) as exc:
            self.fail(_one_line(exc))


def _seed(ctx: RunContext) -> int:
    return int(ctx.seed_seq.generate_state(1)[0])


# ---- [[privacy]]
_USER_ONLY = ("sampler", "inputs", "pairs", "per_sample", "seed_global", "view")
_BUILTIN_ONLY = ("mechanism", "params", "exact")


def _size_check(
    mech: Any,
    samples: int,
    monte_carlo: bool = True,
    width: int | None = None,
    n_inputs: int | None = None,
    distributed: bool = False,
) -> None:
    """Refuse at load (one line) an entry whose audit cannot be sampled or cannot fit the memory limit.

    mech: the built-in mechanism (or a stand-in with ``output_kind``/``params``); samples: the entry's
    draws per input; width: values per output when a probe showed it; n_inputs: the audited inputs
    when known; distributed: sampled on Dask (:func:`~privcheck.base.resources.check_samples`). The limit is
    the run's (``--max-memory`` / ``PRIVCHECK_MAX_MEMORY`` / default).
    """
    from privcheck.auditor.sizing import check_audit_request
    from privcheck.base.resources import check_samples

    if monte_carlo:
        check_samples(samples, "samples", distributed=distributed)
    check_audit_request(mech, samples, monte_carlo=monte_carlo, width=width, n_inputs=n_inputs, distributed=distributed)


def _privacy(ent: _Entry, paper: str) -> tuple[Claim, Check]:
    from estimators.registry import mechanism
    from privcheck.auditor import audit
    from privcheck.base.validation import check_eps, check_int, check_probability

    v = ent.values
    if ("mechanism" in v) == ("sampler" in v):
        ent.fail('give exactly one of mechanism = NAME (built-in) or sampler = "pkg.module:function" (user code)')
    if "sampler" in v:
        return _privacy_user(ent, paper)
    for k in _USER_ONLY:
        if k in v:
            ent.fail(f"{k} is for user code (sampler = ...), not for a built-in mechanism")
    name, params = v["mechanism"], v.get("params", {})
    mech = ent.guard(lambda: mechanism(name, **params))
    eps = ent.guard(lambda: check_eps(v["eps"])) if "eps" in v else mech.eps_nominal
    delta = ent.guard(lambda: check_probability("delta", v["delta"], open_high=True)) if "delta" in v else None
    samples = ent.guard(lambda: check_int("samples", v.get("samples", DEFAULT_SAMPLES), minimum=20))
    mc = v.get("monte_carlo", True)
    has_exact = mech.exact_epsilon() is not None
    exact = v.get("exact")
    if exact and not has_exact:
        ent.fail(f"mechanism {name!r} has no exact output distribution; set exact = false")
    use_exact = has_exact if exact is None else exact
    if not use_exact and not mc:
        ent.fail("nothing to run: exact = false and monte_carlo = false")
    method = "exact" if use_exact else "mc"
    ent.guard(lambda: _size_check(mech, samples, mc, distributed=ent.distributed))

    def run(ctx: RunContext) -> Outcome:
        n = ctx.n(samples, quick=max(20, samples // 5))
        m = mechanism(name, **params)
        res = audit(
            m,
            eps=eps,
            delta=delta,
            samples=n,
            seed=_seed(ctx),
            confidence=ctx.confidence,
            exact=use_exact,
            monte_carlo=mc,
            jobs=ctx.jobs,
        )
        rec = res.to_dict()
        details = {
            k: rec[k]
            for k in (
                "eps_exact",
                "eps_exact_text",
                "eps_lower",
                "eps_max_certifiable",
                "verdict_exact",
                "verdict_mc",
                "worst_pair",
                "event",
                "delta_exact",
                "delta_lower",
                "reproducible",
            )
        }
        details.update({k: val for k, val in rec["details"].items() if k != "candidates"})
        details.update(mechanism=name, params=params, confidence=ctx.confidence)
        if res.eps_lower is not None and not res.delta_claimed:
            details["interval"] = [res.eps_lower, math.inf]
        claimed: Any = (
            res.eps_claimed if not res.delta_claimed else {"eps": res.eps_claimed, "delta": res.delta_claimed}
        )
        measured: Any = res.eps_exact if res.eps_exact is not None else res.eps_lower
        if res.delta_claimed:
            measured = {"delta_exact": res.delta_exact, "delta_lower": res.delta_lower}
        return Outcome(res.verdict, claimed=claimed, measured=measured, details=details, samples=n if mc else None)

    stmt = f"{name}({', '.join(f'{k}={val}' for k, val in params.items())}) is ε={eps:g}-LDP"
    return ent.claim(paper, "privacy", method, stmt), Check(ent.id, method, run, expect=ent.expect)


def _privacy_user(ent: _Entry, paper: str) -> tuple[Claim, Check]:
    """A ``[[privacy]]`` entry auditing user code (``sampler = "pkg.module:function"``)."""
    from privcheck.auditor import audit
    from privcheck.auditor.core import resolve_pairs
    from privcheck.auditor.per_sample import per_sample
    from privcheck.auditor.user_code import guard_user_code, load_reference, probe_sampler
    from privcheck.base.validation import check_eps, check_int, check_probability

    v = ent.values
    for k in _BUILTIN_ONLY:
        if k in v:
            ent.fail(f"{k} is for built-in mechanisms (mechanism = ...), not for user code")
    if "eps" not in v:
        ent.fail("missing required key 'eps' (the claimed ε) for user code")
    eps = ent.guard(lambda: check_eps(v["eps"]))
    delta = ent.guard(lambda: check_probability("delta", v.get("delta", 0.0), open_high=True))
    samples = ent.guard(lambda: check_int("samples", v.get("samples", DEFAULT_SAMPLES), minimum=20))
    if not v.get("monte_carlo", True):
        ent.fail("monte_carlo = false leaves nothing to run for user code")
    inputs = v.get("inputs")
    pairs = v.get("pairs")
    if pairs is not None:
        for pr in pairs:
            if not isinstance(pr, list) or len(pr) != 2:
                ent.fail(f"pairs must be an array of two-element arrays [[a, b], ...], got {pr!r}")
        pairs = [tuple(pr) for pr in pairs]
    if inputs is None and not pairs:
        ent.fail("user code needs inputs = [x0, x1, ...] (at least two) or pairs = [[a, b], ...]")
    if inputs is not None and len(inputs) < 2:
        ent.fail(f"inputs needs at least two candidate inputs, got {inputs!r}")
    if inputs is not None and pairs:
        ent.guard(lambda: resolve_pairs(list(inputs), pairs, None))
    if v.get("seed_global") and not v.get("per_sample"):
        ent.fail("seed_global = true needs per_sample = true")
    base = os.path.dirname(os.path.abspath(ent.path))
    ref = v["sampler"]
    fn = ent.guard(lambda: load_reference(ref, base))
    view = ent.guard(lambda: load_reference(v["view"], base, what="view")) if "view" in v else None
    sampler = per_sample(fn, seed_global=v.get("seed_global", False)) if v.get("per_sample") else fn
    probes = list(inputs) if inputs is not None else [x for pr in pairs for x in pr]
    width = ent.guard(lambda: probe_sampler(sampler, probes, ref, view, bool(v.get("per_sample"))))
    ent.guard(lambda: _size_check(fn, samples, width=width, n_inputs=len(probes), distributed=ent.distributed))
    sampler = guard_user_code(sampler, ref)  # its failures in the check are reported naming ref

    def run(ctx: RunContext) -> Outcome:
        n = ctx.n(samples, quick=max(20, samples // 5))
        res = audit(
            sampler,
            inputs=inputs,
            eps=eps,
            delta=delta,
            samples=n,
            seed=_seed(ctx),
            confidence=ctx.confidence,
            jobs=ctx.jobs,
            pairs=pairs,
            view=view,
        )
        rec = res.to_dict()
        details = {
            k: rec[k]
            for k in (
                "eps_lower",
                "eps_max_certifiable",
                "verdict_mc",
                "worst_pair",
                "event",
                "delta_lower",
                "reproducible",
            )
        }
        details.update({k: val for k, val in rec["details"].items() if k != "candidates"})
        details.update(sampler=ref, per_sample=bool(v.get("per_sample")), view=v.get("view"), confidence=ctx.confidence)
        if res.eps_lower is not None and not res.delta_claimed:
            details["interval"] = [res.eps_lower, math.inf]
        claimed: Any = eps if not delta else {"eps": eps, "delta": delta}
        measured: Any = res.eps_lower if not delta else {"delta_lower": res.delta_lower}
        return Outcome(res.verdict, claimed=claimed, measured=measured, details=details, samples=n)

    stmt = (
        f"{ref} is ε={eps:g}-DP"
        + (f" (δ={delta:g})" if delta else "")
        + (" on the given neighbouring pairs" if pairs else "")
    )
    run.user_code = ref  # named by the runner if the check's process dies or times out
    return ent.claim(paper, "privacy", "mc", stmt), Check(ent.id, "mc", run, expect=ent.expect)


# ---- [[accountant]]
def _accountant(ent: _Entry, paper: str) -> tuple[Claim, Check]:
    v = ent.values
    queries = _queries()
    qname = v["query"]
    if qname not in queries:
        ent.fail(f"unknown query {qname!r}; allowed: {', '.join(sorted(queries))}")
    q = queries[qname]
    params = v.get("params", {})
    allowed = [p for p in inspect.signature(q.fn).parameters]
    for k, val in params.items():
        if k not in allowed:
            ent.fail(f"unknown parameter {k!r} for query {qname!r}; allowed: {', '.join(allowed)}")
        vals = val if isinstance(val, list) else [val]
        for x in vals:
            if isinstance(x, (int, float)) and not isinstance(x, bool) and x < 0:
                ent.fail(f"params.{k} must be >= 0, got {val!r}")
            if isinstance(x, (str, bool)):
                ent.fail(f"params.{k} must be a number or a list of numbers, got {val!r}")
    relation = v.get("relation", "<=")
    if relation not in RELATIONS:
        ent.fail(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    rel_tol = v.get("rel_tol", 1e-9)
    if rel_tol < 0:
        ent.fail(f"rel_tol must be >= 0, got {rel_tol!r}")
    output = v.get("output", q.output)
    bound = v["bound"]

    def evaluate() -> float:
        ans = q.fn(**params)
        if output is None:
            val = ans
        elif not hasattr(ans, output):
            raise PrivcheckUsageError(f"query {qname!r} has no output {output!r}")
        else:
            val = getattr(ans, output)
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            raise PrivcheckUsageError(f"output {output!r} of {qname!r} is not a number; choose another output")
        return float(val)

    if output is None and "output" in v:
        ent.fail(f"query {qname!r} returns a number; remove output")
    if q.cheap:
        ent.guard(evaluate)

    def run(ctx: RunContext) -> Outcome:
        value = evaluate()
        if relation == "=":
            ok = math.isclose(value, bound, rel_tol=rel_tol, abs_tol=0.0)
            tol = f"relative {rel_tol:g}"
        elif relation == "<=":
            ok = value <= bound * (1 + 1e-12) + 1e-300
            tol = "relative 1e-12 (rounding)"
        else:
            ok = value >= bound * (1 - 1e-12) - 1e-300
            tol = "relative 1e-12 (rounding)"
        return Outcome(
            "holds" if ok else "refuted",
            claimed=bound,
            measured=value,
            details={
                "query": qname,
                "params": params,
                "output": output,
                "relation": relation,
                "tolerance": tol,
                "statement": f"{qname} {relation} {bound:g}",
                "counterexample": None if ok else {"computed": value, "bound": bound},
            },
        )

    stmt = f"{qname}({', '.join(f'{k}={val}' for k, val in params.items())}) {relation} {bound:g}"
    return ent.claim(paper, "bound", "numeric", stmt), Check(ent.id, "numeric", run, expect=ent.expect)


# ---- [[estimator]]
FREQUENCY_ESTIMATORS = ("c_de", "g_de", "c_hat", "T")
_SCENARIO_KEYS = {"output": ("x",), "frequency": ("n", "n_i", "pi", "eps", "m")}


def _estimator(ent: _Entry, paper: str) -> tuple[Claim, Check]:
    import numpy as np

    from privcheck.base.validation import check_int, check_positive
    from privcheck.estimator_check import Scenario, check_estimator, check_replicates_memory, decide

    v = ent.values
    est = v["estimator"]
    scen = v["scenario"]
    if est not in ("output",) + FREQUENCY_ESTIMATORS:
        ent.fail(f"unknown estimator {est!r}; allowed: output, {', '.join(FREQUENCY_ESTIMATORS)}")
    family = "output" if est == "output" else "frequency"
    for k in scen:
        if k not in _SCENARIO_KEYS[family]:
            ent.fail(f"unknown scenario key {k!r} for estimator {est!r}; allowed: {', '.join(_SCENARIO_KEYS[family])}")
    for k in _SCENARIO_KEYS[family]:
        if k not in scen:
            ent.fail(f"scenario needs {k!r} for estimator {est!r}")
        if isinstance(scen[k], bool) or not isinstance(scen[k], (int, float)):
            ent.fail(f"scenario.{k} must be a number, got {scen[k]!r}")
    if family == "output":
        if "mechanism" not in v:
            ent.fail("estimator 'output' needs mechanism = NAME")
    else:
        for k in ("mechanism", "params"):
            if k in v:
                ent.fail(f"{k} is only for estimator 'output' (frequency estimators use direct encoding)")
    replicates = ent.guard(lambda: check_int("replicates", v.get("replicates", DEFAULT_REPLICATES), minimum=10))
    cv = (
        ent.guard(lambda: check_positive("claimed_variance", v["claimed_variance"]))
        if "claimed_variance" in v
        else None
    )
    tol = ent.guard(lambda: check_positive("tolerance", v["tolerance"])) if "tolerance" in v else None
    vrt = ent.guard(lambda: check_positive("var_rel_tol", v.get("var_rel_tol", 0.1)))

    if family == "output":
        from estimators.registry import mechanism

        name, params = v["mechanism"], v.get("params", {})
        mech = ent.guard(lambda: mechanism(name, **params))
        x = float(scen["x"])
        probe = ent.guard(lambda: np.asarray(mech.sample(x, 4, np.random.default_rng(0)), dtype=float))
        if probe.ndim > 1 and probe.shape[1] != 1:
            ent.fail(f"mechanism {name!r} has vector outputs; estimator 'output' needs a scalar mechanism")
        target = x
        exact_mean = exact_var = None

        def make_draw():
            m = mechanism(name, **params)
            return lambda rng, size: np.asarray(m.sample(x, size, rng), dtype=float).reshape(size)

        fn = None
        label = f"{name} output at x={x:g}"
        sparams = {"mechanism": name, **params, "x": x}
    else:
        from estimators import frequency as fq
        from estimators.direct_encoding import de_probabilities

        n = ent.guard(lambda: check_int("scenario.n", scen["n"], minimum=1))
        n_i = ent.guard(lambda: check_int("scenario.n_i", scen["n_i"], minimum=0, maximum=n))
        m_dom = ent.guard(lambda: check_int("scenario.m", scen["m"], minimum=2))
        g = ent.guard(lambda: fq.uniform_groups(n, n_i, scen["pi"]))
        p, qq = ent.guard(lambda: de_probabilities(scen["eps"], m_dom))
        pi = float(scen["pi"])
        target = float(n_i)
        exact_mean, exact_var = fq.exact_moments(est, g, p, qq)

        def make_draw():
            return lambda rng, size: fq.draw_counts(g, p, qq, rng, size)

        fn = {
            "c_de": lambda o: fq.c_de(o[0], n, p, qq),
            "g_de": lambda o: fq.g_de(o[0], n, pi, p, qq),
            "c_hat": lambda o: fq.c_hat(o[0], o[1], pi, p, qq),
            "T": lambda o: fq.t_estimator(o[0], n, g.sum_pi, p, qq),
        }[est]
        label = est
        sparams = {"n": n, "n_i": n_i, "pi": pi, "eps": float(scen["eps"]), "m": m_dom, "p": p, "q": qq}
    cm = v.get("claimed_mean", target)
    ent.guard(
        lambda: Scenario(
            ent.id, make_draw(), target, claimed_mean=cm, claimed_variance=cv, tolerance=tol, var_rel_tol=vrt
        )
    )
    fam = 1 + (cv is not None)
    ent.guard(lambda: check_replicates_memory(replicates, 1))  # scalar estimates: refuse at load, not in the run

    def run(ctx: RunContext) -> Outcome:
        sc = Scenario(
            ent.id,
            make_draw(),
            target,
            claimed_mean=cm,
            claimed_variance=cv,
            exact_mean=exact_mean,
            exact_variance=exact_var,
            tolerance=tol,
            var_rel_tol=vrt,
            params=sparams,
        )
        reps = ctx.n(replicates, quick=max(10, replicates // 5))
        res = check_estimator(
            fn, sc, reps, seed=ctx.seed_seq, confidence=ctx.confidence, family=fam, jobs=ctx.jobs, name=label
        )
        d = decide([res], ctx.confidence)
        c = res.components[0]
        measured = {"mean": c.mean, "variance": c.variance}
        claimed = {"mean": cm} if cv is None else {"mean": cm, "variance": cv}
        return Outcome(
            d.verdict,
            claimed=claimed,
            measured=measured,
            details={
                "scenarios": [res.record()],
                "reason": d.reason,
                "adjusted_p": d.adjusted,
                "interval": list(c.mean_interval),
                "variance_interval": list(c.variance_interval),
                "confidence": res.confidence,
                "nominal_confidence": ctx.confidence,
            },
            samples=reps,
        )

    stmt = f"{label}: mean {cm:g}" + (f", variance {cv:g}" if cv is not None else "")
    return ent.claim(paper, "estimator", "mc", stmt), Check(ent.id, "mc", run, expect=ent.expect)
