"""Post-processing views: audit ``view(outputs)`` instead of the raw outputs.

Why it is valid. If a mechanism ``M`` is ε-DP (or (ε, δ)-DP), so is ``g ∘ M``
for every function ``g`` that does not look at the private input
(post-processing). Conversely, a valid lower bound on the ε of ``g ∘ M`` is a
lower bound on the ε of ``M``. A view may therefore discard or reshape
information (it can only lose power), but it must depend on nothing but the
output and public constants — never on the input ``x`` that produced it.

Why it helps. Some reports are unique almost every time — a local-hashing
report ``(seed, value)`` carries a fresh random hash seed — so no output
event repeats often enough to be estimated and the raw audit is vacuous. The
view :func:`local_hashing_support` maps each report to the set of candidate
inputs it supports, a small bit vector on which the auditor finds the
likelihood-ratio events (``{x supported ∧ x' not}``) at full power.

Convention. A view receives the *batch* the sampler returned for ``n`` draws
(a numpy array or a list, e.g. from :func:`privcheck.per_sample`) and returns
``n`` viewed outputs; lift a one-output function with :func:`per_output`.
Views are module-level classes, so they pickle for process and Dask workers.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from privcheck.auditor.outputs import _object_codes
from privcheck.auditor.per_sample import callable_name
from privcheck.base.errors import PrivcheckUsageError


class Viewed:
    """The sampler ``x, n, rng -> view(sampler(x, n, rng))`` (what the auditor samples with ``view=``)."""

    def __init__(self, sampler: Callable, view: Callable):
        if not callable(view):
            raise PrivcheckUsageError(f"view must be a callable view(outputs) -> outputs, got {type(view).__name__}")
        self.sampler = sampler
        self.view = view
        self.__name__ = (
            f"{getattr(sampler, '__name__', type(sampler).__name__)}|{getattr(view, '__name__', type(view).__name__)}"
        )

    @property
    def prefers_processes(self) -> bool:
        """Inherited from the wrapped sampler (per-sample code prefers worker processes)."""
        return bool(getattr(self.sampler, "prefers_processes", False))

    def __call__(self, x: Any, n: int, rng: np.random.Generator):
        """``n`` viewed outputs at input ``x``."""
        return self.view(self.sampler(x, n, rng))

    def __repr__(self) -> str:
        return f"view({self.view!r}) of {self.sampler!r}"


def apply_view(sampler: Callable, view: Callable | None) -> Callable:
    """``sampler`` itself when ``view`` is None or False (raw outputs), else :class:`Viewed` ``(sampler, view)``."""
    return sampler if view is None or view is False else Viewed(sampler, view)


class PerOutput:
    """A view applying a one-output function to each output of the batch (see :func:`per_output`)."""

    def __init__(self, fn: Callable):
        if not callable(fn):
            raise PrivcheckUsageError(f"per_output needs a callable fn(output), got {type(fn).__name__}")
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, outputs) -> list:
        fn = self.fn
        return [fn(o) for o in outputs]

    def __repr__(self) -> str:
        return f"per_output({callable_name(self.fn)})"


def per_output(fn: Callable) -> PerOutput:
    """The view ``outputs -> [fn(o) for o in outputs]`` (``fn`` maps one output to one output)."""
    return PerOutput(fn)


class AsAtom:
    """A view making each whole output one atom (a code of the whole value)."""

    __name__ = "as_atom"

    def __call__(self, outputs) -> np.ndarray:
        if isinstance(outputs, np.ndarray) and outputs.dtype != object:
            if outputs.ndim == 1:
                return outputs
            outputs = list(outputs.reshape(len(outputs), -1))
        return _object_codes([tuple(o.tolist()) if isinstance(o, np.ndarray) else o for o in outputs])

    def __repr__(self) -> str:
        return "as_atom"


as_atom = AsAtom()
"""View: each output becomes one atom (use for outputs of varying length or type, whose
positional encoding could change width from chunk to chunk)."""


class Membership:
    """A view of set-valued outputs as membership bit vectors over a domain (see :func:`membership`)."""

    def __init__(self, domain: Sequence):
        domain = list(domain)
        if not domain:
            raise PrivcheckUsageError("membership needs a non-empty domain of possible items")
        self.domain = domain
        self.__name__ = "membership"

    def __repr__(self) -> str:
        return f"membership(domain of {len(self.domain)})"

    def __call__(self, outputs) -> np.ndarray:
        """``(n, len(domain))`` uint8: entry ``[i, j]`` is 1 when ``domain[j]`` is in output ``i``."""
        index: dict = {}
        for j, item in enumerate(self.domain):
            index.setdefault(item, j)
        out = np.zeros((len(outputs), len(self.domain)), dtype=np.uint8)
        for i, o in enumerate(outputs):
            if isinstance(o, np.ndarray):
                o = o.ravel().tolist()
            try:
                cols = [index[v] for v in o if v in index]
            except TypeError:
                raise PrivcheckUsageError(
                    f"membership needs outputs that are collections of items, got {type(o).__name__}"
                ) from None
            out[i, cols] = 1
        return out


def membership(domain: Sequence) -> Membership:
    """View: each output (a set, or any collection of items) → its membership bit vector over ``domain``.

    For subset-valued mechanisms (k-subset, PrivSet, sampled Hadamard
    indices…) the whole-set atoms are many (``C(d, k)``) and each is rare;
    membership bits let the auditor use single-item and item-pair events
    (``{a ∈ S ∧ b ∉ S}``). Items outside ``domain`` are ignored. A
    deterministic function of the output: valid by post-processing.
    """
    return Membership(domain)


class Chain:
    """Views applied one after the other (see :func:`chain`)."""

    def __init__(self, *views: Callable):
        for v in views:
            if not callable(v):
                raise PrivcheckUsageError(f"chain needs callables view(outputs), got {type(v).__name__}")
        self.views = views
        self.__name__ = "|".join(getattr(v, "__name__", type(v).__name__) for v in views)

    def __call__(self, outputs):
        for v in self.views:
            outputs = v(outputs)
        return outputs

    def __repr__(self) -> str:
        return "chain(" + ", ".join(repr(v) for v in self.views) + ")"


def chain(*views: Callable) -> Chain:
    """The view applying ``views`` left to right (a composition of post-processings is one)."""
    return Chain(*views)


class LocalHashingSupport:
    """View of local-hashing reports as support bit vectors over candidate inputs (see
    :func:`local_hashing_support`)."""

    def __init__(
        self,
        hash_fn: Callable,
        domain: Sequence,
        g: int | None = None,
        *,
        vectorised: bool = False,
        seed_first: bool = True,
    ):
        if not callable(hash_fn):
            raise PrivcheckUsageError(
                f"hash_fn must be a callable hash_fn(x, seed) -> int, got {type(hash_fn).__name__}"
            )
        domain = list(domain)
        if not domain:
            raise PrivcheckUsageError("local_hashing_support needs a non-empty domain of candidate inputs")
        if g is not None and (isinstance(g, bool) or not isinstance(g, (int, np.integer)) or g < 2):
            raise PrivcheckUsageError(f"g (the hash range) must be an integer >= 2, got {g!r}")
        self.hash_fn = hash_fn
        self.domain = domain
        self.g = None if g is None else int(g)
        self.vectorised = bool(vectorised)
        self.seed_first = bool(seed_first)
        self.__name__ = "local_hashing_support"

    def __repr__(self) -> str:
        return f"local_hashing_support({callable_name(self.hash_fn)}, domain of {len(self.domain)}, g={self.g})"

    def _reports(self, outputs) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(outputs, np.ndarray) and outputs.dtype != object:
            if outputs.ndim != 2 or outputs.shape[1] != 2:
                raise PrivcheckUsageError(
                    f"local-hashing reports must be (seed, value) pairs, got an array of shape {outputs.shape}"
                )
            return (outputs[:, 0], outputs[:, 1]) if self.seed_first else (outputs[:, 1], outputs[:, 0])
        seeds, values = [], []
        for o in outputs:
            if isinstance(o, dict):
                o = (o.get("seed"), o.get("value"))
            try:
                s, v = o if self.seed_first else tuple(o)[::-1]
            except (TypeError, ValueError):
                raise PrivcheckUsageError(
                    f"local-hashing reports must be (seed, value) pairs, got {type(o).__name__} {o!r:.60}"
                ) from None
            seeds.append(s)
            values.append(v)
        return np.asarray(seeds, dtype=object), np.asarray(values)

    def __call__(self, outputs) -> np.ndarray:
        """``(n, len(domain))`` uint8: entry ``[i, j]`` is 1 when report ``i`` supports ``domain[j]``."""
        seeds, values = self._reports(outputs)
        n = len(values)
        out = np.zeros((n, len(self.domain)), dtype=np.uint8)
        g = self.g
        for j, x in enumerate(self.domain):
            if self.vectorised:
                h = np.asarray(self.hash_fn(x, seeds if seeds.dtype != object else np.asarray(seeds.tolist())))
            else:
                h = np.fromiter((self.hash_fn(x, s) for s in seeds.tolist()), dtype=np.int64, count=n)
            if g is not None:
                h = np.mod(h, g)
            out[:, j] = h == values
        return out


def local_hashing_support(
    hash_fn: Callable, domain: Sequence, g: int | None = None, *, vectorised: bool = False, seed_first: bool = True
) -> LocalHashingSupport:
    """View for local-hashing LDP reports (OLH, BLH, FLH): ``(seed, value)`` → support vector.

    Local hashing (Wang et al., USENIX Security 2017) reports a public random
    hash function ``H_seed: domain → [g]`` and a randomised value ``v`` of
    ``H_seed(x)``; the report *supports* every candidate ``x'`` with
    ``H_seed(x') = v``. This view maps each report to the bit vector
    ``(1{hash_fn(x', seed) mod g = v})`` over ``domain``. It only uses the
    report and public constants (the hash function, the domain, ``g``), so it
    is post-processing and every ε lower bound certified on it holds for the
    raw mechanism. For OLH the event ``{x supported ∧ x' not}`` has likelihood
    ratio exactly ``p/q = e^ε``, so the view loses no power there; on raw
    reports (a fresh seed in nearly every report) the audit is vacuous.

    Parameters
    ----------
    hash_fn : ``hash_fn(x, seed) -> int``, the mechanism's hash (e.g. for
        pure-ldp ``lambda x, s: xxhash.xxh32(str(x), seed=s).intdigest()``);
        with ``vectorised=True`` it is called as ``hash_fn(x, seeds_array)``
        and returns an integer array.
    domain : the candidate inputs whose support is recorded (include the
        audited inputs; other values only add columns).
    g : the hash range; when given, hashes are reduced mod ``g`` (omit when
        ``hash_fn`` already returns values in ``[0, g)``).
    seed_first : reports are ``(seed, value)`` (default) or, when False,
        ``(value, seed)`` (pure-ldp's ``LHClient.privatise``).
    """
    return LocalHashingSupport(hash_fn, domain, g, vectorised=vectorised, seed_first=seed_first)
