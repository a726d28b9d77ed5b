"""Imports every mechanism module so that each registers its CLI name."""
from estimators import direct_encoding  # noqa: F401
from estimators import quantization  # noqa: F401
from estimators import fedsel_selection  # noqa: F401
from estimators import piecewise  # noqa: F401
from estimators import two_stage  # noqa: F401
from estimators import noise  # noqa: F401
from estimators import dp_sgd  # noqa: F401
from estimators import oracles  # noqa: F401
