"""What an audit compares: the candidate inputs and the ordered input pairs, and inputs as plain values.

Neighbouring inputs: by default every ordered pair of ``inputs`` is audited (local DP); ``pairs=`` or
``neighbours=`` restrict the search to neighbouring inputs (central DP), both orders of each pair
(:func:`resolve_pairs`). Every stage works on input *indices*; :func:`plain` turns an input into the
JSON-ready value the records show.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

#: a plain sampler: ``f(x, n, rng) -> n outputs``
Sampler = Callable[[Any, int, np.random.Generator], Any]
#: ordered input pairs as indices ``(a, b)``: the likelihood ratio ``P(E | x_a) / P(E | x_b)`` is bounded
Pairs = list[tuple[int, int]]

_NO_INPUTS = "audit of a plain callable needs inputs=[x0, x1, ...] (or pairs=[(x0, x1), ...])"


def plain(x: Any) -> Any:
    """An input or output value as a plain Python value (numpy arrays as lists, numpy scalars as Python's)."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def plain_pair(pair: Sequence | None) -> list | None:
    """A pair of inputs as plain values (None stays None)."""
    return [plain(p) for p in pair] if pair is not None else None


def same_input(a: Any, b: Any) -> bool:
    """Whether two candidate inputs are the same value (arrays compared elementwise; incomparable: different)."""
    if a is b:
        return True
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except Exception:  # noqa: BLE001 - incomparable values are different inputs
        return False


def resolve_pairs(inputs: Sequence | None, pairs: Any = None, neighbours: Callable | None = None) -> tuple[list, Pairs]:
    """The inputs and the ordered index pairs ``(a, b)`` an audit searches.

    ``inputs`` alone: all ordered pairs (local DP). ``pairs=[(x, x'), ...]``:
    those pairs in both orders (inputs default to the pairs' elements).
    ``neighbours(x, x') -> bool``: the ordered pairs of ``inputs`` for which
    it holds in either order. Raises :class:`PrivcheckUsageError` on bad input.
    """
    if pairs is not None and neighbours is not None:
        raise PrivcheckUsageError("give either pairs=[(a, b), ...] or neighbours=callable, not both")
    if pairs is not None:
        return _from_pairs(inputs, pairs)
    if inputs is None:
        raise PrivcheckUsageError(_NO_INPUTS)
    inputs = list(inputs)
    if len(inputs) < 2:
        raise PrivcheckUsageError(f"audit needs at least two candidate inputs, got {len(inputs)}")
    everything = [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if a != b]
    if neighbours is None:
        return inputs, everything
    if not callable(neighbours):
        raise PrivcheckUsageError("neighbours must be a callable neighbours(x, x') -> bool")
    out = [(a, b) for a, b in everything if neighbours(inputs[a], inputs[b]) or neighbours(inputs[b], inputs[a])]
    if not out:
        raise PrivcheckUsageError("neighbours(x, x') holds for no pair of the inputs: nothing to audit")
    return inputs, out


def _from_pairs(inputs: Sequence | None, pairs: Any) -> tuple[list, Pairs]:
    """:func:`resolve_pairs` for ``pairs=[(x, x'), ...]``."""
    try:
        given = [tuple(p) for p in pairs]
    except TypeError:
        raise PrivcheckUsageError("pairs must be a list of (x, x') input pairs") from None
    if not given or any(len(p) != 2 for p in given):
        raise PrivcheckUsageError("pairs must be a non-empty list of (x, x') input pairs")
    if inputs is None:
        inputs = []
        for p in given:
            for v in p:
                if not any(same_input(v, u) for u in inputs):
                    inputs.append(v)
    inputs = list(inputs)
    out: Pairs = []
    for p in given:
        idx = []
        for v in p:
            hit = [i for i, u in enumerate(inputs) if same_input(v, u)]
            if not hit:
                raise PrivcheckUsageError(f"pair {p!r}: {v!r} is not one of the inputs")
            idx.append(hit[0])
        if idx[0] == idx[1]:
            raise PrivcheckUsageError(f"pair {p!r} compares an input with itself")
        for o in ((idx[0], idx[1]), (idx[1], idx[0])):
            if o not in out:
                out.append(o)
    return inputs, out


def needed_inputs(ordered: Pairs) -> list[int]:
    """The indices of the inputs some ordered pair uses, sorted (the inputs a run draws at)."""
    return sorted({i for p in ordered for i in p})
