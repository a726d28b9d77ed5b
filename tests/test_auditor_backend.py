"""The auditor's chunk functions travel like Dask tasks: cloudpickled, with small results, same answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

import privcheck
import privcheck.auditor.execution as execution
from privcheck.base.scheduler import ThreadBackend, chunk_generator

cloudpickle = pytest.importorskip("cloudpickle")


class PicklingBackend:
    """Runs each chunk on a cloudpickled copy of its function and ships the result back pickled."""

    name = "pickling"

    def __init__(self):
        self.result_sizes = []

    def run_chunks(self, fn, sizes, seed_seq, progress=None):
        out = []
        for i, s in enumerate(sizes):
            remote = cloudpickle.loads(cloudpickle.dumps(fn))
            blob = cloudpickle.dumps(remote(chunk_generator(seed_seq, i), s))
            result = cloudpickle.loads(blob)
            if not (isinstance(result, np.ndarray) and result.ndim == 2):  # pilot draws are the only raw data
                self.result_sizes.append(len(blob))
            out.append(result)
            if progress:
                progress(s)
        return out


def oue(d, eps):
    q = 1.0 / (math.exp(eps) + 1.0)

    def sampler(x, n, rng):
        bits = rng.random((n, d)) < q
        bits[:, x] = rng.random(n) < 0.5
        return bits

    return sampler


@pytest.mark.parametrize(
    "sampler, inputs, kwargs",
    [
        (oue(20, 1.0), [0, 1], {}),
        (privcheck.mechanism("pm", eps=1.0), [-1.0, 1.0], {}),
        (lambda x, n, rng: x + rng.laplace(0, 1, n), [0.0, 1.0, 3.0], {"pairs": [(0.0, 1.0)]}),
    ],
)
def test_pickled_chunks_give_identical_results(monkeypatch, sampler, inputs, kwargs):
    args = dict(inputs=inputs, eps=1.0, samples=600_000, seed=4, **kwargs)
    threads = privcheck.audit(sampler, jobs=2, **args)
    backend = PicklingBackend()
    seen = {}

    def fake_get_backend(jobs=None, client=None, processes=False):
        seen["client"] = client
        return backend

    monkeypatch.setattr(execution, "get_backend", fake_get_backend)
    pickled = privcheck.audit(sampler, client="fake-client", **args)
    # the audit wraps the client it was given in one lazily built backend for all its stages
    assert getattr(seen["client"], "client", seen["client"]) == "fake-client"
    assert pickled.eps_lower == threads.eps_lower
    assert pickled.details["candidates"] == threads.details["candidates"]
    assert backend.result_sizes and max(backend.result_sizes) < 200_000  # counts, not draws


def test_thread_backend_is_the_default():
    assert isinstance(execution.get_backend(jobs=1), ThreadBackend)
