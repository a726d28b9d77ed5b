"""Mechanisms by CLI name: :func:`mechanism` builds one from the papers' parameter names.

The registry is an explicit table: :data:`WHERE` names the module and class of every built-in
mechanism, so building one imports only its own module (``privcheck audit de`` does not import
the quantisation, piecewise or oracle modules), and no module registers anything by being
imported. tests/test_registry_lazy.py checks that every entry names a class whose ``name`` is
its key and that every :class:`~estimators.base.Mechanism` subclass with a CLI name is listed.
To add a mechanism: write its class (with ``name = "cli-name"``) and add one line here.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from estimators.base import Mechanism
from privcheck.base.errors import UnknownNameError

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


def mechanism_class(name: str) -> type[Mechanism]:
    """The class of the built-in mechanism ``name`` (imports its module only; :data:`WHERE`)."""
    where = WHERE.get(name) if isinstance(name, str) else None
    if where is None:
        raise UnknownNameError(f"unknown mechanism {name!r}; allowed: {', '.join(sorted(WHERE))}")
    module, _, cls = where.partition(":")
    return getattr(importlib.import_module(module), cls)


def mechanism_names() -> list[str]:
    """The CLI names of the built-in mechanisms, sorted (imports nothing)."""
    return sorted(WHERE)


def mechanism_parameters(name: str) -> list[str]:
    """The parameter names the mechanism ``name`` accepts."""
    cls = mechanism_class(name)
    sig = inspect.signature(cls.__init__)
    return [p for p in sig.parameters if p != "self" and sig.parameters[p].kind is not inspect.Parameter.VAR_KEYWORD]


def mechanism(name: str, **params: Any) -> Mechanism:
    """Build the mechanism ``name`` (e.g. ``"fedsel-pe"``) with the papers' parameters.

    Only the module defining ``name`` is imported (see :data:`WHERE`). Unknown names or
    parameters raise :class:`UnknownNameError` listing what is allowed; invalid values
    raise ``ValueError`` naming the parameter's range.
    """
    cls = mechanism_class(name)
    allowed = mechanism_parameters(name)
    for key in params:
        if key not in allowed:
            raise UnknownNameError(f"unknown parameter {key!r} for mechanism {name!r}; allowed: {', '.join(allowed)}")
    return cls(**params)
