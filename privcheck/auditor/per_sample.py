"""Per-sample code (one output per call) as an auditor sampler ``f(x, n, rng)``.

Most libraries privatise one value per call. :func:`per_sample` wraps such a
function so that the auditor can draw ``n`` outputs at once::

    import privcheck

    def rr(x, rng):                       # one output per call, using the given generator
        return x if rng.random() < 0.73 else 1 - x

    privcheck.audit(privcheck.per_sample(rr), inputs=[0, 1], eps=1.0)

Seeding. The auditor gives every chunk of draws its own generator (derived
from the run's seed and the chunk index), and the wrapper hands it on:

- ``fn(x, rng)``: ``rng`` is that :class:`numpy.random.Generator`;
- ``rng_type="random_state"``: ``rng`` is a :class:`numpy.random.RandomState`
  seeded from it (one per chunk), for libraries that take ``random_state=``
  (scikit-learn style), e.g. diffprivlib::

      def laplace(x, rs):
          return Laplace(epsilon=1.0, sensitivity=1.0, random_state=rs).randomise(x)

      privcheck.per_sample(laplace, rng_type="random_state")

  (``examples/third_party.py`` builds the mechanism once per chunk instead,
  which is faster);
- ``fn(x)`` (no generator parameter) with ``seed_global=True``: before each
  chunk the global generators ``numpy.random`` (``np.random.seed``) and
  ``random`` (``random.seed``) are seeded from the chunk's generator, which makes
  libraries that draw from the global state reproducible. Seeded chunks then
  hold a lock while they run (global state cannot be shared by threads), so
  use ``jobs > 1`` with the process backend for speed.

Without a generator and without ``seed_global`` the results are not
reproducible (the audit says "not reproducible: the sampler ignores numpy
seeding") but remain valid: every stage draws afresh. Code that seeds itself
(the same draws whatever generator it is given, e.g. ``np.random.seed(0)`` inside
``fn``) is refused by the auditor's seeding probe
(:func:`privcheck.auditor.core.check_seeding`): its selection and estimation
draws would be the same draws.

Speed. Pure-Python code does not run faster on threads; the wrapper sets
``prefers_processes = True`` so that :func:`privcheck.base.scheduler.get_backend`
can run its chunks in worker processes when ``jobs > 1`` — or on threads, with a
one-line note, when worker processes would re-import an unguarded script or
``python -`` (:func:`privcheck.base.scheduler.process_obstacle`). The wrapper is a
module-level class and pickles with :mod:`pickle` (module-level functions) or
:mod:`cloudpickle` (lambdas, closures), as a process or Dask backend needs.
It counts the draws and the seconds spent in ``fn`` in the process that ran
them (:meth:`PerSample.throughput`); the auditor reports draws per second of
the whole audit in its result details.
"""

from __future__ import annotations

import inspect
import itertools
import random
import threading
import time
from typing import Any, Callable

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

RNG_TYPES = ("generator", "random_state")
_GLOBAL_LOCK = threading.RLock()  # one per process: global RNG state is per process


def _takes_rng(fn: Callable) -> bool:
    """True for ``fn(x, rng)``, False for ``fn(x)``; raise for other signatures."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: assume fn(x)
        return False
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return len(positional) >= 2 or not positional
    if len(required) > 2:
        raise PrivcheckUsageError(
            f"per_sample needs fn(x) or fn(x, rng), but {callable_name(fn)} requires {len(required)} arguments "
            f"({', '.join(p.name for p in required)}); bind the others with functools.partial or a lambda"
        )
    if not positional:
        raise PrivcheckUsageError(
            f"per_sample needs fn(x) or fn(x, rng), but {callable_name(fn)} takes no positional argument"
        )
    return len(positional) >= 2 and (len(required) == 2 or positional[1].name in ("rng", "random_state", "generator"))


def callable_name(fn) -> str:
    """A readable name of a callable (qualified name, else name, else its type), for messages and reprs."""
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


class PerSample:
    """A sampler ``f(x, n, rng)`` that calls a one-output function ``n`` times (see :func:`per_sample`)."""

    prefers_processes = True

    def __init__(
        self, fn: Callable, *, rng_type: str = "generator", seed_global: bool = False, takes_rng: bool | None = None
    ):
        if not callable(fn):
            raise PrivcheckUsageError(f"per_sample needs a callable fn(x) or fn(x, rng), got {type(fn).__name__}")
        if rng_type not in RNG_TYPES:
            raise PrivcheckUsageError(f"rng_type must be one of {', '.join(RNG_TYPES)}, got {rng_type!r}")
        self.fn = fn
        self.rng_type = rng_type
        self.seed_global = bool(seed_global)
        self.takes_rng = _takes_rng(fn) if takes_rng is None else bool(takes_rng)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.draws = 0
        self.seconds = 0.0

    def __repr__(self) -> str:
        opts = [] if self.rng_type == "generator" else [f"rng_type={self.rng_type!r}"]
        if self.seed_global:
            opts.append("seed_global=True")
        return f"per_sample({callable_name(self.fn)}{''.join(', ' + o for o in opts)})"

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("draws", "seconds")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.draws, self.seconds = 0, 0.0

    def __call__(self, x: Any, n: int, rng: np.random.Generator) -> list | np.ndarray:
        """``n`` outputs of ``fn`` at input ``x`` in draw order: a list, or a 1-d array when every output is a
        Python ``int`` (that fits int64) or every one a ``float`` (:func:`as_scalar_array`)."""
        if self.seed_global:
            with _GLOBAL_LOCK:
                state = rng.integers(0, 2**32, size=2, dtype=np.uint64)
                np.random.seed(int(state[0]))
                random.seed(int(state[1]))
                return self._run(x, n, rng)
        return self._run(x, n, rng)

    def _run(self, x, n: int, rng: np.random.Generator) -> list | np.ndarray:
        fn = self.fn
        t0 = time.perf_counter()
        if self.takes_rng:  # map over repeat(): the calls in C, no Python step of ours between two calls
            r = rng if self.rng_type == "generator" else np.random.RandomState(int(rng.integers(0, 2**32)))
            out = list(map(fn, itertools.repeat(x, n), itertools.repeat(r, n)))
        else:
            out = list(map(fn, itertools.repeat(x, n)))
        self.seconds += time.perf_counter() - t0
        self.draws += n
        return as_scalar_array(out)

    def throughput(self) -> float | None:
        """Draws per second spent in ``fn`` in this process so far (None before any draw)."""
        return self.draws / self.seconds if self.seconds > 0 else None


#: output types a batch of which becomes one numpy array (the auditor then counts it without a Python loop)
_SCALAR_DTYPES = {int: np.int64, float: np.float64}


def as_scalar_array(out: list) -> list | np.ndarray:
    """``out`` as a 1-d int64 / float64 array when all its items are exact ``int`` or all ``float``, else ``out``.

    The auditor's coding of such an array is the coding of the list (one numeric column with the same values),
    but it runs in numpy instead of one Python step per draw (issue 33: a library at R calls/s is audited at
    ≥ 0.7 R draws/s). ``bool``, numpy scalars, ints beyond int64 and mixed types stay a list.
    """
    types = set(map(type, out))
    if len(types) != 1:
        return out
    dtype = _SCALAR_DTYPES.get(types.pop())
    if dtype is None:
        return out
    try:
        return np.array(out, dtype=dtype)
    except OverflowError:  # an int beyond int64: the list keeps it exactly
        return out


def per_sample(
    fn: Callable | None = None, *, rng_type: str = "generator", seed_global: bool = False, takes_rng: bool | None = None
):
    """Turn one-output code into an auditor sampler ``f(x, n, rng)``.

    Parameters
    ----------
    fn : ``fn(x, rng) -> one output`` or ``fn(x) -> one output``; the
        signature is detected (a second positional parameter without default,
        or one named ``rng``/``random_state``/``generator``, receives the
        generator); ``takes_rng`` overrides the detection.
    rng_type : ``"generator"`` (default) passes each chunk's
        ``numpy.random.Generator``; ``"random_state"`` passes a
        ``numpy.random.RandomState`` seeded from it (libraries with
        ``random_state=`` parameters).
    seed_global : seed ``np.random.seed`` and ``random.seed`` from the chunk's
        generator before each chunk (libraries using the global RNG); chunks
        then run one at a time per process.

    Usable as a decorator (``@privcheck.per_sample`` or
    ``@privcheck.per_sample(seed_global=True)``). The result has
    ``prefers_processes = True`` (worker processes when ``jobs > 1``) and
    gives the same audit for any ``jobs``.
    """
    if fn is None:
        return lambda f: PerSample(f, rng_type=rng_type, seed_global=seed_global, takes_rng=takes_rng)
    return PerSample(fn, rng_type=rng_type, seed_global=seed_global, takes_rng=takes_rng)
