"""The built-in claim catalogue.

Importing this package registers every claim of CLAIMS.md
(:mod:`privcheck.catalogue.claims`) and every check:

- :mod:`privcheck.catalogue.ldp` — exact and Monte Carlo LDP audits (``*.ldp``, PrivQuant);
- :mod:`privcheck.catalogue.quantization` — sqSGD PrivQuant exact checks (unbiasedness, m, calibration);
- :mod:`privcheck.catalogue.accounting` — budget bounds (GDP, composition, amplification, 004);
- :mod:`privcheck.catalogue.estimation` — estimator checks (bias, variance, scaling), one module per paper;
- :mod:`privcheck.catalogue.curves` — μ-GDP claims of the FL seeds audited as trade-off curves;
- :mod:`privcheck.catalogue.peers` — audits of other libraries' accountants (``peers.*``, optional extra ``peers``);
- :mod:`privcheck.catalogue.peers.curves` — trade-off-curve libraries (``peers.gdpnum``, ``peers.riskcal``);
- :mod:`privcheck.catalogue.zoo` — third-party DP libraries audited black-box (``zoo.*``, extra ``zoo``; opt-in);
- :mod:`proofs` — the symbolic checks, one module per paper.
"""
from privcheck.catalogue import claims  # noqa: F401  (registers the claims)
from privcheck.catalogue import ldp  # noqa: F401
from privcheck.catalogue import quantization  # noqa: F401
from privcheck.catalogue import accounting  # noqa: F401
from privcheck.catalogue import estimation  # noqa: F401
from privcheck.catalogue import wireless_exact  # noqa: F401
from privcheck.catalogue import peers  # noqa: F401
from privcheck.catalogue import curves  # noqa: F401
from privcheck.catalogue import zoo  # noqa: F401  (zoo.*: opt-in, see privcheck.runner.select)
import proofs  # noqa: F401
