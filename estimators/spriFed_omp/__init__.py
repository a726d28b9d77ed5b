"""SPriFed-OMP (002, Mulay & Lin): private federated sparse basis recovery, its baselines and §7 set-up.

The paper's mathematics was lost in the text conversion; every reconstruction choice is listed in
``docs/site/spriFed-omp.md`` with the sentence it rests on. Modules:

- :mod:`.mechanisms` — NOISY-SMPC (Alg. 1) calls with their GDP ledger, PRIVATE-OLS (Alg. 2);
- :mod:`.algorithms` — SPriFed-OMP (Alg. 3, with/without Enhancement 1), SPriFed-OMP-GRAD (Alg. 4),
  non-private OMP with the artifact norms of Fig. 1;
- :mod:`.baselines` — DP-SGD on the ℓ1-regularised squared loss (top-s after training), DP-GCD (Alg. 5);
- :mod:`.data` — the synthetic set-up of §7;
- :mod:`.privacy` — the whole algorithm as a central mechanism on neighbouring datasets (audit sampler).
"""

from estimators.spriFed_omp.algorithms import OMPResult, omp_trace, spriFed_omp, spriFed_omp_grad
from estimators.spriFed_omp.baselines import dp_gcd, dp_sgd_l1
from estimators.spriFed_omp.data import Dataset, synthetic
from estimators.spriFed_omp.mechanisms import Ledger, NoisySMPCCall, PrivateOLS, validate_run

__all__ = [
    "OMPResult",
    "omp_trace",
    "spriFed_omp",
    "spriFed_omp_grad",
    "dp_gcd",
    "dp_sgd_l1",
    "Dataset",
    "synthetic",
    "Ledger",
    "NoisySMPCCall",
    "PrivateOLS",
    "validate_run",
]
