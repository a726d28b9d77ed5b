"""Are check_sampling's p-values valid under the null? Many correct Poisson pipelines, every p-value counted.

Usage::

    python benchmarks/sampling_null.py [--runs 200] [--seed 10]

Each run draws a correct Poisson pipeline (n = 100 records, rate q = 0.05, 30 steps; one
``numpy.random.default_rng(seed)`` stream for every pipeline) and calls
:func:`privcheck.sampling.check_sampling` on it with ``seed=run``. Under the null every raw p-value satisfies
P(p < a) ≤ a; the script prints, per test and level a ∈ {0.01, 0.05, 0.1}, the count below a and the
one-sided binomial tail P(Bin(runs, a) ≥ count) (a p-value that is anticonservative shows up as a tiny tail;
the tests of one run are dependent, so each test is read on its own). Exit status 1 when some tail is below
0.001. tests/test_sampling.py keeps a 12-run version of this check in CI (issue 33 §3: the 40-run version
took a minute of the suite).
"""

from __future__ import annotations

import argparse
import collections
import sys

import numpy as np
from scipy.stats import binom

from privcheck.sampling import check_sampling

N, Q, T = 100, 0.05, 30
LEVELS = (0.01, 0.05, 0.1)
FLAG_P = 0.001


def main(argv: list[str] | None = None) -> int:
    """Run the null experiment and print the table; 1 when a count below a level is implausibly large."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=10)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    pvalues: dict[str, list[float]] = collections.defaultdict(list)
    for s in range(args.runs):
        batches = [np.flatnonzero(rng.random(N) < Q) for _ in range(T)]
        for e in check_sampling(batches, n=N, q=Q, seed=s).evidence:
            pvalues[e.test].append(e.pvalue)
    flagged = False
    print(f"{args.runs} correct Poisson pipelines (n={N}, q={Q}, {T} steps), seed {args.seed}")
    print(f"{'test':<18}" + "".join(f"  #p<{a:<5} tail   " for a in LEVELS))
    for test, ps in sorted(pvalues.items()):
        row = f"{test:<18}"
        for a in LEVELS:
            count = int(np.sum(np.asarray(ps) < a))
            tail = float(binom.sf(count - 1, len(ps), a))
            flagged |= tail < FLAG_P
            row += f"  {count:>6} {tail:8.3g}"
        print(row)
    print("p-values anticonservative (some tail < 0.001)" if flagged else "no sign of anticonservative p-values")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
