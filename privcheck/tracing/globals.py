"""Global randomness made recordable and coupled for the length of one call: ``numpy.random`` and ``random``.

Library code that draws from the global generators (``np.random.normal(...)``, ``random.random()``,
``check_random_state(None)``, which returns ``np.random.mtrand._rand``) is coupled by
:func:`coupled_globals`: while the block runs, the module functions of ``numpy.random`` and ``random``
(and ``np.random.mtrand._rand``) are the bound methods of a :class:`~privcheck.tracing.recording.RecordingRandomState`
and a :class:`~privcheck.tracing.recording.RecordingRandom` seeded from the run, so every call is logged;
the original global generators are seeded with the same seeds too, so code that kept a reference to
them (``from numpy.random import normal`` at import) draws the same stream in both runs of a pair,
unlogged. ``np.random.default_rng`` is replaced too: called without a seed inside the block (code
that makes its own generator) it returns a recording generator seeded from the run (the k-th such call
of a run gets the k-th child seed, the same on both inputs of a pair); with a seed it returns a recording
generator on the same stream as numpy's. On exit everything is put back — the module attributes and the states of the original
generators, also when the block raises — so a trace leaves the caller's global random state as it
found it.

Thread safety: the global generators are per process, so the block holds the process-wide lock
that :func:`privcheck.per_sample` (``seed_global=True``) holds too; other traces and seeded audits in
the process wait. Code in *other* threads that uses the global generators while a trace runs would
draw from the trace's generators: do not trace while such threads run.
"""

from __future__ import annotations

import contextlib
import random
from typing import Iterator

import numpy as np

from privcheck.auditor.per_sample import _GLOBAL_LOCK
from privcheck.tracing.recording import Recorder, RecordingGenerator, RecordingRandom, RecordingRandomState


def _default_rng(recorder: Recorder, np_seed: int):
    """A stand-in for ``np.random.default_rng`` whose generators are recording ones (see the module docstring)."""
    made = [0]
    original = np.random.default_rng

    def default_rng(seed=None):
        if isinstance(seed, np.random.Generator):
            return seed
        if seed is None:
            made[0] += 1
            seq = np.random.SeedSequence([np_seed, made[0], 0x7ACE])
            return RecordingGenerator(np.random.PCG64(seq), recorder)
        if isinstance(seed, np.random.BitGenerator):
            return RecordingGenerator(seed, recorder)
        try:
            return RecordingGenerator(np.random.PCG64(seed), recorder)
        except (TypeError, ValueError):  # whatever numpy makes of it, with numpy's own error
            return original(seed)

    default_rng.__doc__ = original.__doc__
    return default_rng


def _bound_names(module, instance) -> list[str]:
    """The module attributes that are bound methods of ``instance`` (``np.random.normal`` of ``_rand``)."""
    out = []
    for name in dir(module):
        if name.startswith("__"):
            continue
        try:
            if getattr(getattr(module, name), "__self__", None) is instance:
                out.append(name)
        except Exception:  # noqa: BLE001 - an attribute that cannot be read is left alone
            continue
    return out


@contextlib.contextmanager
def coupled_globals(recorder: Recorder, np_seed: int, py_seed: int) -> Iterator[None]:
    """Within the block, ``numpy.random`` and ``random`` draw from recording generators seeded with
    ``np_seed`` / ``py_seed`` (both in [0, 2**32)); everything is restored on exit (see the module docstring)."""
    with _GLOBAL_LOCK:
        mt = np.random.mtrand
        orig_rand = mt._rand
        np_names = _bound_names(np.random, orig_rand)
        py_inst = random._inst
        py_names = _bound_names(random, py_inst)
        saved_np = {n: getattr(np.random, n) for n in np_names}
        saved_default = np.random.default_rng
        saved_py = {n: getattr(random, n) for n in py_names}
        np_state = orig_rand.get_state()
        py_state = py_inst.getstate()
        rs = RecordingRandomState(np_seed, recorder, source="numpy.random")
        pr = RecordingRandom(py_seed, recorder)
        try:
            orig_rand.seed(np_seed)
            py_inst.seed(py_seed)
            mt._rand = rs
            np.random.default_rng = _default_rng(recorder, np_seed)
            for n in np_names:
                if hasattr(rs, n):
                    setattr(np.random, n, getattr(rs, n))
            for n in py_names:
                if hasattr(pr, n):
                    setattr(random, n, getattr(pr, n))
            yield
        finally:
            mt._rand = orig_rand
            np.random.default_rng = saved_default
            for n, v in saved_np.items():
                setattr(np.random, n, v)
            for n, v in saved_py.items():
                setattr(random, n, v)
            orig_rand.set_state(np_state)
            py_inst.setstate(py_state)
