"""Audit third-party, per-sample LDP code with privcheck (an example; not run in CI).

The libraries privatise one value per call and draw from NumPy's or Python's
global RNG (pure-ldp) or from a ``random_state`` (diffprivlib). privcheck
wraps them with :func:`privcheck.per_sample`, seeds them per chunk, codes
their outputs (ints, strings, bit vectors, ``(value, seed)`` reports, zip
iterators) itself, and prints the throughput it reached.

Setup (in a virtual environment; these are not privcheck dependencies)::

    pip install 'xxhash<4' pure-ldp 'scikit-learn<1.6' diffprivlib==0.6.6

Run::

    python examples/third_party.py [--samples 100000] [--jobs 1]

Pitfalls (REFERENCE.md): pure-ldp breaks with xxhash 4.x and imports
scikit-learn without declaring it; diffprivlib 0.6.6 needs scikit-learn < 1.6.
"""

from __future__ import annotations

import argparse
import time
import warnings

import privcheck
from privcheck.auditor import views

warnings.filterwarnings("ignore")  # diffprivlib / pure-ldp deprecation chatter


# --------------------------------------------------------------------------- pure-ldp
def pure_ldp_cases(eps: float, d: int):
    """(label, sampler, audit keywords) for pure-ldp frequency oracles (global RNG: seed_global=True)."""
    import xxhash
    from pure_ldp.frequency_oracles import DEClient, HadamardMechClient, LHClient, UEClient

    de = DEClient(epsilon=eps, d=d)  # k-RR: privatise(item) -> int
    oue = UEClient(epsilon=eps, d=d, use_oue=True)  # optimised unary encoding: -> bit vector
    olh = LHClient(epsilon=eps, d=d, use_olh=True)  # OLH: -> (value, seed)
    hm = HadamardMechClient(epsilon=eps, d=d, t=1)  # Hadamard mechanism: -> zip of (index, bit)

    # OLH hashes index_mapper(item) = item - 1 with xxhash32 and the report's seed, mod g
    def olh_hash(item, seed):
        return xxhash.xxh32(str(item - 1), seed=seed).intdigest()

    # the support over the audited inputs 1, 2 (a small domain: the auditor finds {1 supported ∧ 2 not})
    support = views.local_hashing_support(olh_hash, domain=[1, 2], g=olh.g, seed_first=False)
    return [
        ("pure-ldp DE (k-RR), int outputs", privcheck.per_sample(de.privatise, seed_global=True), {}),
        ("pure-ldp OUE, bit-vector outputs", privcheck.per_sample(oue.privatise, seed_global=True), {}),
        ("pure-ldp OLH, raw (value, seed) reports", privcheck.per_sample(olh.privatise, seed_global=True), {}),
        (
            "pure-ldp OLH through views.local_hashing_support",
            privcheck.per_sample(olh.privatise, seed_global=True),
            {"view": support},
        ),
        ("pure-ldp Hadamard mechanism (t=1), zip outputs", privcheck.per_sample(hm.privatise, seed_global=True), {}),
    ]


# --------------------------------------------------------------------------- diffprivlib
class _WithRandomState:
    """fn(x, rs): builds the diffprivlib mechanism once per chunk RandomState (building per call is slow)."""

    def __init__(self, factory):
        self.factory = factory
        self._rs = None
        self._mech = None

    def __call__(self, x, rs):
        if rs is not self._rs:
            self._rs, self._mech = rs, self.factory(rs)
        return self._mech.randomise(x)


def _binary(eps):
    from diffprivlib.mechanisms import Binary

    return lambda rs: Binary(epsilon=eps, value0="no", value1="yes", random_state=rs)


def _geometric(eps):
    from diffprivlib.mechanisms import GeometricTruncated

    return lambda rs: GeometricTruncated(epsilon=eps, sensitivity=1, lower=0, upper=5, random_state=rs)


def _laplace(eps):
    from diffprivlib.mechanisms import Laplace

    return lambda rs: Laplace(epsilon=eps, sensitivity=1, random_state=rs)


def diffprivlib_cases(eps: float):
    """diffprivlib mechanisms take random_state=: per_sample(..., rng_type="random_state")."""
    rs = {"rng_type": "random_state"}
    return [
        (
            "diffprivlib Binary, string outputs",
            privcheck.per_sample(_WithRandomState(_binary(eps)), **rs),
            {"inputs": ["no", "yes"]},
        ),
        (
            "diffprivlib GeometricTruncated [0, 5], all pairs of 0, 1, 5",
            privcheck.per_sample(_WithRandomState(_geometric(eps)), **rs),
            {"inputs": [0, 1, 5]},
        ),
        (
            "diffprivlib GeometricTruncated [0, 5], neighbours: pairs=[(0, 1)]",
            privcheck.per_sample(_WithRandomState(_geometric(eps)), **rs),
            {"inputs": [0, 1, 5], "pairs": [(0, 1)]},
        ),
        (
            "diffprivlib Laplace, float outputs",
            privcheck.per_sample(_WithRandomState(_laplace(eps)), **rs),
            {"inputs": [0.0, 1.0]},
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000, help="draws per input")
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--d", type=int, default=8, help="domain size of the pure-ldp oracles")
    ap.add_argument("--jobs", type=int, default=1, help="workers (processes where the backend supports them)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cases = []
    for loader in (lambda: pure_ldp_cases(args.eps, args.d), lambda: diffprivlib_cases(args.eps)):
        try:
            cases += loader()
        except ImportError as exc:
            print(f"skipped: {exc} (pip install 'xxhash<4' pure-ldp 'scikit-learn<1.6' diffprivlib==0.6.6)")
    print(f"claimed eps = {args.eps}, {args.samples} draws per input, seed {args.seed}, jobs {args.jobs}")
    print("audit/s: draws per second of the whole audit; fn/s: calls per second of the library function\n")
    print(
        f"{'mechanism':62s} {'eps_lower':>9s} {'certified':>9s} {'verdict':>9s} {'audit/s':>9s} "
        f"{'fn/s':>9s} {'s':>6s}  event"
    )
    for label, sampler, kw in cases:
        kw = dict(kw)
        inputs = kw.pop("inputs", [1, 2])
        t0 = time.perf_counter()
        res = privcheck.audit(
            sampler, inputs=inputs, eps=args.eps, samples=args.samples, seed=args.seed, jobs=args.jobs, **kw
        )
        secs = time.perf_counter() - t0
        lo = res.eps_lower
        share = f"{lo / args.eps:.0%}" if lo is not None and lo > 0 else "-"
        fn_rate = sampler.throughput() if args.jobs == 1 else None  # calls/s of the library code alone
        print(
            f"{label:62s} {lo:9.4f} {share:>9s} {res.verdict:>9s} {res.details['draws_per_second']:9.0f} "
            f"{fn_rate or float('nan'):9.0f} {secs:6.1f}  {(res.event or '')[:50]}"
        )


if __name__ == "__main__":
    main()
