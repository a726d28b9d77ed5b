"""Mechanisms by CLI name: :func:`mechanism` builds one from the papers' parameter names."""
from __future__ import annotations

import inspect
from typing import Any

from estimators.base import Mechanism
from privcheck.errors import UnknownNameError

MECHANISMS: dict[str, type[Mechanism]] = {}


def register(cls: type[Mechanism]) -> type[Mechanism]:
    """Class decorator adding a mechanism to :data:`MECHANISMS` under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no CLI name")
    MECHANISMS[cls.name] = cls
    return cls


def _load() -> None:
    # importing the modules registers their classes
    import estimators.mechanisms  # noqa: F401


def mechanism_names() -> list[str]:
    """The registered CLI names, sorted."""
    _load()
    return sorted(MECHANISMS)


def mechanism_parameters(name: str) -> list[str]:
    """The parameter names the mechanism ``name`` accepts."""
    _load()
    cls = _get(name)
    sig = inspect.signature(cls.__init__)
    return [p for p in sig.parameters if p != "self" and sig.parameters[p].kind is not inspect.Parameter.VAR_KEYWORD]


def _get(name: str) -> type[Mechanism]:
    try:
        return MECHANISMS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown mechanism {name!r}; allowed: {', '.join(sorted(MECHANISMS))}"
        ) from None


def mechanism(name: str, **params: Any) -> Mechanism:
    """Build the mechanism ``name`` (e.g. ``"fedsel-pe"``) with the papers' parameters.

    Unknown names or parameters raise :class:`UnknownNameError` listing what is
    allowed; invalid values raise ``ValueError`` naming the parameter's range.
    """
    _load()
    cls = _get(name)
    allowed = mechanism_parameters(name)
    for key in params:
        if key not in allowed:
            raise UnknownNameError(
                f"unknown parameter {key!r} for mechanism {name!r}; allowed: {', '.join(allowed)}"
            )
    return cls(**params)
