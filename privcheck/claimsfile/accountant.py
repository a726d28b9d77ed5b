"""``[[accountant]]`` entries: compare an accountant's answer with a claimed bound (queries: :func:`query_names`;
``query = "pld"``: several claims about one composition, :mod:`privcheck.claimsfile.accountant_pld`)."""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.accountant_pld import PLD_KEYS, build_pld
from privcheck.claimsfile.entry import COMMON, Entry, TableKind

RELATIONS = ("<=", ">=", "=")
KEYS: dict[str, Any] = {
    **COMMON,
    "query": str,
    "params": dict,
    "bound": float,
    "relation": str,
    "rel_tol": float,
    "output": str,
    **PLD_KEYS,  # query = "pld" (privcheck.claimsfile.accountant_pld)
}


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
    return sorted([*_queries(), "pld"])


def _check_params(ent: Entry, qname: str, q: Query, params: dict) -> None:
    """Each parameter is one the accountant function takes, and a number >= 0 or a list of such."""
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


def _check_relation(ent: Entry) -> tuple[str, float]:
    """The entry's relation (one of RELATIONS, default ``<=``) and rel_tol (>= 0, default 1e-9)."""
    v = ent.values
    relation = v.get("relation", "<=")
    if relation not in RELATIONS:
        ent.fail(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    rel_tol = v.get("rel_tol", 1e-9)
    if rel_tol < 0:
        ent.fail(f"rel_tol must be >= 0, got {rel_tol!r}")
    return relation, rel_tol


def _evaluator(q: Query, qname: str, params: dict, output: str | None) -> Callable[[], float]:
    """The computed number: the query called with the params, its ``output`` field when it has one."""

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

    return evaluate


def _compare(value: float, bound: float, relation: str, rel_tol: float) -> tuple[bool, str]:
    """Whether ``value relation bound`` holds (``=``: within rel_tol; ``<=``/``>=``: allowing a relative
    1e-12 of rounding), and the tolerance in words."""
    if relation == "=":
        return math.isclose(value, bound, rel_tol=rel_tol, abs_tol=0.0), f"relative {rel_tol:g}"
    if relation == "<=":
        return value <= bound * (1 + 1e-12) + 1e-300, "relative 1e-12 (rounding)"
    return value >= bound * (1 - 1e-12) - 1e-300, "relative 1e-12 (rounding)"


def _accountant(ent: Entry, paper: str) -> tuple[Claim, Check]:
    """The claim and check of an ``[[accountant]]`` entry: a named accountant query compared with ``bound``
    (``query = "pld"`` entries go to :func:`build_pld`); bad keys are one-line errors at load time."""
    v = ent.values
    queries = _queries()
    qname = v["query"]
    if qname == "pld":
        return build_pld(ent, paper)
    if qname not in queries:
        ent.fail(f"unknown query {qname!r}; allowed: {', '.join(query_names())}")
    for key in PLD_KEYS:
        if key in v:
            ent.fail(f"{key!r} is a key of query 'pld' only")
    if "bound" not in v:
        ent.fail("missing required key 'bound'")
    q = queries[qname]
    params = v.get("params", {})
    _check_params(ent, qname, q, params)
    relation, rel_tol = _check_relation(ent)
    output = v.get("output", q.output)
    bound = v["bound"]
    evaluate = _evaluator(q, qname, params, output)
    if output is None and "output" in v:
        ent.fail(f"query {qname!r} returns a number; remove output")
    if q.cheap:
        ent.guard(evaluate)

    def run(ctx: RunContext) -> Outcome:
        value = evaluate()
        ok, tol = _compare(value, bound, relation, rel_tol)
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


KIND = TableKind("accountant", KEYS, ("id", "query"), _accountant)
