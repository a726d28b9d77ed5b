"""RS+FD (multi-freq-ldpy 0.2.5, ``mdim_freq_est/RSpFD_solution.py``): exact ε vs a held-out Monte Carlo.

For each RS+FD variant at claimed ε, d attributes over k values, prints the exact ε (mpmath, from the
library's own formulas: :func:`privcheck.catalogue.zoo.multi_freq_ldpy.rs_fd_eps`) for two readings of the
guarantee — tuples differing in EVERY attribute (LDP of the whole tuple, the zoo adapter's reading) and
tuples differing in ONE attribute — and, with ``--samples N``, the certified lower bound of the one
auditor (:func:`privcheck.audit`: events selected on one share of the draws, estimated on a fresh share,
Clopper–Pearson, multiple-testing correction) from N library calls per input.

    PYTHONPATH=. python benchmarks/rsfd_finding.py --samples 1000000 --kinds GRR --readings every
    PYTHONPATH=. python benchmarks/rsfd_finding.py --event-samples 1000000 --kinds UE_rnd --readings one
"""

from __future__ import annotations

import argparse
import math
import time


def main(argv=None) -> None:
    import privcheck
    from privcheck.catalogue.zoo import multi_freq_ldpy as mfl

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--d", type=int, default=2)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--samples", type=int, default=0, help="library calls per input for the audit (0: exact only)")
    ap.add_argument("--kinds", nargs="+", default=["GRR", "UE_zero", "UE_rnd", "ADP"])
    ap.add_argument(
        "--readings",
        nargs="+",
        default=["every", "one"],
        choices=["every", "one"],
        help="input pairs: tuples differing in every attribute and/or in one",
    )
    ap.add_argument(
        "--event-samples",
        type=int,
        default=0,
        help="library calls per input for the confirmatory check on an event fixed from the exact law",
    )
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    d, k, eps = a.d, a.k, a.eps
    x = (0,) * d
    pairs = {"every attribute": (1,) * d, "one attribute": (1,) + (0,) * (d - 1)}
    print(f"RS+FD, claimed eps={eps:g}, d={d}, k={k}; ln(d(e^eps-1)+1) = {math.log(d * (math.exp(eps) - 1) + 1):.6f}")
    for kind in a.kinds:
        for reading, x2 in pairs.items():
            if reading.split()[0] not in a.readings:
                continue
            exact = mfl.rs_fd_eps(kind, eps, k, d, x, x2)
            line = f"  RSpFD_{kind}_Client  {x} vs {x2} ({reading}): exact eps = {exact:.6f}"
            if a.samples:
                sampler = mfl._sampler(mfl.RSFD, f"RSpFD_{kind}_Client", ([k] * d, d, eps), {})
                t0 = time.perf_counter()
                res = privcheck.audit(sampler, inputs=[x, x2], eps=eps, samples=a.samples, seed=a.seed, jobs=1)
                line += (
                    f"; certified eps >= {res.eps_lower:.4f} ({res.verdict}, n={a.samples}/input, "
                    f"{time.perf_counter() - t0:.0f} s, event {str(res.event)[:60]})"
                )
            if a.event_samples:
                line += "; " + _preregistered(mfl, kind, eps, k, d, x, x2, a.event_samples, a.seed)
            print(line, flush=True)


def _preregistered(mfl, kind, eps, k, d, x, x2, n, seed) -> str:
    """Confirmatory Monte Carlo: the event E = {outputs whose exact log-ratio exceeds the claimed ε} is fixed
    from the exact law BEFORE sampling (no selection on the draws), then P(E | x), P(E | x2) are estimated
    from ``n`` fresh library calls each (numpy seeded from one SeedSequence) and the one-sided
    Clopper–Pearson bound of privcheck.base.stats.log_ratio_lower_bound (α = 0.05) is returned."""
    import itertools

    import mpmath
    import numpy as np

    from privcheck.base.stats import log_ratio_lower_bound

    law, fake = mfl.rs_fd_laws(kind, eps, k, d)

    def pmf(t):
        return {
            y: mpmath.fsum(law(t[j])[y[j]] * mpmath.fprod(fake[y[i]] for i in range(d) if i != j) for j in range(d)) / d
            for y in itertools.product(list(fake), repeat=d)
        }

    pa, pb = pmf(x), pmf(x2)
    event = {y for y in pa if pb[y] > 0 and mpmath.log(pa[y] / pb[y]) > eps}
    if not event:
        return "no output exceeds the claimed eps"
    ea = float(mpmath.log(mpmath.fsum(pa[y] for y in event) / mpmath.fsum(pb[y] for y in event)))
    call = mfl._Call(mfl.RSFD, f"RSpFD_{kind}_Client", ([k] * d, d, eps), {})

    def key(r):
        return tuple(tuple(int(b) for b in v) if hasattr(v, "__len__") else int(v) for v in r)

    counts = []
    for child, t in zip(np.random.SeedSequence(seed).spawn(2), (x, x2)):
        np.random.seed(child.generate_state(1)[0])
        counts.append(sum(key(call(t)) in event for _ in range(n)))
    lb = log_ratio_lower_bound(counts[0], n, counts[1], n, 0.05)
    return (
        f"pre-registered event ({len(event)} outputs, exact log-ratio {ea:.4f}): counts {counts[0]}/{n} vs "
        f"{counts[1]}/{n}, eps >= {lb:.4f} at 95%"
    )


if __name__ == "__main__":
    main()
