"""Auditing a mechanism's ε: exact where computable, and a valid Monte Carlo lower bound.

:func:`audit` accepts a built-in :class:`~estimators.base.Mechanism` or any
plain sampler ``f(x, n, rng) -> outputs`` with a list of candidate inputs.

The Monte Carlo lower bound (:func:`monte_carlo_bound`) is black-box and
statistically valid at the stated confidence:

1. for each input, draw ``selection`` samples and, independently, ``estimation``
   samples (fixed chunk seeds from one ``SeedSequence``: the same numbers for
   any number of threads);
2. on the selection samples only, code the outputs into atoms and choose, for
   every ordered input pair, the union of atoms with the largest estimated
   likelihood ratio (:mod:`privcheck.auditor.events`); keep the ``max_events`` best
   (pair, event) candidates;
3. on the estimation samples, bound ``P(E|x)`` from below and ``P(E|x')`` from
   above with one-sided Clopper–Pearson bounds at level ``α/(2m)`` each
   (Bonferroni over the ``m`` candidates), so that with probability at least
   ``1 − α`` every candidate's ``log(lower/upper)`` is a lower bound on ε.

For (ε, δ) mechanisms the same events give a lower bound on δ at the claimed
ε: ``P(E|x) − e^ε P(E|x') ≤ δ(ε)``.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from privcheck.errors import PrivcheckUsageError
from privcheck.auditor.events import OutputCoding, candidate_events
from privcheck.auditor.outputs import encode_outputs as as_matrix
from privcheck.auditor.views import apply_view
from privcheck.scheduler import get_backend, map_chunks
from privcheck.seeding import default_jobs, derive
from privcheck.stats import clopper_pearson, max_certifiable_log_ratio
from privcheck.validation import check_confidence, check_eps, check_int, check_probability

DEFAULT_SAMPLES = 1_000_000
SELECTION_SHARE = 0.2
MAX_EVENTS = 3
EXACT_REL_TOL = 1e-12

Sampler = Callable[[Any, int, np.random.Generator], Any]


@dataclass
class MonteCarloBound:
    """A Monte Carlo lower bound on ε (and δ), with what limited it.

    eps_lower: lower bound on ε holding with probability ≥ ``confidence``
    (``-inf`` when no event separated the inputs). delta_lower: lower bound on
    δ at ``delta_eps`` (None when not requested). eps_max_certifiable: the
    largest ε these sample sizes could ever certify. worst_pair: the inputs
    of the best event; event: its description; counts: its estimation counts
    ``(k_x, n, k_x', n)``; candidates: every tested candidate.
    """

    eps_lower: float
    confidence: float
    samples_per_input: int
    selection_samples: int
    estimation_samples: int
    eps_max_certifiable: float
    worst_pair: tuple | None
    event: str | None
    counts: tuple | None
    candidates: list[dict]
    delta_eps: float | None = None
    delta_lower: float | None = None
    reproducible: bool = True
    draws: int = 0


@dataclass
class AuditResult:
    """Everything an audit found (JSON names are stable; see :meth:`to_dict`)."""

    mechanism: str
    eps_claimed: float | None
    eps_exact: float | None
    eps_exact_text: str | None
    eps_lower: float | None
    confidence: float
    samples: int
    seconds: float
    verdict: str
    verdict_exact: str | None
    verdict_mc: str | None
    worst_pair: Any
    event: Any
    eps_max_certifiable: float | None
    delta_claimed: float = 0.0
    delta_exact: float | None = None
    delta_lower: float | None = None
    reproducible: bool = True
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready dict with the DESIGN.md field names."""
        from privcheck.claims import _jsonable

        return _jsonable(asdict(self))

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [f"mechanism      {self.mechanism}"]
        if self.eps_claimed is not None:
            lines.append(f"eps claimed    {self.eps_claimed:.6g}" + (f"  (delta {self.delta_claimed:g})" if self.delta_claimed else ""))
        if self.eps_exact is not None:
            lines.append(f"eps exact      {self.eps_exact_text}  at inputs {_fmt(self.details.get('exact_pair'))}, output {_fmt(self.details.get('exact_output'))}")
        if self.delta_exact is not None:
            lines.append(f"delta exact    {self.delta_exact:.6g} at eps claimed")
        if self.eps_lower is not None:
            lines.append(f"eps lower      {self.eps_lower:.6g}  ({self.confidence:.0%} confidence, {self.samples} samples/input; "
                         f"at most {self.eps_max_certifiable:.4g} certifiable)")
            lines.append(f"  event        {self.event} for inputs {_fmt(self.worst_pair)}")
        if self.delta_lower is not None:
            lines.append(f"delta lower    {self.delta_lower:.6g} at eps claimed")
        if not self.reproducible:
            lines.append("note           the sampler ignores the generator: results are not reproducible from the seed")
        lines.append(f"verdict        {self.verdict}  ({self.seconds:.2f} s)")
        return "\n".join(lines)


def _fmt(v, width: int = 80) -> str:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    text = str(v)
    return text if len(text) <= width else text[: width - 1] + "…"


def _draw(sampler: Sampler, x, n: int, seed_seq, jobs: int, progress=None, backend=None) -> np.ndarray:
    parts = map_chunks(lambda rng, size: as_matrix(sampler(x, size, rng), size), n, seed_seq,
                       jobs=jobs, progress=progress, backend=backend)
    if len({p.shape[1] for p in parts}) > 1:
        raise PrivcheckUsageError(f"sampler outputs changed width between chunks ({sorted({p.shape[1] for p in parts})} "
                                  f"columns): {_WIDTH_HINT}")
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


_WIDTH_HINT = ("outputs of varying length (or sometimes complex); audit them with "
               "view=privcheck.auditor.views.as_atom (each output one atom)")


def _count_events(sampler: Sampler, x, n: int, seed_seq, jobs: int, coding: OutputCoding, events, progress=None,
                  backend=None):
    """Counts of each event on ``n`` fresh draws of input ``x`` (chunked; samples are not kept)."""

    def chunk(rng, size):
        data = as_matrix(sampler(x, size, rng), size)
        out = np.zeros(len(events), dtype=np.int64)
        atom_counts: dict = {}
        for i, ev in enumerate(events):
            if ev.columns not in atom_counts:
                codes, total = coding.codes(data, ev.columns)
                atom_counts[ev.columns] = np.bincount(codes, minlength=total)
            out[i] = int(atom_counts[ev.columns][ev.atoms].sum())
        return out

    return np.sum(map_chunks(chunk, n, seed_seq, jobs=jobs, progress=progress, backend=backend), axis=0)


def _is_reproducible(sampler: Sampler, x) -> bool:
    a = as_matrix(sampler(x, 64, np.random.default_rng(12345)), 64)
    b = as_matrix(sampler(x, 64, np.random.default_rng(12345)), 64)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


def monte_carlo_bound(
    sampler: Sampler,
    inputs: Sequence,
    samples: int = DEFAULT_SAMPLES,
    *,
    confidence: float = 0.95,
    seed: int | np.random.SeedSequence = 0,
    jobs: int | None = None,
    selection_share: float = SELECTION_SHARE,
    max_events: int = MAX_EVENTS,
    delta_eps: float | None = None,
    progress: Callable[[int], None] | None = None,
    pairs: Sequence | None = None,
    client=None,
) -> MonteCarloBound:
    """A black-box lower bound on ε (and on δ at ``delta_eps``) from samples alone.

    Parameters
    ----------
    sampler : callable ``f(x, n, rng)`` returning ``n`` outputs (shape ``(n,)``
        or ``(n, d)``, numeric; ``NaN`` may mark "no value").
    inputs : at least two candidate inputs; all ordered pairs are searched.
    samples : draws per input (≥ 20), split into a selection share and a
        fresh estimation share.
    confidence : in (0, 1); the bound holds with at least this probability.
    seed : int or SeedSequence; the result is a function of it alone (for a
        sampler that uses its ``rng``), whatever ``jobs``.
    max_events : how many (pair, event) candidates reach the estimation
        stage; the Bonferroni correction divides α by this number.
    delta_eps : if given, also bound δ at this ε (events chosen for δ).
    pairs : optional ordered pairs of input *indices* ``(a, b)`` to search
        (default: all ordered pairs).
    client : run the chunks on Dask (``"local"``, ``"tcp://HOST:PORT"`` or a
        ``distributed.Client``) or a given backend (:func:`privcheck.scheduler.get_backend`);
        the result is the same as on threads. A cluster started here ends with the call.
    """
    confidence = check_confidence(confidence)
    samples = check_int("samples", samples, minimum=20)
    if len(inputs) < 2:
        raise PrivcheckUsageError(f"audit needs at least two candidate inputs, got {len(inputs)}")
    selection_share = check_probability("selection_share", selection_share, open_low=True, open_high=True)
    max_events = check_int("max_events", max_events, minimum=1)
    jobs = default_jobs() if jobs is None else check_int("jobs", jobs, minimum=1)
    alpha = 1.0 - confidence
    n_sel = max(10, int(round(samples * selection_share)))
    n_est = samples - n_sel
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    backend = get_backend(jobs, client)  # closed when dropped (DaskBackend finalizer)
    sel = [_draw(sampler, x, n_sel, derive(ss, "selection", i), jobs, progress, backend)
           for i, x in enumerate(inputs)]
    widths = {s.shape[1] for s in sel}
    if len(widths) != 1:
        raise PrivcheckUsageError(f"sampler outputs have different widths for different inputs ({sorted(widths)} "
                                  f"columns): {_WIDTH_HINT}")
    coding = OutputCoding(np.concatenate(sel))
    events = candidate_events(coding, sel, n_est, alpha / max_events, max_events=max_events,
                              delta_eps=delta_eps, allowed_pairs=None if pairs is None else set(map(tuple, pairs)))
    del sel
    reproducible = _is_reproducible(sampler, inputs[0])
    cert = max_certifiable_log_ratio(n_est, n_est, alpha / max(1, len(events) or 1))
    if not events:
        return MonteCarloBound(-math.inf, confidence, samples, n_sel, n_est, cert, None, None, None, [],
                               delta_eps, 0.0 if delta_eps is not None else None, reproducible)
    m = len(events)
    needed = sorted({i for ev in events for i in ev.pair})
    draws = n_sel * len(inputs) + n_est * len(needed)
    counts = {i: _count_events(sampler, inputs[i], n_est, derive(ss, "estimation", i), jobs, coding, events, progress,
                               backend)
              for i in needed}
    a_each = alpha / m
    cands = []
    best = None
    for j, ev in enumerate(events):
        a, b = ev.pair
        k1, k0 = int(counts[a][j]), int(counts[b][j])
        lo = clopper_pearson(k1, n_est, a_each / 2, "lower")
        hi = clopper_pearson(k0, n_est, a_each / 2, "upper")
        eps_lo = math.log(lo / hi) if lo > 0 else -math.inf
        d_lo = (lo - math.exp(delta_eps) * hi) if delta_eps is not None else None
        cands.append({"pair": [_plain(inputs[a]), _plain(inputs[b])], "event": ev.description,
                      "counts": [k1, n_est, k0, n_est], "p_lower": lo, "p_upper": hi,
                      "eps_lower": eps_lo, "delta_lower": d_lo, "predicted": ev.predicted})
        key = d_lo if delta_eps is not None else eps_lo
        if best is None or key > best[0]:
            best = (key, j)
    bj = best[1]  # the candidate with the best bound (on ε, or on δ when asked for δ)
    eps_lower = max(c["eps_lower"] for c in cands)
    delta_lower = max(0.0, cands[bj]["delta_lower"]) if delta_eps is not None else None
    ev = events[bj]
    return MonteCarloBound(
        eps_lower=eps_lower, confidence=confidence, samples_per_input=samples, selection_samples=n_sel,
        estimation_samples=n_est, eps_max_certifiable=cert,
        worst_pair=(_plain(inputs[ev.pair[0]]), _plain(inputs[ev.pair[1]])), event=ev.description,
        counts=tuple(cands[bj]["counts"]), candidates=cands, delta_eps=delta_eps, delta_lower=delta_lower,
        reproducible=reproducible, draws=draws,
    )


def _plain(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def exact_verdict(eps_exact: float, eps_claimed: float) -> str:
    """``holds`` when the exact ε does not exceed the claim (up to rounding), else ``refuted``."""
    return "holds" if eps_exact <= eps_claimed * (1 + EXACT_REL_TOL) + EXACT_REL_TOL else "refuted"


def max_certifiable_delta(bound: MonteCarloBound) -> float:
    """The largest δ lower bound (at ``bound.delta_eps``) these estimation sample sizes could certify.

    The δ-mode power statement, like ``eps_max_certifiable`` for ε: attained when an event occurs in
    every estimation draw of one input and in none of the other's, with the same per-candidate
    error level (α/m, split between the two Clopper–Pearson bounds) as :func:`monte_carlo_bound`.
    Returns 0 when no δ bound was requested.
    """
    if bound.delta_eps is None:
        return 0.0
    n = bound.estimation_samples
    a_each = (1.0 - bound.confidence) / max(1, len(bound.candidates))
    lo = clopper_pearson(n, n, a_each / 2, "lower")
    hi = clopper_pearson(0, n, a_each / 2, "upper")
    return max(0.0, lo - math.exp(bound.delta_eps) * hi)


def detectable_delta(bound: MonteCarloBound, delta_claimed: float) -> float | None:
    """The smallest δ violation these samples would detect: the least k/n whose counts (k of n, and 0 of n
    for the other input) give a δ lower bound above ``delta_claimed``; None when no count can.

    A power statement for the δ mode (same per-candidate error level as :func:`monte_carlo_bound`).
    """
    if bound.delta_eps is None:
        return None
    n = bound.estimation_samples
    a_each = (1.0 - bound.confidence) / max(1, len(bound.candidates))
    hi = math.exp(bound.delta_eps) * clopper_pearson(0, n, a_each / 2, "upper")
    if clopper_pearson(n, n, a_each / 2, "lower") - hi <= delta_claimed:
        return None
    lo_k, hi_k = 0, n  # invariant: count hi_k detects, lo_k does not
    while hi_k - lo_k > 1:
        mid = (lo_k + hi_k) // 2
        if clopper_pearson(mid, n, a_each / 2, "lower") - hi > delta_claimed:
            hi_k = mid
        else:
            lo_k = mid
    return hi_k / n


def mc_verdict(bound: MonteCarloBound, eps_claimed: float, delta_claimed: float = 0.0) -> str:
    """Verdict of a Monte Carlo audit against a claimed (ε, δ).

    ``refuted`` when the lower bound exceeds the claim (valid at the bound's
    confidence); ``inconclusive`` when these sample sizes could not certify
    more than the claimed ε (no violation could have been detected) — with a
    claimed δ > 0, when they could not certify a δ above the claimed δ at the
    claimed ε (:func:`max_certifiable_delta`);
    otherwise ``holds``, meaning *no violation detected*: sampling can refute
    a privacy claim but never prove it.
    """
    if bound.delta_lower is not None and delta_claimed > 0:
        if bound.delta_lower > delta_claimed:
            return "refuted"
        if max_certifiable_delta(bound) <= delta_claimed:
            return "inconclusive"  # these samples could not have detected a δ violation of the claimed size
        return "holds"
    if bound.eps_lower > eps_claimed:
        return "refuted"
    if bound.eps_max_certifiable <= eps_claimed:
        return "inconclusive"
    return "holds"


def audit(
    mech: Mechanism | Sampler,
    inputs: Sequence | None = None,
    eps: float | None = None,
    samples: int = DEFAULT_SAMPLES,
    *,
    seed: int = 0,
    confidence: float = 0.95,
    exact: bool | None = None,
    monte_carlo: bool = True,
    delta: float | None = None,
    jobs: int | None = None,
    max_events: int = MAX_EVENTS,
    selection_share: float = SELECTION_SHARE,
    progress: Callable[[int], None] | None = None,
    pairs: Sequence | None = None,
    neighbours: Callable[[Any, Any], bool] | None = None,
    view: Callable | None = None,
    client=None,
) -> AuditResult:
    """Audit the ε (and δ) of a mechanism or of a plain sampler.

    Parameters
    ----------
    mech : a built-in mechanism (``privcheck.mechanism(...)``) or a callable
        ``f(x, n, rng) -> n outputs``.
    inputs : candidate inputs (default: ``mech.inputs()``; required for a callable).
    eps : claimed ε > 0 (default: the mechanism's nominal ε; required for a callable).
    samples : Monte Carlo draws per input (≥ 20).
    seed : integer ≥ 0; all randomness derives from it.
    confidence : in (0, 1).
    exact : compute the exact ε (default: when the mechanism provides it;
        ``True`` on a mechanism without it is an error).
    monte_carlo : run the Monte Carlo lower bound.
    client : run the Monte Carlo chunks on Dask: ``"local"``, ``"tcp://HOST:PORT"``
        or a ``distributed.Client`` (extra ``privcheck[dask]``); same result as threads.
    delta : claimed δ in [0, 1) (default: the mechanism's nominal δ); with
        δ > 0 the Monte Carlo part bounds δ at the claimed ε.

    Returns an :class:`AuditResult`; its ``verdict`` is ``refuted`` when the
    exact ε or a valid lower bound exceeds the claim, ``holds`` when the exact
    ε meets it (or, without an exact value, when no violation was detected),
    ``inconclusive`` when neither could decide.

    pairs : neighbouring inputs ``[(a, b), ...]`` (values); only these pairs,
        in both orders, are searched (central DP); ``inputs`` defaults to the
        values they mention. neighbours : ``neighbours(a, b) -> bool`` selects
        the pairs among ``inputs`` instead. view : audit ``view(outputs)``
        (a batch of outputs → a batch; valid by post-processing, see
        :mod:`privcheck.auditor.views`).
    """
    t0 = time.perf_counter()
    is_mech = isinstance(mech, Mechanism)
    name = mech.name if is_mech else getattr(mech, "__name__", type(mech).__name__)
    if not callable(mech):
        raise PrivcheckUsageError("audit needs a mechanism or a callable f(x, n, rng)")
    if inputs is None and pairs is not None:
        inputs = []
        for pr in pairs:
            for v in pr:
                if not any(_same(v, u) for u in inputs):
                    inputs.append(v)
    if inputs is None:
        if not is_mech:
            raise PrivcheckUsageError("audit of a plain callable needs inputs=[x0, x1, ...]")
        inputs = mech.inputs()
    inputs = list(inputs)
    if eps is None:
        if not is_mech:
            raise PrivcheckUsageError("audit of a plain callable needs the claimed eps=...")
        eps = mech.eps_nominal
    eps = check_eps(eps) if not (isinstance(eps, float) and math.isinf(eps)) else eps
    if delta is None:
        delta = mech.delta_nominal if is_mech else 0.0
    delta = check_probability("delta", delta, open_high=True)
    seed = check_int("seed", seed, minimum=0)
    pair_idx = _pair_indices(inputs, pairs, neighbours)
    details: dict = {}
    ex: ExactEpsilon | None = None
    if exact is not False and is_mech:
        ex = mech.exact_epsilon()
        if ex is None and exact:
            raise PrivcheckUsageError(f"mechanism {name!r} has no exact output distribution; use --no-exact")
    elif exact and not is_mech:
        raise PrivcheckUsageError("exact ε needs a built-in mechanism with known probabilities")
    delta_exact = None
    v_exact = None
    if ex is not None:
        details.update(exact_pair=_plain_pair(ex.worst_pair), exact_output=_plain(ex.worst_output),
                       exact_method=ex.method, exact_note=ex.note)
        if delta > 0 and hasattr(mech, "delta_at"):
            delta_exact = float(mech.delta_at(eps))
            v_exact = "holds" if delta_exact <= delta * (1 + 1e-9) else "refuted"
        else:
            v_exact = exact_verdict(ex.eps, eps)
    bound = None
    v_mc = None
    if monte_carlo:
        t_mc = time.perf_counter()
        bound = monte_carlo_bound(apply_view(mech, view), inputs, samples, confidence=confidence, seed=seed,
                                  jobs=jobs, max_events=max_events, selection_share=selection_share,
                                  delta_eps=eps if delta > 0 else None, progress=progress, pairs=pair_idx,
                                  client=client)
        t_mc = time.perf_counter() - t_mc
        details["draws"] = bound.draws
        details["draws_per_second"] = round(bound.draws / t_mc, 1) if t_mc > 0 else None
        v_mc = mc_verdict(bound, eps, delta)
        details["candidates"] = bound.candidates
        details["selection_samples"] = bound.selection_samples
        details["estimation_samples"] = bound.estimation_samples
        if bound.delta_eps is not None:
            details["delta_max_certifiable"] = max_certifiable_delta(bound)
            details["delta_detectable"] = detectable_delta(bound, delta)
    if "refuted" in (v_exact, v_mc):
        verdict = "refuted"
    elif v_exact == "holds" or (v_exact is None and v_mc == "holds"):
        verdict = "holds"
    else:
        verdict = "inconclusive"
    if v_exact == "holds" and v_mc == "refuted":
        details["warning"] = "the Monte Carlo bound exceeds the exact ε: a (1 − confidence) event or a bug"
    return AuditResult(
        mechanism=name if not is_mech else repr(mech),
        eps_claimed=eps,
        eps_exact=None if ex is None else ex.eps,
        eps_exact_text=None if ex is None else ex.eps_text,
        eps_lower=None if bound is None else bound.eps_lower,
        confidence=confidence,
        samples=samples if monte_carlo else 0,
        seconds=round(time.perf_counter() - t0, 4),
        verdict=verdict,
        verdict_exact=v_exact,
        verdict_mc=v_mc,
        worst_pair=None if bound is None else bound.worst_pair,
        event=None if bound is None else bound.event,
        eps_max_certifiable=None if bound is None else bound.eps_max_certifiable,
        delta_claimed=delta,
        delta_exact=delta_exact,
        delta_lower=None if bound is None else bound.delta_lower,
        reproducible=True if bound is None else bound.reproducible,
        details=details,
    )


def _same(a, b) -> bool:
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
    except Exception:  # noqa: BLE001 - incomparable values are different
        return False


def _pair_indices(inputs: list, pairs, neighbours) -> list | None:
    """Ordered index pairs from neighbouring value pairs (both orders) or a neighbour predicate."""
    if pairs is None and neighbours is None:
        return None
    if pairs is not None and neighbours is not None:
        raise PrivcheckUsageError("give either pairs= or neighbours=, not both")
    out = []
    if neighbours is not None:
        if not callable(neighbours):
            raise PrivcheckUsageError("neighbours must be a callable neighbours(a, b) -> bool")
        out = [(a, b) for a in range(len(inputs)) for b in range(len(inputs))
               if a != b and neighbours(inputs[a], inputs[b])]
    else:
        for pr in pairs:
            if not isinstance(pr, (list, tuple)) or len(pr) != 2:
                raise PrivcheckUsageError(f"each pair must be two inputs (a, b), got {pr!r}")
            idx = []
            for v in pr:
                hit = [i for i, u in enumerate(inputs) if _same(v, u)]
                if not hit:
                    raise PrivcheckUsageError(f"pair {pr!r}: {v!r} is not one of the inputs")
                idx.append(hit[0])
            if idx[0] == idx[1]:
                raise PrivcheckUsageError(f"pair {pr!r} has the same input twice")
            out += [(idx[0], idx[1]), (idx[1], idx[0])]
    if not out:
        raise PrivcheckUsageError("no pair of inputs is neighbouring: nothing to audit")
    return sorted(set(out))


def _plain_pair(pair):
    return [_plain(p) for p in pair] if pair is not None else None
