"""Coupled calls: the user's function on one input with the run's random stream, every draw recorded.

:class:`Coupler` decides, once, how the function receives its randomness — the signature detection
and the ``rng_type`` values of :func:`privcheck.per_sample` (``fn(x, rng)`` gets a
:class:`~privcheck.tracing.recording.RecordingGenerator`, or with ``rng_type="random_state"`` a
:class:`~privcheck.tracing.recording.RecordingRandomState`; ``fn(x)`` draws from the global generators)
— and :meth:`Coupler.call` runs it: the generators are built from the run's
:class:`numpy.random.SeedSequence`, so the two inputs of a pair see the same stream, and the global
generators are coupled and recorded in every mode (:func:`~privcheck.tracing.globals.coupled_globals`),
since library code often draws from both. The input is deep-copied before each call (code that
modifies its input in place cannot leak one run into the next), and the function runs under
:func:`privcheck.auditor.user_code.call_user`: whatever it does (raise, exit, run out of memory)
becomes one :class:`~privcheck.base.errors.UserCodeError` line.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from privcheck.auditor.per_sample import PerSample, callable_name
from privcheck.auditor.user_code import call_user
from privcheck.base.errors import PrivcheckUsageError
from privcheck.tracing.globals import coupled_globals
from privcheck.tracing.recording import Draw, Recorder, RecordingGenerator, RecordingRandomState

#: how the function receives randomness: a Generator, a RandomState, or none (the global generators)
RNG_TYPES = ("generator", "random_state", "global")


@dataclass
class Run:
    """One coupled call: the function's ``output`` (a deep copy) and its ``draws`` in call order."""

    output: Any
    draws: list[Draw]


def short(x: Any, width: int = 60) -> str:
    """``repr(x)`` cut to ``width`` characters (for one-line messages; numpy scalars as plain numbers)."""
    if isinstance(x, np.generic):
        x = x.item()
    elif isinstance(x, np.ndarray):
        with np.printoptions(threshold=8, edgeitems=3, precision=6):
            text = repr(x)
        return text if len(text) <= width else text[: width - 1] + "…"
    text = repr(x)
    return text if len(text) <= width else text[: width - 1] + "…"


class Coupler:
    """Calls ``fn`` on one input with a run's stream (see the module docstring).

    fn: ``fn(x, rng)`` or ``fn(x)``; rng_type: one of :data:`RNG_TYPES` (``"global"`` forces ``fn(x)``);
    name: how ``fn`` is named in messages.
    """

    def __init__(self, fn: Callable, rng_type: str = "generator", name: str | None = None):
        if not callable(fn):
            raise PrivcheckUsageError(f"trace needs a callable fn(x, rng) or fn(x), got {type(fn).__name__}")
        if rng_type not in RNG_TYPES:
            raise PrivcheckUsageError(f"rng_type must be one of {', '.join(RNG_TYPES)}, got {rng_type!r}")
        self.fn = fn
        self.name = name or callable_name(fn)
        if rng_type == "global":
            self.mode = "global"
        else:  # per_sample's signature detection and checks: fn(x, rng) or fn(x)
            takes = PerSample(fn, rng_type=rng_type).takes_rng
            self.mode = rng_type if takes else "global"

    def call(self, x: Any, seq: np.random.SeedSequence, where: str = "") -> Run:
        """``fn`` at a deep copy of ``x`` with the stream of ``seq``; raises UserCodeError if ``fn`` fails."""
        words = seq.generate_state(3)
        rec = Recorder()
        with coupled_globals(rec, int(words[1]), int(words[2])):
            if self.mode == "generator":
                args: tuple = (_copy(x), RecordingGenerator(np.random.PCG64(seq), rec))
            elif self.mode == "random_state":
                args = (_copy(x), RecordingRandomState(int(words[0]), rec))
            else:
                args = (_copy(x),)
            out = call_user(self.fn, args, self.name, where or f"at input {short(x)}")
            rec.enabled = False  # copying the output must not draw into the log
            return Run(_copy(out), list(rec.draws))


def _copy(x: Any) -> Any:
    try:
        return copy.deepcopy(x)
    except Exception:  # noqa: BLE001 - an object that cannot be copied is passed as is
        return x
