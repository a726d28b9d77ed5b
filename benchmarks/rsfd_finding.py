"""RS+FD (multi-freq-ldpy 0.2.5, ``mdim_freq_est/RSpFD_solution.py``): exact ε vs a held-out Monte Carlo.

For each RS+FD variant at claimed ε, d attributes over k values, prints the exact ε (mpmath, from the
library's own formulas: :func:`privcheck.catalogue.zoo.multi_freq_ldpy.rs_fd_eps`) for two readings of the
guarantee — tuples differing in EVERY attribute (LDP of the whole tuple, the zoo adapter's reading) and
tuples differing in ONE attribute — and, with ``--samples N``, the certified lower bound of the one
auditor (:func:`privcheck.audit`: events selected on one share of the draws, estimated on a fresh share,
Clopper–Pearson, multiple-testing correction) from N library calls per input.

    PYTHONPATH=. python benchmarks/rsfd_finding.py --samples 1000000 --kinds GRR --readings every
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
    ap.add_argument("--readings", nargs="+", default=["every", "one"], choices=["every", "one"],
                    help="input pairs: tuples differing in every attribute and/or in one")
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
                line += (f"; certified eps >= {res.eps_lower:.4f} ({res.verdict}, n={a.samples}/input, "
                         f"{time.perf_counter() - t0:.0f} s, event {str(res.event)[:60]})")
            print(line, flush=True)


if __name__ == "__main__":
    main()
