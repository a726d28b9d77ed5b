"""Small re-implementations of the LH-family and sketch report layouts (pure-ldp FastLH, SketchResponse,
CMS, HCMS; multi-freq-ldpy SMP_LH, SPL_LH), true ε = EPS each, shared by tests/test_autoviews_support.py
and benchmarks/bench_views.py. They need numpy, scipy and xxhash only (no privcheck, no library)."""

from __future__ import annotations

import math

import numpy as np


def _xxh():
    try:
        import xxhash
    except ImportError:  # the tests skip; the benchmark reports it
        import pytest

        pytest.skip("xxhash not installed")
    return xxhash


EPS = 1.0
M_CELLS, ROWS = 16, 4
#: a private sketch hash h_row(x) the reports do not carry (like pure-ldp's generate_hash_funcs closures)
SKETCH = np.random.default_rng(99).integers(0, M_CELLS, (ROWS, 16))


def _grr(h: int, g: int, eps: float, rng) -> int:
    """k-RR over [g] of the hashed value h (local hashing's perturbation)."""
    p = math.exp(eps) / (math.exp(eps) + g - 1)
    return h if rng.random() < p else int(rng.choice([u for u in range(g) if u != h]))


def fastlh(x, n, rng):
    """pure-ldp FastLH layout: (value, seed), seed one of k = 64 public seeds, xxh32(str(x − 1), seed) mod 2."""
    xxhash = _xxh()
    out = []
    for _ in range(n):
        seed = int(rng.integers(0, 64))
        out.append((_grr(xxhash.xxh32(str(x - 1), seed=seed).intdigest() % 2, 2, EPS, rng), seed))
    return out


def sketch_response(x, n, rng):
    """SketchResponse layout: ((value, seed), row): cell h_row(x) sent through FastLH with g = round(e^ε + 1)."""
    xxhash = _xxh()
    g = int(round(math.exp(EPS) + 1))
    out = []
    for _ in range(n):
        row, seed = int(rng.integers(0, ROWS)), int(rng.integers(0, 64))
        cell = int(SKETCH[row, x])
        out.append(((_grr(xxhash.xxh32(str(cell), seed=seed).intdigest() % g, g, EPS, rng), seed), row))
    return out


def cms(x, n, rng, broken: bool = False):
    """Apple CMS layout: (±1 vector of m cells, row j): one-hot at h_j(x), each entry flipped w.p.
    1/(1 + e^{ε/2}). ``broken``: the one-hot entry is never flipped (ε = ∞)."""
    flip = 1 / (1 + math.exp(EPS / 2))
    out = []
    for _ in range(n):
        j = int(rng.integers(0, ROWS))
        v = np.full(M_CELLS, -1)
        v[SKETCH[j, x]] = 1
        f = rng.random(M_CELLS) < flip
        if broken:
            f[SKETCH[j, x]] = False
        v[f] *= -1
        out.append((v, j))
    return out


def broken_cms(x, n, rng):
    return cms(x, n, rng, broken=True)


def hcms(x, n, rng):
    """HCMS layout: (b · H[l, h_j(x)], j, l) with H the m×m Sylvester–Hadamard matrix, b = −1 w.p. 1/(1+e^ε)."""
    from scipy.linalg import hadamard

    had = hadamard(M_CELLS)
    out = []
    for _ in range(n):
        j, l = int(rng.integers(0, ROWS)), int(rng.integers(0, M_CELLS))
        b = -1 if rng.random() < 1 / (1 + math.exp(EPS)) else 1
        out.append((int(b * had[l, SKETCH[j, x]]), j, l))
    return out


def smp_lh(t, n, rng):
    """multi-freq-ldpy SMP_LH layout: (attribute, (value, seed)), OLH of the sampled attribute."""
    xxhash = _xxh()
    g = int(round(math.exp(EPS) + 1))
    out = []
    for _ in range(n):
        a, seed = int(rng.integers(0, len(t))), int(rng.integers(0, 2**31))
        out.append((a, (_grr(xxhash.xxh32(str(t[a]), seed=seed).intdigest() % g, g, EPS, rng), seed)))
    return out


def spl_lh(t, n, rng):
    """multi-freq-ldpy SPL_LH layout: [(value, seed) per attribute], each with ε/d."""
    xxhash = _xxh()
    e = EPS / len(t)
    g = int(round(math.exp(e) + 1))
    out = []
    for _ in range(n):
        rep = []
        for v in t:
            seed = int(rng.integers(0, 2**31))
            rep.append((_grr(xxhash.xxh32(str(v), seed=seed).intdigest() % g, g, e, rng), seed))
        out.append(rep)
    return out
