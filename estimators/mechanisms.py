"""Imports every mechanism module so that each registers its CLI name."""
from estimators import direct_encoding  # noqa: F401
from estimators import quantization  # noqa: F401
