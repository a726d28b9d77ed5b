"""Sampling assumptions: :func:`check_sampling` tests whether batches were drawn the way the accountant assumes
(Poisson at rate q, fixed-size, or shuffled epochs) and says what the observed scheme means for the accountant.

Modules: :mod:`.batches` (index batches from lists, loaders, samplers), :mod:`.structure` (deterministic
structure: duplicates, epochs, the most-sampled record), :mod:`.tests` (exact tests), :mod:`.check` (verdict).
"""

from __future__ import annotations

from privcheck.sampling.check import ACCOUNTING, SCHEMES, SamplingResult, check_sampling

__all__ = ["ACCOUNTING", "SCHEMES", "SamplingResult", "check_sampling"]
