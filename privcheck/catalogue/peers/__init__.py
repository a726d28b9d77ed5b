"""Audits of other libraries' privacy accountants: the claim family ``peers.*``.

Each check asks one public library (dp-accounting, prv-accountant, autodp, opacus) a grid of
questions it supports — single mechanisms, self-compositions with counts, heterogeneous
compositions, Poisson subsampling, calibration helpers — under the neighbouring relation that
library uses, and compares every answer with privcheck's certified interval ``[lower, upper]``
on the exact value (:func:`certified`):

- an **upper bound** (what a user quotes as "ε") below the certified lower end is *refuted*: it
  claims more privacy than the mechanism has; the row carries a minimal reproducer snippet;
  an upper bound at or above the upper end *holds*, and its slack (answer − upper end) is
  recorded; one strictly inside the interval is *undecided* (it may be below the exact value: the
  interval is too wide to tell); ``inf`` is a valid but vacuous bound and is labelled so;
- a **lower bound** (prv's ``eps_low``) above the certified upper end is refuted, at or below the
  lower end holds, strictly inside is undecided;
- a **calibration** helper returns a parameter (σ, Laplace scale, per-step ε) said to achieve a
  target (ε, δ); it is refuted when the certified ε of the returned parameter exceeds the target
  (beyond the helper's own documented tolerance, stated in the row);
- a **documented approximation** (prv's middle "estimate", the central-limit GDP view of
  opacus) is never called a bound, and never counted as ``holds``: inside or above the interval it
  is labelled ``approximation``; below it (or a calibration by one that misses its target) it is a
  ``miss``, which refutes the claim — the label explains the miss, it does not excuse it (users quote
  these numbers).

A claim is ``refuted`` when any of its bound rows is or any approximation misses, ``holds`` when at
least one bound row was decided and none refuted, ``inconclusive`` otherwise; a library that is not installed gives an
``inconclusive`` record with ``details["skipped"]`` and the install hint, never an ``error``.
Library versions are in ``details["versions"]``.

Float allowance: an answer counts as below the certified lower end only if it is below it by more
than :data:`REL_FLOAT` relative (closed forms computed in two codes differ in the last digits).

Layout: :mod:`.events` (library-independent mechanisms), :mod:`.certify` (the certified interval),
:mod:`.core` (queries, judgement, the claim runner) and one module per library
(:mod:`.dp_accounting`, :mod:`.prv_accountant`, :mod:`.autodp`, :mod:`.opacus`; :mod:`.curves` for the
trade-off-curve libraries gdpnum and riskcal), each registering
its claims on import.
"""

from __future__ import annotations

from privcheck.catalogue.peers import curves  # noqa: F401  (peers.gdpnum, peers.riskcal: trade-off curves)
from privcheck.catalogue.peers.autodp import *  # noqa: F401,F403
from privcheck.catalogue.peers.certify import Certified, _exact_oracle, _pld_events, _pld_oracle, certified  # noqa: F401
from privcheck.catalogue.peers.core import (  # noqa: F401
    INSTALL_HINT,
    OPACUS_HINT,
    PEERS,
    Query,
    audit_queries,
    judge,
    missing,
    run_peer,
    skipped,
    versions,
)
from privcheck.catalogue.peers.dp_accounting import *  # noqa: F401,F403
from privcheck.catalogue.peers.events import (  # noqa: F401
    CALIBRATION_TARGETS,
    LARGE_EPS_DPSGD,
    REL_EXACT,
    REL_FLOAT,
    RELATIONS,
    ROLES,
    Ev,
    approx,
    discrete_laplace,
    gaussian,
    laplace,
    pure,
    rr,
    subsampled_gaussian,
    subsampled_laplace,
)
from privcheck.catalogue.peers.opacus import *  # noqa: F401,F403
from privcheck.catalogue.peers.opacus import _op  # noqa: F401
from privcheck.catalogue.peers.prv_accountant import *  # noqa: F401,F403
