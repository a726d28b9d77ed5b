"""Checks of the built-in catalogue: ldp (see the package docstring)."""
