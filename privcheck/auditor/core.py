"""Auditing a mechanism's ε: exact where computable, and a valid Monte Carlo lower bound.

:func:`audit` accepts a built-in :class:`~estimators.base.Mechanism` or any
plain sampler ``f(x, n, rng) -> outputs`` with a list of candidate inputs.

The Monte Carlo lower bound (:func:`monte_carlo_bound`) is black-box and
statistically valid at the stated confidence. Draws come in seeded chunks
(:mod:`privcheck.base.scheduler`; chunk ``i`` of a stream uses child ``i`` of the
stream's SeedSequence, so results do not depend on the backend or worker count),
and no stage keeps more than a pilot and the chunks in flight in memory:

1. **pilot** (part of the selection share): for each input, a small first batch
   of selection draws (at most :data:`PILOT` per input) fixes the output coding
   (:mod:`privcheck.auditor.coding`: per-column atoms, column pairs worth joint
   atoms, whole-row atoms when few distinct rows occur);
2. **selection**: the remaining selection draws are coded and counted chunk by
   chunk (memory independent of ``samples``); from the atom counts alone,
   candidate events are chosen for every allowed ordered input pair and the
   ``max_events`` best are kept (:mod:`privcheck.auditor.selection`);
3. **estimation**: on *fresh* draws (a different seed stream, disjoint from the
   pilot and selection draws), each candidate's count under ``x`` and ``x'`` is
   taken chunk by chunk, ``P(E|x)`` is bounded from below and ``P(E|x')`` from
   above with one-sided Clopper–Pearson limits at level ``α/(2m)`` each
   (Bonferroni over the ``m`` candidates).

Validity: the events are a function of the pilot and selection draws only,
which are independent of the estimation draws; conditionally on the events the
estimation counts are independent binomials, so with probability at least
``1 − α`` every candidate's ``log(lower/upper)`` is ≤ its true log-ratio ≤ ε
(union bound over the ``m`` candidates and the two limits each). Streaming the
selection stage changes only *which* events are chosen, never this argument.

For (ε, δ) mechanisms the same events give a lower bound on δ at the claimed
ε: ``P(E|x) − e^ε P(E|x') ≤ δ(ε)``.

Neighbouring inputs: by default every ordered pair of ``inputs`` is audited
(local DP); ``pairs=`` or ``neighbours=`` restrict the search to neighbouring
inputs (central DP), both orders of each pair. ``view=fn`` audits ``fn(output)``
(valid by post-processing: a view cannot increase ε).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from privcheck.auditor.autoviews import auto_view, probe_size
from privcheck.auditor.coding import OutputCoding, to_matrix
from privcheck.auditor.defaults import DEFAULT_SAMPLES, EXACT_REL_TOL, MAX_EVENTS, PILOT, PILOT_VALUES, SELECTION_SHARE
from privcheck.auditor.selection import candidate_events, delta_gap, pair_columns
from privcheck.auditor.sizing import check_audit_request
from privcheck.auditor.user_code import guard_user_code
from privcheck.auditor.views import apply_view
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.resources import check_samples
from privcheck.base.scheduler import Stream, get_backend, map_streams, one_backend_per_call
from privcheck.base.seeding import derive
from privcheck.base.stats import clopper_pearson, max_certifiable_log_ratio
from privcheck.base.validation import check_confidence, check_eps, check_int, check_probability

Sampler = Callable[[Any, int, np.random.Generator], Any]


@dataclass
class MonteCarloBound:
    """A Monte Carlo lower bound on ε (and δ), with what limited it.

    eps_lower: lower bound on ε holding with probability ≥ ``confidence``
    (``-inf`` when no event separated the inputs). delta_lower: lower bound on
    δ at ``delta_eps`` (None when not requested). eps_max_certifiable: the
    largest ε these sample sizes could ever certify. worst_pair: the inputs
    of the best event; event: its description; counts: its estimation counts
    ``(k_x, n, k_x', n)``; candidates: every tested candidate; pilot_samples:
    the part of the selection draws that fixed the output coding.
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
    pilot_samples: int = 0
    pairs_audited: int = 0
    draws: int = 0
    view: str | None = None


@dataclass
class AuditResult:
    """Everything an audit found (JSON names are stable; see :meth:`to_dict`).

    certified_fraction: ``max(eps_lower, 0) / eps_claimed``, how much of the
    claimed ε the Monte Carlo bound certified (None without a Monte Carlo part
    or for an ε = 0 claim); reason: why the verdict is what it is when it is
    not a plain exact/Monte Carlo decision (e.g. why it is inconclusive).
    """

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
    certified_fraction: float | None = None
    reason: str | None = None
    mu_claimed: float | None = None
    mu_lower: float | None = None
    eps_lower_at_delta: float | None = None
    accountant: str | None = None
    curve_points: list | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict with the DESIGN.md field names."""
        from privcheck.claims import _jsonable

        return _jsonable(asdict(self))

    def summary(self) -> str:
        """A few human-readable lines."""
        from privcheck.reports.text import fmt_confidence

        lines = [f"mechanism      {self.mechanism}"]
        if self.eps_claimed is not None:
            lines.append(
                f"eps claimed    {self.eps_claimed:.6g}"
                + (f"  (delta {self.delta_claimed:g})" if self.delta_claimed else "")
            )
        if self.eps_exact is not None:
            lines.append(
                f"eps exact      {self.eps_exact_text}  at inputs {_fmt(self.details.get('exact_pair'))}, output {_fmt(self.details.get('exact_output'))}"
            )
        if self.delta_exact is not None:
            lines.append(f"delta exact    {self.delta_exact:.6g} at eps claimed")
        if self.eps_lower is not None:
            lines.append(
                f"eps lower      {self.eps_lower:.6g}  (confidence {fmt_confidence(self.confidence)}, {self.samples} samples/input; "
                f"at most {self.eps_max_certifiable:.4g} certifiable)"
            )
            if self.certified_fraction is not None and self.certified_fraction <= 1 and not self.delta_claimed:
                lines.append(f"  certified    {self.certified_fraction:.1%} of the claimed eps")
            elif self.delta_claimed and self.eps_claimed is not None and self.eps_lower > self.eps_claimed:
                lines.append(
                    "  note         above the claimed eps, which an (eps, delta) claim allows: "
                    "its verdict is on delta at the claimed eps"
                )
            lines.append(
                f"  event        {self.event} for inputs {_fmt(self.worst_pair)}"
                if self.event is not None
                else "  event        none: no event could separate the inputs at these sample sizes"
            )
        if self.delta_lower is not None:
            lines.append(f"delta lower    {self.delta_lower:.6g} at eps claimed")
        from privcheck.auditor.curves import curve_summary_lines

        lines += curve_summary_lines(self)
        if not self.reproducible:
            lines.append(f"note           {NOT_REPRODUCIBLE} (the bound stays valid: every stage draws afresh)")
        if "adaptive" in self.details:
            from privcheck.auditor.adaptive import summary_lines

            lines += summary_lines(self.details["adaptive"])
        if self.reason:
            lines.append(f"reason         {self.reason}")
        lines.append(f"verdict        {self.verdict}  ({self.seconds:.2f} s)")
        return "\n".join(lines)


def _fmt(v, width: int = 80) -> str:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    text = str(v)
    return text if len(text) <= width else text[: width - 1] + "…"


def _draw_matrix(sampler: Sampler, x, size: int, rng) -> np.ndarray:
    return to_matrix(sampler(x, size, rng), size)


_WIDTH_HINT = (
    "outputs of varying length (or sometimes complex); audit them with "
    "view=privcheck.auditor.views.as_atom (each output one atom)"
)


def _check_width(data: np.ndarray, width: int) -> np.ndarray:
    if data.shape[1] != width:
        raise PrivcheckUsageError(
            f"sampler outputs changed width between chunks ({data.shape[1]} columns, expected {width}): {_WIDTH_HINT}"
        )
    return data


def _draw_matrix_at(sampler: Sampler, x, i: int, rng, size: int) -> np.ndarray:
    return _draw_matrix(sampler, x, size, rng)


class AuditShared:
    """What every chunk of an audit needs and no stage changes: the sampler and the inputs it draws at
    (``inputs[i]`` for ``i`` in ``needed``). Passed to :func:`privcheck.base.scheduler.map_streams` as
    ``shared``, so that Dask scatters it once, not with every stage."""

    def __init__(self, sampler: Sampler, inputs: Sequence, needed: Sequence[int]):
        self.sampler = sampler
        self.inputs = {i: inputs[i] for i in needed}


def run_stage(
    fn: Callable,
    shared: AuditShared,
    which: Sequence[int],
    n: int,
    seed_of: Callable[[int], np.random.SeedSequence],
    *,
    backend,
    progress=None,
    reduce=None,
) -> dict:
    """One stage of an audit as ONE map over the inputs ``which`` (indices into the audit's inputs).

    Input ``i`` draws ``n`` samples in the chunks of the stream ``seed_of(i)``; chunk results are
    ``fn(sampler, inputs[i], i, rng, size)``. Returns ``{i: chunk results in order}``, or ``{i: their
    fold with reduce}`` (associative, e.g. adding counts). The chunks and their generators are those of
    one ``map_chunks`` per input, so the results do not depend on the fusion or the backend.
    """
    which = list(which)

    def chunk(sh: AuditShared, s: int, rng, size: int):
        i = which[s]
        return fn(sh.sampler, sh.inputs[i], i, rng, size)

    out = map_streams(
        chunk, [Stream(n, seed_of(i)) for i in which], shared=shared, backend=backend, progress=progress, reduce=reduce
    )
    return dict(zip(which, out))


def _add_counts(total: dict, part: dict) -> dict:
    """``total`` with the atom counts ``part`` added in place (int64; associative, so it folds chunks in any grouping)."""
    for k, v in part.items():
        total[k] = total[k] + v if k in total else v.astype(np.int64)
    return total


#: seeds of the seeding probe (:func:`check_seeding`); any fixed distinct values do
_PROBE_SEEDS = (12345, 54321, 777, 999)
#: the note recorded for samplers whose randomness numpy's seeding does not control
NOT_REPRODUCIBLE = "not reproducible: the sampler ignores numpy seeding"


def check_seeding(sampler: Sampler, x, name: str | None = None) -> tuple[bool, int]:
    """Probe how ``sampler`` uses the generator it is given: ``(reproducible, output width)``.

    Draws a small batch at input ``x`` twice with one seed and once with
    another. Same seed → same draws: reproducible. Draws identical under two
    *different* seeds while varying within the batch mean the sampler ignores
    the generator and seeds itself (a fixed internal seed): its selection and
    estimation draws would be the same draws and no bound would be valid, so
    this raises :class:`PrivcheckUsageError` (confirmed on a larger batch under
    two more seeds first, so that a low-entropy sampler matching by chance is
    not refused). Draws that differ under the same seed (OS entropy, a library
    with its own unseeded state) are valid — every stage gets fresh draws —
    but not reproducible (``False``). A constant (deterministic) sampler is reproducible.
    """
    s1, s2, s3, s4 = _PROBE_SEEDS
    a = _draw_matrix(sampler, x, 64, np.random.default_rng(s1))
    b = _draw_matrix(sampler, x, 64, np.random.default_rng(s1))
    same = _equal(a, b)
    if same and _varies(a) and _equal(a, _draw_matrix(sampler, x, 64, np.random.default_rng(s2))):
        c = _draw_matrix(sampler, x, 2048, np.random.default_rng(s3))
        if _varies(c) and _equal(c, _draw_matrix(sampler, x, 2048, np.random.default_rng(s4))):
            inner = sampler
            while hasattr(inner, "view") and hasattr(inner, "sampler"):  # a view (explicit or automatic): name the code
                inner = inner.sampler
            label = name or getattr(inner, "user_label", None) or getattr(inner, "__name__", "the sampler")
            raise PrivcheckUsageError(
                f"{label} ignores the generator it is given and seeds itself: its draws under different seeds are "
                "identical, so selection and estimation would reuse the same draws and no bound would be valid; "
                "draw from the rng argument (for code using numpy's global generator: per_sample(fn, seed_global=True))"
            )
    return same, a.shape[1]


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def _varies(a: np.ndarray) -> bool:
    """Whether the rows of a draw matrix are not all the same (the sampler is random at all)."""
    return len(a) > 1 and not _equal(a, np.broadcast_to(a[:1], a.shape))


def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except Exception:  # noqa: BLE001 - incomparable values are different inputs
        return False


def resolve_pairs(inputs: Sequence | None, pairs=None, neighbours: Callable | None = None):
    """The inputs and the ordered index pairs ``(a, b)`` an audit searches.

    ``inputs`` alone: all ordered pairs (local DP). ``pairs=[(x, x'), ...]``:
    those pairs in both orders (inputs default to the pairs' elements).
    ``neighbours(x, x') -> bool``: the ordered pairs of ``inputs`` for which
    it holds in either order. Raises :class:`PrivcheckUsageError` on bad input.
    """
    if pairs is not None and neighbours is not None:
        raise PrivcheckUsageError("give either pairs=[(a, b), ...] or neighbours=callable, not both")
    if pairs is not None:
        try:
            pairs = [tuple(p) for p in pairs]
        except TypeError:
            raise PrivcheckUsageError("pairs must be a list of (x, x') input pairs") from None
        if not pairs or any(len(p) != 2 for p in pairs):
            raise PrivcheckUsageError("pairs must be a non-empty list of (x, x') input pairs")
        if inputs is None:
            inputs = []
            for p in pairs:
                for v in p:
                    if not any(_same(v, u) for u in inputs):
                        inputs.append(v)
        inputs = list(inputs)
        out = []
        for p in pairs:
            idx = []
            for v in p:
                hit = [i for i, u in enumerate(inputs) if _same(v, u)]
                if not hit:
                    raise PrivcheckUsageError(f"pair {p!r}: {v!r} is not one of the inputs")
                idx.append(hit[0])
            if idx[0] == idx[1]:
                raise PrivcheckUsageError(f"pair {p!r} compares an input with itself")
            for o in ((idx[0], idx[1]), (idx[1], idx[0])):
                if o not in out:
                    out.append(o)
        return inputs, out
    if inputs is None:
        raise PrivcheckUsageError("audit of a plain callable needs inputs=[x0, x1, ...] (or pairs=[(x0, x1), ...])")
    inputs = list(inputs)
    if len(inputs) < 2:
        raise PrivcheckUsageError(f"audit needs at least two candidate inputs, got {len(inputs)}")
    if neighbours is None:
        return inputs, [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if a != b]
    if not callable(neighbours):
        raise PrivcheckUsageError("neighbours must be a callable neighbours(x, x') -> bool")
    out = [
        (a, b)
        for a in range(len(inputs))
        for b in range(len(inputs))
        if a != b and (neighbours(inputs[a], inputs[b]) or neighbours(inputs[b], inputs[a]))
    ]
    if not out:
        raise PrivcheckUsageError("neighbours(x, x') holds for no pair of the inputs: nothing to audit")
    return inputs, out


def choose_view(
    sampler: Sampler,
    inputs: Sequence | None,
    samples: int,
    *,
    seed: np.random.SeedSequence,
    pairs=None,
    neighbours: Callable | None = None,
):
    """The view :func:`monte_carlo_bound` would choose by output type for an audit of ``samples`` draws per
    input (:func:`privcheck.auditor.autoviews.auto_view` on its own probe from ``seed``), as a value to pass
    back as ``view=``: the :class:`~privcheck.auditor.autoviews.AutoView`, or False when raw outputs suffice.
    Used by the adaptive rounds to probe once (sized for their first two rounds) instead of once per round
    (valid: the probe's draws are independent of every round's selection and estimation draws).
    """
    inputs, ordered = resolve_pairs(inputs, pairs, neighbours)
    needed = sorted({i for p in ordered for i in p})
    if not isinstance(sampler, Mechanism):
        sampler = guard_user_code(sampler)
    view = auto_view(sampler, [inputs[i] for i in needed], seed, probe=probe_size(samples))
    return False if view is None else view


@one_backend_per_call
def monte_carlo_bound(
    sampler: Sampler,
    inputs: Sequence | None,
    samples: int = DEFAULT_SAMPLES,
    *,
    confidence: float = 0.95,
    seed: int | np.random.SeedSequence = 0,
    jobs: int | None = None,
    selection_share: float = SELECTION_SHARE,
    max_events: int = MAX_EVENTS,
    delta_eps: float | None = None,
    progress: Callable[[int], None] | None = None,
    pairs=None,
    neighbours: Callable | None = None,
    view: Callable | None = None,
    client=None,
) -> MonteCarloBound:
    """A black-box lower bound on ε (and on δ at ``delta_eps``) from samples alone.

    Parameters
    ----------
    sampler : callable ``f(x, n, rng)`` returning ``n`` outputs (shape ``(n,)``
        or ``(n, d)``, numeric; ``NaN`` may mark "no value"; other output types
        through ``privcheck.auditor.outputs.encode_outputs`` when available).
    inputs : candidate inputs; without ``pairs``/``neighbours`` all ordered
        pairs are searched (at least two inputs).
    samples : draws per input (≥ 20), split into a selection share (its first
        part, the pilot, fixes the coding) and a fresh estimation share.
    confidence : in (0, 1); the bound holds with at least this probability.
    seed : int or SeedSequence; the result is a function of it alone (for a
        sampler that uses its ``rng``), whatever ``jobs`` or backend.
    max_events : how many (pair, event) candidates reach the estimation
        stage; the Bonferroni correction divides α by this number.
    delta_eps : if given, also bound δ at this ε (events chosen for δ).
    pairs, neighbours : restrict the search to neighbouring inputs (see
        :func:`resolve_pairs`).
    view : audit ``view(output)`` instead of the raw output (post-processing); None: the views
        :func:`privcheck.auditor.autoviews.auto_view` picks by output type; False: raw outputs only.
    client : a Dask client (or ``"local"``/an address) for
        :func:`privcheck.base.scheduler.get_backend`; ``None``: threads (or processes
        for samplers with ``prefers_processes = True``).
    """
    confidence = check_confidence(confidence)
    samples = check_int("samples", samples, minimum=20)
    inputs, ordered = resolve_pairs(inputs, pairs, neighbours)
    selection_share = check_probability("selection_share", selection_share, open_low=True, open_high=True)
    max_events = check_int("max_events", max_events, minimum=1)
    if jobs is not None:
        jobs = check_int("jobs", jobs, minimum=1)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    needed = sorted({i for p in ordered for i in p})
    if not isinstance(sampler, Mechanism):  # user code: its failures are reported as the user's, by name
        sampler = guard_user_code(sampler)
    if view is None:  # views chosen by output type on a probe of their own (privcheck.auditor.autoviews)
        view = auto_view(sampler, [inputs[i] for i in needed], derive(ss, "autoview"), probe=probe_size(samples))
    sampler = apply_view(sampler, view or None)
    backend = get_backend(jobs=jobs, client=client, processes=getattr(sampler, "prefers_processes", False))
    alpha = 1.0 - confidence
    n_sel = max(10, int(round(samples * selection_share)))
    n_est = samples - n_sel
    reproducible, width = check_seeding(sampler, inputs[needed[0]])
    # the probe showed the output width: refuse what the pilot and the chunks would not fit (huge user outputs)
    check_audit_request(sampler, samples, jobs=jobs, width=width, n_inputs=len(needed), distributed=client is not None)

    # every stage is ONE map over all its inputs' chunks; the sampler and the inputs travel once (Dask: scattered)
    shared = AuditShared(sampler, inputs, needed)

    def stage(fn, name: str, n: int, which: list[int], reduce=None) -> dict:
        return run_stage(
            fn, shared, which, n, lambda i: derive(ss, name, i), backend=backend, progress=progress, reduce=reduce
        )

    # 1. pilot: the first draws of the selection share fix the coding
    n_pilot = min(n_sel, PILOT, max(2048, PILOT_VALUES // max(1, len(needed) * width)))
    pilot = {
        i: np.concatenate(parts) if len(parts) > 1 else parts[0]
        for i, parts in stage(_draw_matrix_at, "pilot", n_pilot, needed).items()
    }
    widths = {p.shape[1] for p in pilot.values()}
    if len(widths) != 1:
        raise PrivcheckUsageError(
            f"sampler outputs have different widths for different inputs ({sorted(widths)} columns): {_WIDTH_HINT}"
        )
    coding = OutputCoding.fit(np.concatenate([pilot[i] for i in needed]))
    counts: list = [None] * len(inputs)
    sizes = [0] * len(inputs)
    for i in needed:
        counts[i], sizes[i] = coding.count_chunk(pilot[i]), n_pilot
    cols = pair_columns(coding, counts, sizes, ordered, n_est, alpha / max_events, delta_eps)
    if cols:
        coding = coding.with_pair_columns(cols)
        for i in needed:
            counts[i] = coding.count_chunk(pilot[i])
    del pilot

    # 2. the rest of the selection share, streamed: counts only
    n_rest = n_sel - n_pilot
    if n_rest > 0:

        def sel_chunk(smp, x, i, rng, size):
            return coding.count_chunk(_check_width(_draw_matrix(smp, x, size, rng), coding.width))

        for i, part in stage(sel_chunk, "selection", n_rest, needed, reduce=_add_counts).items():
            _add_counts(counts[i], part)
            sizes[i] = n_sel
    events = candidate_events(
        coding,
        counts,
        sizes,
        ordered,
        n_est,
        alpha / max_events,
        max_events=max_events,
        delta_eps=delta_eps,
        labels=view.atom_labels(coding.width) if hasattr(view, "atom_labels") else None,
    )
    del counts
    cert = max_certifiable_log_ratio(n_est, n_est, alpha / max(1, len(events) or 1))
    if not events:
        return MonteCarloBound(
            -math.inf,
            confidence,
            samples,
            n_sel,
            n_est,
            cert,
            None,
            None,
            None,
            [],
            delta_eps,
            0.0 if delta_eps is not None else None,
            reproducible,
            n_pilot,
            len(ordered),
            n_sel * len(needed),
        )

    # 3. estimation on fresh draws: event counts only
    def est_chunk(smp, x, i, rng, size):
        return coding.count_events(_check_width(_draw_matrix(smp, x, size, rng), coding.width), events)

    m = len(events)
    est = stage(est_chunk, "estimation", n_est, sorted({i for ev in events for i in ev.pair}), reduce=np.add)
    a_each = alpha / m
    cands = []
    best = None
    for j, ev in enumerate(events):
        a, b = ev.pair
        k1, k0 = int(est[a][j]), int(est[b][j])
        lo = clopper_pearson(k1, n_est, a_each / 2, "lower")
        hi = clopper_pearson(k0, n_est, a_each / 2, "upper")
        eps_lo = math.log(lo / hi) if lo > 0 else -math.inf
        d_lo = delta_gap(lo, hi, delta_eps) if delta_eps is not None else None
        cands.append(
            {
                "pair": [_plain(inputs[a]), _plain(inputs[b])],
                "event": ev.description,
                "kind": ev.kind,
                "counts": [k1, n_est, k0, n_est],
                "p_lower": lo,
                "p_upper": hi,
                "eps_lower": eps_lo,
                "delta_lower": d_lo,
                "predicted": ev.predicted,
            }
        )
        key = d_lo if delta_eps is not None else eps_lo
        if best is None or key > best[0]:
            best = (key, j)
    bj = best[1]  # the candidate with the best bound (on ε, or on δ when asked for δ)
    eps_lower = max(c["eps_lower"] for c in cands)
    delta_lower = max(0.0, cands[bj]["delta_lower"]) if delta_eps is not None else None
    ev = events[bj]
    return MonteCarloBound(
        eps_lower=eps_lower,
        confidence=confidence,
        samples_per_input=samples,
        selection_samples=n_sel,
        estimation_samples=n_est,
        eps_max_certifiable=cert,
        worst_pair=(_plain(inputs[ev.pair[0]]), _plain(inputs[ev.pair[1]])),
        event=ev.description,
        counts=tuple(cands[bj]["counts"]),
        candidates=cands,
        delta_eps=delta_eps,
        delta_lower=delta_lower,
        reproducible=reproducible,
        pilot_samples=n_pilot,
        pairs_audited=len(ordered),
        draws=n_sel * len(needed) + n_est * len(est),
        view=getattr(view, "description", None),
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
    return max(0.0, delta_gap(lo, hi, bound.delta_eps))


def detectable_delta(bound: MonteCarloBound, delta_claimed: float) -> float | None:
    """The smallest δ violation these samples would detect: the least k/n whose counts (k of n, and 0 of n
    for the other input) give a δ lower bound above ``delta_claimed``; None when no count can.

    A power statement for the δ mode (same per-candidate error level as :func:`monte_carlo_bound`).
    """
    if bound.delta_eps is None:
        return None
    n = bound.estimation_samples
    a_each = (1.0 - bound.confidence) / max(1, len(bound.candidates))
    hi = clopper_pearson(0, n, a_each / 2, "upper")
    if delta_gap(clopper_pearson(n, n, a_each / 2, "lower"), hi, bound.delta_eps) <= delta_claimed:
        return None
    lo_k, hi_k = 0, n  # invariant: count hi_k detects, lo_k does not
    while hi_k - lo_k > 1:
        mid = (lo_k + hi_k) // 2
        if delta_gap(clopper_pearson(mid, n, a_each / 2, "lower"), hi, bound.delta_eps) > delta_claimed:
            hi_k = mid
        else:
            lo_k = mid
    return hi_k / n


def mc_decision(bound: MonteCarloBound, eps_claimed: float, delta_claimed: float = 0.0) -> tuple[str, str | None]:
    """Verdict of a Monte Carlo audit against a claimed (ε, δ), with the reason when not plain.

    ``refuted`` when the lower bound exceeds the claim (valid at the bound's
    confidence). ``inconclusive`` when these sample sizes could not certify
    more than the claimed ε, or when no event separated the inputs
    (``eps_lower ≤ 0``): then the audit had no power and "holds" would not be
    evidence (in both modes). With a claimed δ > 0 the power statement is about δ: inconclusive
    when no event separated the inputs, or when these samples could not certify a δ above the claimed δ at the
    claimed ε (:func:`max_certifiable_delta`; a correct mechanism's δ lower
    bound is 0 there, which is no reason to doubt it). Otherwise ``holds``,
    meaning *no violation detected*: sampling can refute a claim, never prove it.
    """
    no_event = "no event separated the inputs (eps_lower <= 0): the audit had no power"
    if bound.delta_lower is not None and delta_claimed > 0:
        if bound.delta_lower > delta_claimed:
            return "refuted", None
        if not bound.eps_lower > 0:
            return "inconclusive", no_event
        if max_certifiable_delta(bound) <= delta_claimed:
            return "inconclusive", (
                f"{bound.estimation_samples} estimation draws per input can certify at most "
                f"delta {max_certifiable_delta(bound):.4g} at eps {bound.delta_eps:g}, "
                f"not more than the claimed {delta_claimed:g}"
            )
        return "holds", None  # no violation detected by an audit that could detect one of the claimed size
    if bound.eps_lower > eps_claimed:
        return "refuted", None
    if bound.eps_max_certifiable <= eps_claimed:
        return "inconclusive", (
            f"{bound.estimation_samples} estimation draws per input can certify at most "
            f"eps {bound.eps_max_certifiable:.4g}, not more than the claimed {eps_claimed:g}"
        )
    if not bound.eps_lower > 0:
        return "inconclusive", no_event
    return "holds", None


def mc_verdict(bound: MonteCarloBound, eps_claimed: float, delta_claimed: float = 0.0) -> str:
    """The verdict of :func:`mc_decision` alone."""
    return mc_decision(bound, eps_claimed, delta_claimed)[0]


def _check_claimed_eps(eps) -> float:
    if isinstance(eps, float) and math.isinf(eps) and eps > 0:
        return eps
    try:
        if not isinstance(eps, bool) and float(eps) == 0.0:
            return 0.0  # a perfect-privacy claim: audited like any other
    except (TypeError, ValueError):
        pass
    return check_eps(eps)


@one_backend_per_call
def audit(
    mech: Mechanism | Sampler,
    inputs: Sequence | None = None,
    eps: float | None = None,
    samples: int = DEFAULT_SAMPLES,
    *,
    pairs=None,
    neighbours: Callable | None = None,
    view: Callable | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    exact: bool | None = None,
    monte_carlo: bool = True,
    delta: float | None = None,
    jobs: int | None = None,
    client=None,
    max_events: int = MAX_EVENTS,
    selection_share: float = SELECTION_SHARE,
    progress: Callable[[int], None] | None = None,
    mu: float | None = None,
    accountant=None,
    curve: bool = True,
) -> AuditResult:
    """Audit the ε (and δ) of a mechanism or of a plain sampler, or its μ-GDP or accountant curve.

    Parameters
    ----------
    mech : a built-in mechanism (``privcheck.mechanism(...)``) or a callable
        ``f(x, n, rng) -> n outputs``.
    inputs : candidate inputs (default: ``mech.inputs()``, or the elements of
        ``pairs``; required for a callable otherwise). Alone, all ordered pairs
        are audited (local DP).
    pairs : ``[(x, x'), ...]`` neighbouring inputs (central DP); both orders of
        each pair are audited, no other pair.
    neighbours : ``neighbours(x, x') -> bool`` selecting the neighbouring pairs
        of ``inputs`` (either order); exclusive with ``pairs``.
    view : audit ``view(outputs)`` instead of the raw outputs (post-processing; None: chosen by
        output type, :mod:`privcheck.auditor.autoviews`; False: raw outputs only);
        applied to every chunk before coding.
    eps : claimed ε ≥ 0 (0 claims perfect privacy; default: the mechanism's
        nominal ε; required for a callable).
    samples : Monte Carlo draws per input (≥ 20), or ``"auto"`` / ``"auto:key=value,..."`` /
        :class:`~privcheck.auditor.adaptive.Auto`: rounds on fresh draws (growing by ``growth``, 4 by default,
        cut to what the best event predicts) until 95 % of the claimed ε is certified or 10⁷ draws per input
        are spent, with alpha spending across rounds (:mod:`privcheck.auditor.adaptive`).
    seed : integer ≥ 0; all randomness derives from it.
    confidence : in (0, 1).
    exact : compute the exact ε (default: when the mechanism provides it;
        ``True`` on a mechanism without it is an error).
    monte_carlo : run the Monte Carlo lower bound.
    delta : claimed δ in [0, 1) (default: the mechanism's nominal δ); with
        δ > 0 the Monte Carlo part bounds δ at the claimed ε, and (``curve=True``)
        ``eps_lower_at_delta`` is certified from trade-off points on draws of
        their own (reported at ``confidence`` by itself; the verdict stays the δ test's;
        skipped below 100 samples).
    mu : a μ-GDP claim (μ > 0) instead of ``eps``: refuted when an empirical
        (α, β) box lies below ``G_μ``; the result has ``mu_lower``
        (:mod:`privcheck.auditor.curves`).
    accountant : an accountant with ``tradeoff(alpha)`` (a composed
        ``PLDAccountant``) instead of ``eps``: refuted when a box lies below its
        certified curve's lower end. A mechanism with ``accountant()`` and no
        finite ε claim (``dp-sgd``) is audited against it by default. With such a
        curve claim, ``delta`` (in [0, 1)) adds ``eps_lower_at_delta``, the certified ε
        lower bound at that δ from the same trade-off points (the verdict stays the curve's).
    jobs, client : workers of the chunk backend (threads by default; a Dask
        client or ``"local"``; see :func:`privcheck.base.scheduler.get_backend`). One client
        serves every stage, round and curve draw of the audit (a ``"local"`` cluster
        starts once, at the first draw, and is closed when the audit returns or raises);
        pass a backend from ``get_backend(client=...)`` to reuse one across audits.

    Returns an :class:`AuditResult`; its ``verdict`` is ``refuted`` when the
    exact ε or a valid lower bound exceeds the claim, ``holds`` when the exact
    ε meets it (or, without an exact value, when no violation was detected by
    an audit that separated the inputs), ``inconclusive`` otherwise (``reason``
    says why). ``certified_fraction`` reports how much of the claim was certified.
    """
    from privcheck.auditor.adaptive import Auto, parse_samples

    t0 = time.perf_counter()
    is_mech = isinstance(mech, Mechanism)
    name = mech.name if is_mech else getattr(mech, "__name__", type(mech).__name__)
    if not callable(mech):
        raise PrivcheckUsageError("audit needs a mechanism or a callable f(x, n, rng)")
    planned = 0  # the most draws per input this audit may take (an adaptive audit's budget)
    if monte_carlo:
        if isinstance(samples, (str, Auto)):  # samples="auto" or Auto(...): rounds (privcheck.auditor.adaptive)
            samples = parse_samples(samples)
            planned = samples.max_draws
        else:
            samples = planned = check_int("samples", samples, minimum=20)
    if is_mech:  # refused from the parameters before the inputs are built (d = 10^9 would exhaust memory)
        check_audit_request(mech, planned, jobs=jobs, monte_carlo=monte_carlo, distributed=client is not None)
    elif monte_carlo:
        check_samples(planned, "samples", distributed=client is not None)
    if inputs is None and pairs is None:
        if not is_mech:
            raise PrivcheckUsageError("audit of a plain callable needs inputs=[x0, x1, ...] (or pairs=[(x0, x1), ...])")
        inputs = mech.inputs()
    inputs, _ = resolve_pairs(inputs, pairs, neighbours)
    from privcheck.auditor.curves import audit_curve_claim, curve_bound, curve_details, curve_fields, resolve_claim

    claim = resolve_claim(mech, mu, accountant, eps)
    if claim is not None and not isinstance(samples, (int, np.integer)):
        raise PrivcheckUsageError(
            "samples='auto' is for ε claims; a μ-GDP or accountant claim takes a number of samples"
        )
    if claim is not None:
        return audit_curve_claim(
            mech,
            name,
            claim,
            inputs,
            samples,
            t0=t0,
            pairs=pairs,
            neighbours=neighbours,
            view=view,
            seed=seed,
            confidence=confidence,
            jobs=jobs,
            client=client,
            progress=progress,
            monte_carlo=monte_carlo,
            exact=exact,
            delta=delta,
        )
    if eps is None:
        if not is_mech:
            raise PrivcheckUsageError("audit of a plain callable needs the claimed eps=...")
        eps = mech.eps_nominal
    eps = _check_claimed_eps(eps)
    if delta is None:
        delta = mech.delta_nominal if is_mech else 0.0
    delta = check_probability("delta", delta, open_high=True)
    seed = check_int("seed", seed, minimum=0)
    details: dict = {}
    ex: ExactEpsilon | None = None
    restricted = pairs is not None or neighbours is not None or (view is not None and view is not False)
    if restricted and is_mech:
        if exact:
            raise PrivcheckUsageError(
                "exact ε covers the raw outputs of all input pairs; it cannot be combined "
                "with pairs=, neighbours= or view= (use exact=False)"
            )
        exact = False
        details["exact_note"] = "exact ε skipped: pairs=/neighbours=/view= restrict what is audited"
    if is_mech and delta > 0 and delta != mech.delta_nominal and hasattr(mech, "with_delta"):
        mech = mech.with_delta(delta)  # --delta D audits the same (ε, δ) claim as --param delta=D
    if exact is not False and is_mech:
        ex = mech.exact_epsilon()
        if ex is None and exact:
            raise PrivcheckUsageError(f"mechanism {name!r} has no exact output distribution; use --no-exact")
    elif exact and not is_mech:
        raise PrivcheckUsageError("exact ε needs a built-in mechanism with known probabilities")
    delta_exact = None
    v_exact = None
    if ex is not None:
        details.update(
            exact_pair=_plain_pair(ex.worst_pair),
            exact_output=_plain(ex.worst_output),
            exact_method=ex.method,
            exact_note=ex.note,
        )
        if delta > 0 and hasattr(mech, "delta_at"):
            delta_exact = float(mech.delta_at(eps))
            v_exact = "holds" if delta_exact <= delta * (1 + 1e-9) else "refuted"
        else:
            v_exact = exact_verdict(ex.eps, eps)
    bound = None
    v_mc = None
    reason = None
    if monte_carlo:
        t_mc = time.perf_counter()
        mc = dict(
            confidence=confidence,
            seed=seed,
            jobs=jobs,
            max_events=max_events,
            selection_share=selection_share,
            delta_eps=eps if delta > 0 else None,
            progress=progress,
            pairs=pairs,
            neighbours=neighbours,
            view=view,
            client=client,
        )
        if not isinstance(samples, (int, np.integer, float)):  # samples="auto" or Auto(...)
            from privcheck.auditor.adaptive import adaptive_bound

            bound, adaptive = adaptive_bound(mech, inputs, samples, eps=eps, **mc)
            details["adaptive"] = adaptive.to_dict()
        else:
            bound = monte_carlo_bound(mech, inputs, samples, **mc)
        t_mc = time.perf_counter() - t_mc
        details["draws"] = bound.draws
        details["draws_per_second"] = round(bound.draws / t_mc, 1) if t_mc > 0 else None
        v_mc, reason = mc_decision(bound, eps, delta)
        if bound.delta_eps is not None:
            details["delta_max_certifiable"] = max_certifiable_delta(bound)
            details["delta_detectable"] = detectable_delta(bound, delta)
        details["candidates"] = bound.candidates
        details["selection_samples"] = bound.selection_samples
        details["estimation_samples"] = bound.estimation_samples
        details["pilot_samples"] = bound.pilot_samples
        details["pairs_audited"] = bound.pairs_audited
        if bound.view:
            details["auto_view"] = bound.view
        if not bound.reproducible:
            details["reproducibility"] = NOT_REPRODUCIBLE
    extra: dict = {}
    from privcheck.auditor.curves import MIN_SAMPLES as CURVE_MIN_SAMPLES

    if monte_carlo and delta > 0 and curve and isinstance(samples, (int, np.integer)) and samples >= CURVE_MIN_SAMPLES:
        cb = curve_bound(
            mech,
            inputs,
            samples,
            delta=delta,
            confidence=confidence,
            seed=seed,
            jobs=jobs,
            pairs=pairs,
            neighbours=neighbours,
            view=view,
            client=client,
            progress=progress,
        )
        extra = curve_fields(cb)
        details.update(curve_details(cb))
    if "refuted" in (v_exact, v_mc):
        verdict = "refuted"
        reason = None
    elif v_exact == "holds" or (v_exact is None and v_mc == "holds"):
        verdict = "holds"
        reason = None
    else:
        verdict = "inconclusive"
    if v_exact == "holds" and v_mc == "refuted":
        details["warning"] = "the Monte Carlo bound exceeds the exact ε: a (1 − confidence) event or a bug"
    fraction = None
    if bound is not None and eps > 0 and math.isfinite(eps):
        fraction = max(bound.eps_lower, 0.0) / eps
    return AuditResult(
        mechanism=name if not is_mech else repr(mech),
        eps_claimed=eps,
        eps_exact=None if ex is None else ex.eps,
        eps_exact_text=None if ex is None else ex.eps_text,
        eps_lower=None if bound is None else bound.eps_lower,
        confidence=confidence,
        samples=bound.samples_per_input if bound is not None else 0,
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
        certified_fraction=fraction,
        reason=reason,
        **extra,
    )


def _plain_pair(pair):
    return [_plain(p) for p in pair] if pair is not None else None
