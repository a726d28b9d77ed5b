"""The built-in claim catalogue.

:func:`load_all` registers every claim of CLAIMS.md (:mod:`privcheck.catalogue.claims`) and every
check, by importing the modules of :data:`MODULES` (importing this package alone registers nothing):

- :mod:`privcheck.catalogue.ldp` — exact and Monte Carlo LDP audits (``*.ldp``, PrivQuant);
- :mod:`privcheck.catalogue.quantization` — sqSGD PrivQuant exact checks (unbiasedness, m, calibration);
- :mod:`privcheck.catalogue.accounting` — budget bounds (GDP, composition, amplification, 004);
- :mod:`privcheck.catalogue.estimation` — estimator checks (bias, variance, scaling), one module per paper;
- :mod:`privcheck.catalogue.curves` — μ-GDP claims of the FL seeds audited as trade-off curves;
- :mod:`privcheck.catalogue.peers` — audits of other libraries' accountants (``peers.*``, optional extra ``peers``);
- :mod:`privcheck.catalogue.peers.curves` — trade-off-curve libraries (``peers.gdpnum``, ``peers.riskcal``);
- :mod:`privcheck.catalogue.onerun` — DP-SGD and DP-FedAvg audited end to end in one training run (``onerun.*``);
- :mod:`privcheck.catalogue.zoo` — third-party DP libraries audited black-box (``zoo.*``, extra ``zoo``; opt-in);
- :mod:`proofs` — the symbolic checks, one module per paper (:data:`proofs.MODULES`).

:func:`privcheck.claim_index.load_for` imports only the modules the claim index names for
some claim ids (``privcheck verify ONE_CLAIM``); :func:`load_all` imports everything.
"""

import importlib as _importlib

from proofs import MODULES as _PROOFS

#: every module whose import registers claims or checks, in registration order
MODULES = (
    "privcheck.catalogue.claims",  # registers the claims
    "privcheck.catalogue.ldp",
    "privcheck.catalogue.quantization",
    "privcheck.catalogue.accounting",
    "privcheck.catalogue.estimation",
    "privcheck.catalogue.wireless_exact",
    "privcheck.catalogue.peers",
    "privcheck.catalogue.curves",
    "privcheck.catalogue.onerun",
    "privcheck.catalogue.zoo",  # zoo.*: opt-in, see privcheck.runner.select
    *_PROOFS,  # the symbolic checks (importing the package proofs alone registers nothing)
)


def load_all() -> None:
    """Import every catalogue module (idempotent): registers every claim and check."""
    for _name in MODULES:
        _importlib.import_module(_name)
