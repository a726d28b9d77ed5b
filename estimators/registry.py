"""Mechanisms by CLI name: :func:`mechanism` builds one from the papers' parameter names.

The registry is lazy: :data:`WHERE` names the module and class of every built-in
mechanism, so building one imports only its own module (``privcheck audit de`` does
not import the quantisation, piecewise or oracle modules). Importing a module still
registers its classes in :data:`MECHANISMS` through :func:`register`; the table is
checked against a full import by tests/test_registry_lazy.py, and a name the table
does not know falls back to importing every mechanism module, so a stale table is
slower, never wrong.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any

from estimators.base import Mechanism
from privcheck.errors import UnknownNameError

MECHANISMS: dict[str, type[Mechanism]] = {}

#: CLI name → ``"module:Class"`` of every built-in mechanism (tests/test_registry_lazy.py keeps it exact)
WHERE: dict[str, str] = {
    "blh": "estimators.oracles:BinaryLocalHashing",
    "de": "estimators.direct_encoding:DirectEncoding",
    "dp-fedavg": "estimators.dp_sgd:DPFedAvg",
    "dp-sgd": "estimators.dp_sgd:DPSGD",
    "duchi": "estimators.piecewise:DuchiMechanism",
    "fedsel-exp": "estimators.fedsel_selection:FedSelEXP",
    "fedsel-pe": "estimators.fedsel_selection:FedSelPE",
    "fedsel-ps": "estimators.fedsel_selection:FedSelPS",
    "fedsel-two-stage": "estimators.two_stage:FedSelTwoStage",
    "gaussian": "estimators.noise:GaussianMechanism",
    "grr": "estimators.oracles:GeneralisedRandomisedResponse",
    "he": "estimators.oracles:HistogramEncoding",
    "hm": "estimators.piecewise:HybridMechanism",
    "hr": "estimators.oracles:HadamardResponse",
    "laplace": "estimators.noise:LaplaceMechanism",
    "olh": "estimators.oracles:OptimisedLocalHashing",
    "oue": "estimators.oracles:OptimisedUnaryEncoding",
    "pm": "estimators.piecewise:PiecewiseMechanism",
    "pm-multidim": "estimators.piecewise:PMMultidim",
    "privquant": "estimators.quantization:PrivQuant",
    "quantizer": "estimators.quantization:Quantizer",
    "ss": "estimators.oracles:SubsetSelection",
    "sue": "estimators.oracles:SymmetricUnaryEncoding",
    "the": "estimators.oracles:ThresholdedHistogramEncoding",
}


def register(cls: type[Mechanism]) -> type[Mechanism]:
    """Class decorator adding a mechanism to :data:`MECHANISMS` under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no CLI name")
    MECHANISMS[cls.name] = cls
    return cls


def _load() -> None:
    """Import every mechanism module (each registers its classes)."""
    import estimators.mechanisms  # noqa: F401


def mechanism_names() -> list[str]:
    """The registered CLI names, sorted (imports every mechanism module)."""
    _load()
    return sorted(MECHANISMS)


def mechanism_parameters(name: str) -> list[str]:
    """The parameter names the mechanism ``name`` accepts."""
    cls = _get(name)
    sig = inspect.signature(cls.__init__)
    return [p for p in sig.parameters if p != "self" and sig.parameters[p].kind is not inspect.Parameter.VAR_KEYWORD]


def _get(name: str) -> type[Mechanism]:
    """The class of ``name``: its own module imported when :data:`WHERE` names it, else every module."""
    if name not in MECHANISMS:
        if isinstance(name, str) and name in WHERE:
            importlib.import_module(WHERE[name].partition(":")[0])
        if name not in MECHANISMS:
            _load()
    try:
        return MECHANISMS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown mechanism {name!r}; allowed: {', '.join(sorted(MECHANISMS))}"
        ) from None


def mechanism(name: str, **params: Any) -> Mechanism:
    """Build the mechanism ``name`` (e.g. ``"fedsel-pe"``) with the papers' parameters.

    Only the module defining ``name`` is imported (see :data:`WHERE`). Unknown names or
    parameters raise :class:`UnknownNameError` listing what is allowed; invalid values
    raise ``ValueError`` naming the parameter's range.
    """
    cls = _get(name)
    allowed = mechanism_parameters(name)
    for key in params:
        if key not in allowed:
            raise UnknownNameError(
                f"unknown parameter {key!r} for mechanism {name!r}; allowed: {', '.join(allowed)}"
            )
    return cls(**params)
