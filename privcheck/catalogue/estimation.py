"""Checks of the built-in catalogue: estimation (see the package docstring)."""
