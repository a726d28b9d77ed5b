"""Output events for likelihood-ratio audits (compatibility module).

The coding of outputs into atoms lives in :mod:`privcheck.auditor.coding`, the
choice of events from selection counts in :mod:`privcheck.auditor.selection`;
this module re-exports their public names for older imports.
"""

from privcheck.auditor.coding import (  # noqa: F401
    BINS,
    MAX_EXACT_VALUES,
    MAX_ROW_ATOMS,
    ColumnCoder,
    OutputCoding,
    as_matrix,
    to_matrix,
)
from privcheck.auditor.selection import (  # noqa: F401
    Event,
    best_threshold,
    best_union,
    candidate_events,
    pair_columns,
    predicted_bound,
)

__all__ = [
    "BINS",
    "MAX_EXACT_VALUES",
    "MAX_ROW_ATOMS",
    "ColumnCoder",
    "OutputCoding",
    "as_matrix",
    "to_matrix",
    "Event",
    "best_threshold",
    "best_union",
    "candidate_events",
    "pair_columns",
    "predicted_bound",
]
