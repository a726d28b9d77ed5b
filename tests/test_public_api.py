"""The Python API examples of the site (docs/site/audit.md, "In Python") run and give the documented results."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import privcheck

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "site" / "audit.md"


def test_estimator_api_single_result_decides_with_its_own_family():
    from privcheck.estimator_check import decide

    eps, t, n = 1.0, 0.3, 100
    duchi = privcheck.mechanism("duchi", eps=eps)
    B = (np.exp(eps) + 1) / (np.exp(eps) - 1)
    good = privcheck.Scenario(
        name="duchi mean",
        draw=lambda rng, size: duchi.sample(t, size * n, rng).reshape(size, n),
        target=t,
        claimed_variance=(B**2 - t**2) / n,
        tolerance=0.01,
    )
    res = privcheck.check_estimator(lambda r: r.mean(axis=1), good, replicates=20_000, seed=0)
    assert res.family == 2 and decide([res]).verdict == "holds"
    # a variance formula missing the −t² term is refuted
    bad = privcheck.Scenario(name="duchi mean", draw=good.draw, target=t, claimed_variance=B**2 / n * 1.2)
    res_bad = privcheck.check_estimator(lambda r: r.mean(axis=1), bad, replicates=20_000, seed=0)
    assert decide([res_bad]).verdict == "refuted"


def test_site_python_api_block_runs():
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"## In Python\n\n(?:<!--.*?-->\n)?```python\n(.*?)```", text, re.S).group(1)
    # the OUE audit at 10^6 samples is the slow part; run the block at a smaller size
    block = block.replace("samples=1_000_000", "samples=100_000")
    namespace: dict = {}
    exec(compile(block, "docs/site/audit.md", "exec"), namespace)
    from privcheck.estimator_check import decide

    assert namespace["res"].verdict == "holds"
    assert decide([namespace["est"]]).verdict == "holds"


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        privcheck.no_such_thing  # noqa: B018
