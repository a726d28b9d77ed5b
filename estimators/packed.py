"""Samplers that draw bit vectors straight into packed bytes (issue 23).

:func:`bernoulli_bytes` draws i.i.d. Bernoulli(q) bits 64 at a time, *bit-sliced*: the bit is
``[U < q]`` for a uniform ``U`` whose binary digits are drawn lazily (digit 0 where a random
word's bit is 1), one 64-bit random word per
digit for all 64 bits of a word at once, and only for the bits not yet decided. Digit ``i`` of
``U`` against digit ``b_i`` of ``q``'s (finite, exact) binary expansion: where they differ the bit
is decided (``U < q`` iff ``b_i = 1``); where they agree it stays open. Half the open bits close
at each digit, so a word needs about 7 random words on average (and never more than the number of
digits of ``q``); bits still open after the last digit have ``U ≥ q`` (``U = q`` has probability
0), hence are 0. ``P(bit = 1) = q`` exactly for the float ``q`` (``rng.random() < q``, the
straightforward sampler, is within 2⁻⁵³ of it), and no float is drawn per bit.

:func:`sample_unary_packed` is unary encoding on top of it (Wang et al. 2017, Sec. 4.2): all bits
Bernoulli(q), then the own bit replaced by a Bernoulli(p) bit, padding bits cleared.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from privcheck.base.packed import PackedBits, bit_position, n_bytes, padding_mask

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_U64_MAX = int(_ALL)
#: digits drawn for every word before closed words are dropped (a word of 64 bits stays open with
#: probability 1 − (1 − 2^-i)^64 after i digits: still 0.63 at i = 6)
_FULL_STEPS = 6


def binary_digits(q: float) -> list[int]:
    """The binary digits ``b_1, b_2, …, b_L`` of ``q`` in (0, 1): ``q = Σ b_i 2^{-i}`` exactly, ``b_L = 1``."""
    f = Fraction(q)
    if not 0 < f < 1:
        raise ValueError(f"binary_digits needs q in (0, 1), got {q!r}")
    digits = []
    while f:
        f *= 2
        digits.append(int(f >= 1))
        f -= digits[-1]
    return digits


def bernoulli_words(q: float, n_words: int, rng: np.random.Generator) -> np.ndarray:
    """``n_words`` uint64 words of i.i.d. Bernoulli(``q``) bits, ``q`` in [0, 1] (exact; module docstring)."""
    if q <= 0 or n_words == 0:
        return np.zeros(n_words, dtype=np.uint64)
    if q >= 1:
        return np.full(n_words, _ALL, dtype=np.uint64)
    out = np.zeros(n_words, dtype=np.uint64)
    idx = None  # words with open bits (None: all of them)
    open_ = np.full(n_words, _ALL, dtype=np.uint64)
    for i, b in enumerate(binary_digits(q)):
        r = rng.integers(0, _U64_MAX, size=open_.size, dtype=np.uint64, endpoint=True)
        # r marks where U's digit is 0 (the complement of uniform bits is uniform)
        if b:  # U's digit 0 < 1: U < q, the bit is 1
            np.bitwise_and(r, open_, out=r)
            if idx is None:
                out |= r
            else:
                out[idx] |= r
            open_ ^= r
        else:  # U's digit 1 > 0: U > q, the bit stays 0; open where U's digit is 0 too
            open_ &= r
        if i < _FULL_STEPS:
            continue
        live = open_ != 0
        idx = np.flatnonzero(live) if idx is None else idx[live]
        open_ = open_[live]
        if idx.size == 0:
            break
    return out


def bernoulli_bytes(q: float, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A C-contiguous uint8 array of ``shape`` whose bits are i.i.d. Bernoulli(``q``) (:func:`bernoulli_words`)."""
    size = shape[0] * shape[1]
    words = bernoulli_words(q, -(-size // 8), rng)
    return words.view(np.uint8)[:size].reshape(shape)


def bernoulli_bits(p: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` i.i.d. Bernoulli(``p``) bits as a ``(n,)`` uint8 0/1 array."""
    return np.unpackbits(bernoulli_bytes(p, (1, -(-n // 8)), rng).ravel(), count=n)


def sample_unary_packed(x: int, n: int, d: int, p: float, q: float, rng: np.random.Generator) -> PackedBits:
    """``n`` unary-encoding reports of ``x`` as :class:`~privcheck.base.packed.PackedBits`: bit ``x`` is 1 w.p.
    ``p``, each other bit w.p. ``q``, all independent. ``0 ≤ x < d``; ``p``, ``q`` in [0, 1].

    Same law as :func:`estimators.oracles.sample_unary` (one float per bit), about 1 byte of random
    words per output bit instead of 8 (Wang et al. 2017, Sec. 4.2).
    """
    nb = n_bytes(d)
    data = bernoulli_bytes(q, (n, nb), rng)
    mask = padding_mask(d)
    if mask != 0xFF:
        data[:, -1] &= np.uint8(mask)
    b, s = bit_position(x)
    own = bernoulli_bits(p, n, rng)
    data[:, b] = (data[:, b] & np.uint8(~(1 << s) & 0xFF)) | (own << np.uint8(s))
    return PackedBits(data, d)
