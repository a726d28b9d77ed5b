"""Checks of the built-in catalogue: sqSGD PrivQuant exact checks (see the package docstring)."""
