"""The sampler contract every audit rests on: fresh i.i.d. draws from the generator it is given.

A sampler ``f(x, n, rng)`` must return ``n`` *independent* draws of the mechanism at input ``x``, made from
``rng`` (or from any randomness the caller's seeding does not fix, e.g. OS entropy). The selection and the
estimation stages call it with disjoint seed streams, and the bound is valid because their draws are
independent (:mod:`privcheck.auditor.stages`). What breaks the contract, and what is checked:

- **a sampler that seeds itself** (ignores ``rng``): its draws under different seeds are identical, so
  selection and estimation would see the same draws — :func:`check_seeding` refuses it (a usage error);
- **a fixed sample, shuffled**: the draws under different seeds are one multiset in a different order
  (``rng.permutation(fixed)``) — :func:`check_seeding` refuses it too;
- **a fixed pool resampled** (``rng.choice(pool, n)`` with ``pool`` drawn once): every call is an honest
  i.i.d. sample — of the pool's empirical law, not of the mechanism. Measured: 20 of 20 pools of 5000 draws of
  a correct Laplace mechanism refuted at ε = 1 (200 000 samples; the pool's values are atoms only one input
  produces), and 10 of 20 pools of 2000 draws of a correct randomised response (1 000 000 samples; the pool's
  likelihood ratio exceeds the true one for about half the pools, and enough draws certify it), where 0 of 20
  fresh samplers were. Where the outputs are continuous this shows: full-precision float values recur among
  the pilot draws, which fresh draws from a continuous law almost never do, and the recurring values of one
  input are not drawn at the other (:func:`pool_reason`, checked on the pilot of every ε audit by the code
  stage, and on a probe of its own by every curve audit) — refused with a usage error that says so.

Not detectable, hence the documented contract: a pool of *discrete* outputs resampled with replacement (its
draws are i.i.d. from a finite law, and no test on outputs tells that law from a mechanism's: the randomised
response pools above pass every check), a pool of continuous outputs so large that its values rarely recur in
the pilot (500 000 values for a 200 000-sample audit: it then deviates from the mechanism's law by little), a
pool behind the curve audits (μ, accountant claims: they keep no pilot), and any dependence between calls that
the seeds do not show. Why a usage error rather than a
verdict: an audit of the pool answers a question nobody asked (its "refuted" is wrong about the mechanism half
the time and its "holds" is no evidence), exactly as for a self-seeding sampler; an explicit ``view=`` states
that the values are the mechanism's own finite output set and skips the pool check.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from privcheck.auditor.coding import to_matrix
from privcheck.auditor.target import Pairs, plain
from privcheck.base.errors import PrivcheckUsageError

#: seeds of the seeding probe (:func:`check_seeding`); any fixed distinct values do
PROBE_SEEDS = (12345, 54321, 777, 999, 4242, 31337)
#: the note recorded for samplers whose randomness numpy's seeding does not control
NOT_REPRODUCIBLE = "not reproducible: the sampler ignores numpy seeding"
#: a shuffled fixed sample is confirmed on batches of this many draws, each category seen this often at least
CONFIRM_DRAWS = 4096
MIN_CATEGORY = 256
#: pool check: a float column is a resampled pool when at one input at least POOL_SHARE of the draws repeat one
#: of at least POOL_VALUES distinct full-precision values (median trailing zero bits of the mantissa below
#: POOL_PRECISION), and at most POOL_SHARED of those values occur in the draws at any input it is compared with
POOL_SHARE = 0.1
POOL_VALUES = 16
POOL_PRECISION = 12
POOL_SHARED = 0.1
#: at most this many float columns are checked (a pool of rows repeats in every column)
POOL_COLUMNS = 8
#: the usage error's advice
CONTRACT = (
    "the auditor needs fresh i.i.d. draws from the rng argument on every call; if the mechanism really outputs "
    "a finite set of such values, pass an explicit view= (e.g. view=privcheck.auditor.views.as_atom)"
)


def draw_matrix(sampler: Callable, x: Any, size: int, rng: np.random.Generator) -> Any:
    """``size`` draws of ``sampler`` at ``x`` as a numeric matrix (:func:`privcheck.auditor.coding.to_matrix`)."""
    return to_matrix(sampler(x, size, rng), size)


def sampler_label(sampler: Any, name: str | None = None) -> str:
    """The name to show for a sampler in messages: the user's code behind any view wrapper."""
    inner = sampler
    while hasattr(inner, "view") and hasattr(inner, "sampler"):  # a view (explicit or automatic): name the code
        inner = inner.sampler
    return str(name or getattr(inner, "user_label", None) or getattr(inner, "__name__", "the sampler"))


def check_seeding(sampler: Callable, x: Any, name: str | None = None) -> tuple[bool, int]:
    """Probe how ``sampler`` uses the generator it is given: ``(reproducible, output width)``.

    Draws a small batch at input ``x`` twice with one seed and once with
    another. Same seed → same draws: reproducible. Draws identical under two
    *different* seeds while varying within the batch mean the sampler ignores
    the generator and seeds itself (a fixed internal seed): its selection and
    estimation draws would be the same draws and no bound would be valid, so
    this raises :class:`PrivcheckUsageError` (confirmed on a larger batch under
    two more seeds first, so that a low-entropy sampler matching by chance is
    not refused). The same holds for draws that are one multiset in a different
    order under different seeds (a fixed sample shuffled with ``rng``), confirmed
    on :data:`CONFIRM_DRAWS`-draw batches under four more seeds. Draws that differ
    under the same seed (OS entropy, a library with its own unseeded state) are
    valid — every stage gets fresh draws — but not reproducible (``False``).
    A constant (deterministic) sampler is reproducible.
    """
    s1, s2, s3, s4 = PROBE_SEEDS[:4]
    a = draw_matrix(sampler, x, 64, np.random.default_rng(s1))
    same = _equal(a, draw_matrix(sampler, x, 64, np.random.default_rng(s1)))
    if _varies(a):
        c = draw_matrix(sampler, x, 64, np.random.default_rng(s2))
        if same and _equal(a, c) and _confirm(sampler, x, (s3, s4), 2048, _equal):
            raise PrivcheckUsageError(
                f"{sampler_label(sampler, name)} ignores the generator it is given and seeds itself: its draws "
                "under different seeds are identical, so selection and estimation would reuse the same draws and "
                "no bound would be valid; draw from the rng argument (for code using numpy's global generator: "
                "per_sample(fn, seed_global=True))"
            )
        if _same_multiset(a, c) and _confirm(sampler, x, PROBE_SEEDS[2:], CONFIRM_DRAWS, _same_multiset):
            raise PrivcheckUsageError(
                f"{sampler_label(sampler, name)} returns one fixed sample shuffled: its draws under different seeds "
                "are the same values in another order, so selection and estimation would see the same values and "
                f"no bound would be valid; {CONTRACT}"
            )
    return same, a.shape[1]


def _confirm(sampler: Callable, x: Any, seeds, n: int, alike: Callable) -> bool:
    """Whether batches of ``n`` draws under every seed of ``seeds`` are pairwise ``alike`` (and vary)."""
    first = draw_matrix(sampler, x, n, np.random.default_rng(seeds[0]))
    if not _varies(first) or (alike is _same_multiset and not _common_enough(first)):  # chance agreement
        return False
    return all(alike(first, draw_matrix(sampler, x, n, np.random.default_rng(s))) for s in seeds[1:])


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def _varies(a: np.ndarray) -> bool:
    """Whether the rows of a draw matrix are not all the same (the sampler is random at all)."""
    return len(a) > 1 and not _equal(a, np.broadcast_to(a[:1], a.shape))


def _rows_sorted(a: np.ndarray) -> np.ndarray:
    return a[np.lexsort(a.T[::-1])] if a.ndim == 2 and a.shape[1] else a


def _same_multiset(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two draw matrices hold the same rows in a different order."""
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray) or a.shape != b.shape or _equal(a, b):
        return False
    return _equal(_rows_sorted(a), _rows_sorted(b))


def _common_enough(a: np.ndarray) -> bool:
    """Whether every distinct row of ``a`` occurs :data:`MIN_CATEGORY` times or more (or no row repeats at all):
    then independent batches agree as multisets by chance with negligible probability."""
    if not isinstance(a, np.ndarray):
        return False
    _, counts = np.unique(a, axis=0, return_counts=True)
    return bool(counts.min() >= MIN_CATEGORY or counts.max() == 1)


# ----------------------------------------------------------------------------- resampled pools
def _trailing_zeros(v: np.ndarray) -> np.ndarray:
    mant = np.ascontiguousarray(v, dtype=np.float64).view(np.uint64) & np.uint64((1 << 52) - 1)
    low = mant & (~mant + np.uint64(1))
    return np.where(mant == 0, 52, np.bitwise_count(low - np.uint64(1)))


def _recurring(col: np.ndarray) -> tuple[np.ndarray, float]:
    """The full-precision non-integer values that recur in ``col`` and the share of its values they cover."""
    vals = col[np.isfinite(col)]
    vals = vals[vals != np.round(vals)]
    if len(vals) < 4 * POOL_VALUES:
        return vals[:0], 0.0
    u, counts = np.unique(vals, return_counts=True)
    rep = u[counts > 1]
    share = float(counts[counts > 1].sum()) / len(vals)
    if len(rep) < POOL_VALUES or share < POOL_SHARE or np.median(_trailing_zeros(rep)) >= POOL_PRECISION:
        return vals[:0], 0.0
    return rep, share


def pool_reason(draws: dict[int, Any], ordered: Pairs, inputs: list) -> str | None:
    """Why the draws ``{input index: (n, width) matrix}`` look like a resampled pool of continuous values,
    or None (the thresholds are in the module's constants; see the module docstring)."""
    for a in sorted(draws):
        m = draws[a]
        if not isinstance(m, np.ndarray) or m.dtype.kind != "f":
            continue
        partners = [b for x, b in ordered if x == a and b in draws]
        for j in range(min(m.shape[1], POOL_COLUMNS)):
            rep, share = _recurring(m[:, j])
            if not len(rep) or not partners:
                continue
            shared = max(float(np.isin(rep, draws[b][:, j]).mean()) for b in partners)
            if shared <= POOL_SHARED:
                return (
                    f"at input {plain(inputs[a])!r}, {share:.0%} of {len(m)} draws repeat one of {len(rep)} "
                    f"full-precision values{'' if m.shape[1] == 1 else f' (column {j})'}, and {shared:.0%} of "
                    "those values are drawn at the inputs it is compared with; fresh draws from a continuous law "
                    "almost never repeat a value"
                )
    return None


def check_pool(draws: dict[int, Any], ordered: Pairs, inputs: list, sampler: Any) -> None:
    """Raise :class:`PrivcheckUsageError` (one line) when :func:`pool_reason` finds a resampled pool."""
    reason = pool_reason(draws, ordered, inputs)
    if reason is not None:
        raise PrivcheckUsageError(
            f"{sampler_label(sampler)} looks like it resamples a fixed pool: {reason}; {CONTRACT}"
        )
