"""Symbolic (sympy) checks of the papers' closed forms, one module per paper.

Importing the package registers each module's ``symbolic`` checks in the
built-in catalogue.
"""
