"""The validated request of a trace: which pairs, which search, what is declared, how many runs.

Every problem with the request is one :class:`~privcheck.base.errors.PrivcheckUsageError` line (the CLI
exits with code 2): no pairs, inputs of different types in a pair, a sensitivity that is not a finite
number > 0, an unknown norm, a neighbour search that is not a hypothesis strategy.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_positive
from privcheck.tracing.compare import NORMS, equal

#: coupled runs per pair by default
DEFAULT_RUNS = 10
#: hypothesis examples of a neighbour search by default
DEFAULT_EXAMPLES = 100


@dataclass
class TracePlan:
    """A validated trace request.

    inputs: the distinct inputs, in order; pairs: index pairs into ``inputs`` (each unordered pair once:
    a coupled distance is symmetric); strategy: a hypothesis strategy of neighbouring pairs, or None;
    sensitivity: the declared Δ or None (invariance only); norm; runs: coupled runs per pair;
    seed; nonfinite: also trace NaN/±inf neighbours of numeric inputs; examples: search examples.
    """

    inputs: list
    pairs: list[tuple[int, int]]
    strategy: Any
    sensitivity: float | None
    norm: str
    runs: int
    seed: int
    nonfinite: bool
    examples: int


def kind_of(x: Any) -> str:
    """The kind of an input for the "same type" rule: ``number``, ``sequence`` (lists, tuples, arrays),
    ``text``, or the type's name."""
    if isinstance(x, (numbers.Number, np.number, np.bool_)):
        return "number"
    if isinstance(x, (list, tuple, np.ndarray)):
        return "sequence"
    if isinstance(x, (str, bytes)):
        return "text"
    return type(x).__name__


def same_size(a: Any, b: Any) -> bool:
    """Whether two inputs have the same shape (numbers: always; sequences: equal shapes or lengths)."""
    try:
        return np.shape(a) == np.shape(b)
    except Exception:  # noqa: BLE001 - ragged: compare lengths
        try:
            return len(a) == len(b)
        except TypeError:
            return True


def _index(inputs: list, x: Any) -> int:
    for i, y in enumerate(inputs):
        if kind_of(x) == kind_of(y) and same_size(x, y) and equal(x, y):
            return i
    inputs.append(x)
    return len(inputs) - 1


def make_plan(
    pairs=None,
    inputs=None,
    neighbours=None,
    sensitivity=None,
    norm: str = "l2",
    runs: int = DEFAULT_RUNS,
    seed: int = 0,
    nonfinite: bool = True,
    examples: int = DEFAULT_EXAMPLES,
) -> TracePlan:
    """Validate a trace request (see :func:`privcheck.tracing.trace` for the parameters)."""
    if norm not in NORMS:
        raise PrivcheckUsageError(f"norm must be one of {', '.join(NORMS)}, got {norm!r}")
    if sensitivity is not None:
        sensitivity = check_positive("sensitivity", sensitivity)
    runs = check_int("runs", runs, minimum=1, maximum=1_000_000)
    seed = check_int("seed", seed, minimum=0)
    examples = check_int("examples", examples, minimum=1, maximum=1_000_000)
    if pairs is not None and inputs is not None:
        raise PrivcheckUsageError("give pairs= or inputs= (every ordered pair of them), not both")
    if pairs is None and inputs is None and neighbours is None:
        raise PrivcheckUsageError("trace needs pairs=[(x, x2), ...], inputs=[x0, x1, ...] or neighbours=STRATEGY")
    if neighbours is not None:
        _check_strategy(neighbours)
    distinct: list = []
    index_pairs: list[tuple[int, int]] = []
    if inputs is not None:
        inputs = _as_list(inputs, "inputs")
        if len(inputs) < 2:
            raise PrivcheckUsageError(
                f"inputs needs at least two values (every ordered pair is traced), got {len(inputs)}"
            )
        for x in inputs:
            _index(distinct, x)
        _check_kinds(distinct, "inputs")
        index_pairs = list(itertools.combinations(range(len(distinct)), 2))
    if pairs is not None:
        pairs = _as_list(pairs, "pairs")
        if not pairs and neighbours is None:
            raise PrivcheckUsageError("pairs is empty; give at least one pair (x, x2)")
        for k, pr in enumerate(pairs, start=1):
            if not isinstance(pr, (tuple, list)) or len(pr) != 2:
                raise PrivcheckUsageError(f"pair #{k} must be two inputs (x, x2), got {_short(pr)}")
            a, b = pr
            if kind_of(a) != kind_of(b):
                raise PrivcheckUsageError(
                    f"pair #{k} holds inputs of different types ({type(a).__name__} and {type(b).__name__}): "
                    "neighbouring inputs must be of one type"
                )
            ia, ib = _index(distinct, a), _index(distinct, b)
            if ia != ib and (ia, ib) not in index_pairs and (ib, ia) not in index_pairs:
                index_pairs.append((ia, ib))
    return TracePlan(distinct, index_pairs, neighbours, sensitivity, norm, runs, seed, bool(nonfinite), examples)


def _as_list(v: Any, name: str) -> list:
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise PrivcheckUsageError(f"{name} must be a list, got {type(v).__name__}")
    return list(v)


def _check_kinds(values: list, name: str) -> None:
    kinds = {kind_of(v) for v in values}
    if len(kinds) > 1:
        raise PrivcheckUsageError(
            f"{name} mixes types ({', '.join(sorted(kinds))}); neighbouring inputs must be of one type"
        )


def _check_strategy(s: Any) -> None:
    from hypothesis.strategies import SearchStrategy

    if not isinstance(s, SearchStrategy):
        raise PrivcheckUsageError(
            f"neighbours must be a hypothesis strategy of pairs (x, x2) (see privcheck.strategies), got {_short(s)}"
        )


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:59] + "…"
