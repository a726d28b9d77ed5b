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

import importlib

#: public names and the submodule defining each (loaded on first use: ``privcheck omp`` validates its
#: input with :func:`validate_run` before scipy and the algorithms are imported)
_EXPORTS = {
    "OMPResult": "algorithms",
    "omp_trace": "algorithms",
    "spriFed_omp": "algorithms",
    "spriFed_omp_grad": "algorithms",
    "dp_gcd": "baselines",
    "dp_sgd_l1": "baselines",
    "Dataset": "data",
    "synthetic": "data",
    "Ledger": "mechanisms",
    "NoisySMPCCall": "mechanisms",
    "PrivateOLS": "mechanisms",
    "validate_run": "mechanisms",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
