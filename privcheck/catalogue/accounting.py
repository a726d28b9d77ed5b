"""Checks of the built-in catalogue: accounting (see the package docstring)."""
