"""The mechanism interface shared by every client-side randomiser.

A :class:`Mechanism` validates its parameters on construction, names its
candidate inputs (the input domain, or representative points of it), samples
outputs vectorised (``sample(x, n, rng)``, no per-sample Python loops), and,
where the output distribution can be written down, returns its exact ε
(:meth:`Mechanism.exact_epsilon`) with the maximising input pair and output.

Output conventions (``output_kind``):

- ``"discrete"``   shape ``(n,)`` integer (or float) codes;
- ``"continuous"`` shape ``(n,)`` floats;
- ``"vector"``     shape ``(n, d)`` arrays (bit vectors, quantised vectors);
- ``"index_value"`` shape ``(n, 2)`` float: column 0 the selected index
  (``-1`` for ⊥), column 1 the reported value (NaN when there is none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:  # mpmath (via privcheck.base.exact) loads when an exact ε is computed, not at start-up (issue 33)
    from privcheck.base.exact import ExactEpsilon


def __getattr__(name: str) -> Any:
    """:class:`privcheck.base.exact.ExactEpsilon`, imported on first use (``from estimators.base import ExactEpsilon``)."""
    if name == "ExactEpsilon":
        from privcheck.base.exact import ExactEpsilon

        return ExactEpsilon
    raise AttributeError(f"module 'estimators.base' has no attribute {name!r}")


class Mechanism:
    """Base class of the papers' mechanisms (see the module docstring)."""

    #: CLI name (``privcheck audit NAME``)
    name: ClassVar[str] = ""
    #: paper file and algorithm/equation
    source: ClassVar[str] = ""
    #: one of discrete / continuous / vector / index_value
    output_kind: ClassVar[str] = "discrete"

    #: the claimed ε (for selectors ε1; for two-stage ε1 + ε2)
    eps_nominal: float
    #: the claimed δ (0 for pure LDP)
    delta_nominal: float = 0.0
    #: whether :meth:`exact_epsilon` runs in mpmath at a precision set by ε (False: float closed forms)
    exact_in_mpmath: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("exact_epsilon", "sampler_exact_epsilon"):
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "_at_precision", False):
                setattr(cls, name, _at_eps_precision(fn))

    def eps_parameters(self) -> list[float]:
        """The ε-like parameters (``eps``, ``eps1``, ``eps2``, ...) that set the exact-arithmetic precision."""
        vals = [v for k, v in self.params.items() if k.startswith("eps") and isinstance(v, (int, float))]
        nominal = getattr(self, "eps_nominal", None)
        if isinstance(nominal, (int, float)):
            vals.append(nominal)
        return vals

    def sample(self, x: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent outputs of the mechanism on input ``x``."""
        raise NotImplementedError

    def inputs(self) -> list:
        """Candidate inputs for an audit: the whole domain when small, else extreme/representative points."""
        raise NotImplementedError

    def exact_epsilon(self) -> ExactEpsilon | None:
        """The exact ε with its maximising inputs and output, or ``None`` when not computable."""
        return None

    def sampler_exact_epsilon(self) -> ExactEpsilon | None:
        """The exact ε of the law :meth:`sample` draws from, computed from the probabilities the sampler itself
        holds (its float parameters and arrays, read exactly as binary fractions), or ``None`` when the
        mechanism has no such parameters apart from the documented law of :meth:`exact_epsilon`.

        :meth:`exact_epsilon` re-derives the documented law from the nominal ε (it checks the paper's
        mechanism); this checks the implementation: a sampler drawing with a wrong probability (an
        off-by-one in a denominator, a mistyped exponent) makes it exceed the claim although the documented
        law meets it. It covers the numbers the sampler draws with, not the arithmetic turning uniforms
        into outputs (the Monte Carlo audit covers that).
        """
        return None

    @property
    def params(self) -> dict[str, Any]:
        """The constructor parameters, as given (after validation)."""
        return dict(getattr(self, "_params", {}))

    def __call__(self, x: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(x, n, rng)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


#: bytes per coordinate an exact-ε route holds (a few d-long tuples and lists of Python objects)
_EXACT_BYTES_PER_COORDINATE = 64


def _at_eps_precision(fn):
    """Wrap a mechanism's ``exact_epsilon`` so it runs at the mpmath precision its ε needs.

    See :func:`privcheck.base.exact.precision_for`: ``ε/ln 10 + 50`` digits for large ε,
    ``−log10 ε + 50`` for tiny ε; ε above ``EXACT_EPS_MAX`` raises a one-line
    :class:`privcheck.base.exact.ExactRangeError`.
    """
    import functools

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        from privcheck.base.resources import check_memory, dimension_of

        d = dimension_of(self)  # exact routes build a few d-long vectors (status vectors, rankings): size them first
        check_memory(
            f"the exact eps of {self.name} with d={d}",
            d * _EXACT_BYTES_PER_COORDINATE,
            "lower d (or skip the exact eps: --no-exact)",
        )
        if not self.exact_in_mpmath:
            return fn(self, *args, **kwargs)
        from privcheck.base.exact import precision_for  # mpmath loads only for routes that run in it (issue 33)

        with precision_for(*self.eps_parameters()):
            return fn(self, *args, **kwargs)

    wrapper._at_precision = True
    return wrapper
