"""pytest plugin for privcheck (registered as the ``privcheck`` pytest11 entry point).

Placeholder while the formula-claim engine is written; see proofs/formula.py.
"""
from __future__ import annotations
