"""privcheck.trace: correct pipelines pass, the classic glue bugs are refuted with the measured number, bad input
is one line / verdict error, uncouplable randomness is inconclusive, global state is restored."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import privcheck
from privcheck import strategies as S
from privcheck.base.errors import PrivcheckUsageError

D = [0.2, 0.5, 0.9]
ADD_REMOVE = [(D, D[:-1]), (D, [*D, 1.0]), (D, [*D, 50.0]), (D, [*D, -50.0])]


def _finite(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError("non-finite record")  # a correct refusal of NaN/inf records
    return x


# ----------------------------------------------------------------- correct pipelines: no false alarm
def clipped_sum(data, rng):
    return float(np.clip(_finite(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0))


def clipped_sum_loc(data, rng):  # the value goes in as the location of the draw
    return float(rng.normal(loc=np.clip(_finite(data), 0.0, 1.0).sum(), scale=2.0))


def clipped_sum_global(data):
    return float(np.clip(_finite(data), 0.0, 1.0).sum() + np.random.laplace(0.0, 1.0) + random.gauss(0.0, 0.1))


def clipped_sum_rs(data, random_state):
    return float(np.clip(_finite(data), 0.0, 1.0).sum() + random_state.laplace(0.0, 1.0))


def clipped_vector(x, rng):  # one client's vector clipped to l2 norm 1: replace distance <= 2
    x = _finite(x)
    n = np.linalg.norm(x)
    x = x if n <= 1 else x / n
    return x + rng.normal(0.0, 1.0, size=x.shape)


@pytest.mark.parametrize(
    "fn, kw",
    [
        (clipped_sum, {}),
        (clipped_sum_loc, {}),
        (clipped_sum_global, {}),
        (clipped_sum_rs, {"rng_type": "random_state"}),
    ],
)
def test_correct_sum_holds_and_measures_the_sensitivity(fn, kw):
    res = privcheck.trace(fn, pairs=ADD_REMOVE, sensitivity=1.0, norm="l1", runs=5, **kw)
    assert res.verdict == "holds", res.summary
    assert res.sensitivity_lower == pytest.approx(1.0, abs=1e-12)  # the record 50 clipped to 1
    assert res.findings == []
    assert res.details["notes"]  # the NaN/inf neighbours were refused, which is correct


def test_coupling_modes_are_detected():
    assert privcheck.trace(clipped_sum_global, pairs=ADD_REMOVE[:1], runs=1).coupling == "global"
    assert privcheck.trace(clipped_sum, pairs=ADD_REMOVE[:1], runs=1).coupling == "generator"


def test_vector_pipeline_holds_in_l2():
    pairs = [([3.0, 4.0], [-3.0, -4.0]), ([0.1, 0.0], [0.0, 0.2])]
    res = privcheck.trace(clipped_vector, pairs=pairs, sensitivity=2.0, norm="l2", runs=3)
    assert res.verdict == "holds", res.summary
    assert res.sensitivity_lower == pytest.approx(2.0, rel=1e-12)


def test_randomised_response_is_no_false_alarm():
    def grr(x, rng):  # data-dependent probabilities and populations: how LDP works, no finding
        if rng.random() < 0.7:
            return x
        return rng.choice([v for v in range(4) if v != x])

    res = privcheck.trace(grr, inputs=[0, 1, 2], runs=5)
    assert res.verdict == "holds", res.summary
    assert all(not d.finding for d in res.divergences)


# ----------------------------------------------------------------- the classic glue bugs
def sum_clipped_after(data, rng):  # the clipping bug: the sum is clipped, not the records
    x = _finite(data)
    return float(np.clip(x.sum(), -len(x), len(x)) + rng.laplace(0.0, 1.0))


def test_clipping_bug_refuted_with_the_measured_number():
    res = privcheck.trace(sum_clipped_after, pairs=ADD_REMOVE, sensitivity=1.0, norm="l1", runs=3)
    assert res.verdict == "refuted"
    # sum(D) = 1.6; with -50 the sum -48.4 is clipped at -4: the released value moves by 5.6
    assert res.sensitivity_lower == pytest.approx(5.6, rel=1e-12)
    assert "sensitivity >= 5.6" in res.summary


def noise_from_data(data, rng):  # data-dependent noise scale
    x = np.clip(_finite(data), 0.0, 1.0)
    return float(x.sum() + rng.laplace(0.0, 1.0 + x.std()))


def test_data_dependent_noise_scale_refuted_with_site_and_values():
    res = privcheck.trace(noise_from_data, pairs=ADD_REMOVE[:2], sensitivity=1.0, norm="l1", runs=2)
    assert res.verdict == "refuted"
    div = [d for d in res.divergences if d.finding]
    assert div and div[0].kind == "scale" and div[0].method == "laplace" and div[0].param == "scale"
    assert div[0].site.startswith(os.path.join("tests", "test_trace.py:")) or "test_trace.py:" in div[0].site
    x, y = np.clip(D, 0, 1), np.clip(D[:-1], 0, 1)
    assert float(div[0].value_a) == pytest.approx(1 + x.std()) and float(div[0].value_b) == pytest.approx(1 + y.std())


def nan_through_clip(data, rng):  # np.clip lets NaN through
    return float(np.clip(np.asarray(data, float), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0))


def test_nan_record_refuted():
    res = privcheck.trace(nan_through_clip, pairs=ADD_REMOVE[:1], sensitivity=1.0, norm="l1", runs=2)
    assert res.verdict == "refuted"
    assert res.nonfinite and res.nonfinite[0].output == "nan" and "nan" in res.nonfinite[0].input
    assert res.sensitivity_lower == pytest.approx(0.9, rel=1e-12)  # the finite pairs themselves are fine


def test_sensitivity_declared_for_the_wrong_relation():
    def signed_sum(data, rng):  # records in [-1, 1]: add/remove sensitivity 1, replace-one 2
        return float(np.clip(_finite(data), -1.0, 1.0).sum() + rng.laplace(0.0, 1.0))

    res = privcheck.trace(signed_sum, pairs=[([1.0, 0.5], [-1.0, 0.5])], sensitivity=1.0, norm="l1", runs=2)
    assert res.verdict == "refuted" and res.sensitivity_lower == pytest.approx(2.0, rel=1e-12)
    ok = privcheck.trace(signed_sum, pairs=[([1.0, 0.5], [0.5]), ([0.5], [0.5, -1.0])], sensitivity=1.0, norm="l1")
    assert ok.verdict == "holds" and ok.sensitivity_lower == pytest.approx(1.0)


def test_noise_on_one_input_only_is_a_finding():
    def thresholded(data, rng):  # releases the exact sum when it is small: noise presence reads the data
        s = float(np.clip(_finite(data), 0, 1).sum())
        return s if s < 1.5 else s + rng.laplace(0.0, 1.0)

    res = privcheck.trace(thresholded, pairs=[([0.9, 0.9], [0.9, 0.1])], sensitivity=1.0, norm="l1", runs=2)
    assert res.verdict == "refuted"
    assert any(d.kind == "sequence" and d.finding for d in res.divergences)


def test_per_record_noise_on_add_remove_is_no_finding():
    def local_noise(data, rng):  # one draw per record: the count follows the dataset's size, not its values
        x = np.clip(_finite(data), 0, 1)
        return float(sum(v + rng.laplace(0.0, 1.0) for v in x))

    res = privcheck.trace(local_noise, pairs=[(D, D[:-1])], sensitivity=1.0, norm="l1", runs=2)
    assert res.verdict == "holds", res.summary
    assert any(d.kind == "sequence" and not d.finding for d in res.divergences)


# ----------------------------------------------------------------- search
def test_search_finds_and_shrinks_the_clipping_bug(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    strat = S.datasets(lower=0.0, upper=1.0, outside=True)
    a = privcheck.trace(sum_clipped_after, neighbours=strat, sensitivity=1.0, norm="l1", examples=50, seed=3)
    b = privcheck.trace(sum_clipped_after, neighbours=strat, sensitivity=1.0, norm="l1", examples=50, seed=3)
    assert a.verdict == b.verdict == "refuted"
    assert a.details["shrunk_pair"] == b.details["shrunk_pair"]  # deterministic from the seed
    assert a.sensitivity_lower == b.sensitivity_lower > 1.0
    assert a.details["shrunk_distance"] > 1.0
    assert not (tmp_path / ".hypothesis").exists()  # nothing written into the user's project
    good = privcheck.trace(clipped_sum, neighbours=strat, sensitivity=1.0, norm="l1", examples=50)
    assert good.verdict == "holds", good.summary


# ----------------------------------------------------------------- uncouplable randomness, bad input, failures
def test_uncouplable_randomness_is_inconclusive():
    def own_entropy(x, rng):
        return x + random.SystemRandom().gauss(0.0, 1.0)

    res = privcheck.trace(own_entropy, inputs=[0.0, 1.0], sensitivity=1.0)
    assert res.verdict == "inconclusive" and "cannot couple" in res.summary


def test_unseeded_default_rng_inside_is_coupled():
    def own_generator(x):
        return x + np.random.default_rng().laplace(0.0, 1.0)

    res = privcheck.trace(own_generator, inputs=[0.0, 1.0], sensitivity=1.0, nonfinite=False)
    assert res.verdict == "holds" and res.sensitivity_lower == pytest.approx(1.0) and res.calls > 0
    assert np.random.default_rng.__module__ != __name__  # restored


def test_numba_randomness_is_inconclusive():
    numba = pytest.importorskip("numba")

    @numba.njit
    def jitted(x):
        return x + np.random.laplace(0.0, 1.0)

    # in a child process (timeout=): numba's own random state in this process stays untouched, which other
    # tests of numba libraries depend on
    res = privcheck.trace(jitted, inputs=[0.0, 1.0], sensitivity=1.0, rng_type="global", timeout=120)
    assert res.verdict == "inconclusive" and "numba" in res.reason


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"pairs": [(0.0, "a")]}, "different types"),
        ({"pairs": [(0.0, 1.0)], "sensitivity": 0}, "sensitivity"),
        ({"pairs": [(0.0, 1.0)], "sensitivity": -1}, "sensitivity"),
        ({"pairs": [(0.0, 1.0)], "sensitivity": float("nan")}, "sensitivity"),
        ({"pairs": [(0.0, 1.0)], "norm": "l3"}, "norm must be one of"),
        ({"pairs": [(0.0, 1.0)], "runs": 0}, "runs"),
        ({"pairs": [(0.0, 1.0)], "rng_type": "mersenne"}, "rng_type"),
        ({}, "needs pairs"),
        ({"inputs": [1.0]}, "at least two"),
        ({"neighbours": [1, 2]}, "hypothesis strategy"),
        ({"pairs": [(0.0,)]}, "two inputs"),
    ],
)
def test_bad_requests_are_one_line(kw, words):
    with pytest.raises(PrivcheckUsageError) as err:
        privcheck.trace(clipped_sum, **kw)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_fn_not_callable():
    with pytest.raises(PrivcheckUsageError, match="callable"):
        privcheck.trace(42, pairs=[(0.0, 1.0)])


def test_crash_exit_and_hang_are_verdict_error():
    def crash(x, rng):
        raise RuntimeError("boom")

    def leave(x, rng):
        raise SystemExit(3)

    def hang(x, rng):
        while True:
            pass

    r1 = privcheck.trace(crash, pairs=[(0.0, 1.0)])
    assert r1.verdict == "error" and "RuntimeError: boom" in r1.summary and "\n" not in r1.summary
    assert privcheck.trace(leave, pairs=[(0.0, 1.0)]).verdict == "error"
    r3 = privcheck.trace(hang, pairs=[(0.0, 1.0)], timeout=1.0)
    assert r3.verdict == "error" and "timed out" in r3.summary


def test_global_state_is_restored():
    np.random.seed(123)
    random.seed(7)
    before_np, before_py = np.random.get_state(), random.getstate()
    normal, gauss = np.random.normal, random.gauss
    privcheck.trace(clipped_sum_global, pairs=ADD_REMOVE, sensitivity=1.0, runs=2)
    after_np = np.random.get_state()
    assert all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b for a, b in zip(before_np, after_np))
    assert random.getstate() == before_py
    assert np.random.normal == normal and random.gauss == gauss
    assert np.random.mtrand._rand.__class__ is np.random.RandomState


def test_recording_generator_draws_the_plain_stream():
    from privcheck.tracing.recording import Recorder, RecordingGenerator, RecordingRandomState

    rec = Recorder()
    g, plain = RecordingGenerator(np.random.PCG64(5), rec), np.random.Generator(np.random.PCG64(5))
    assert np.array_equal(g.normal(1.0, 2.0, size=3), plain.normal(1.0, 2.0, size=3))
    assert g.integers(0, 10) == plain.integers(0, 10)
    assert [d.method for d in rec.draws] == ["normal", "integers"]
    assert rec.draws[0].params["loc"] == 1.0 and rec.draws[0].shape == (3,)
    rs = RecordingRandomState(9, rec)
    assert rs.random() == np.random.RandomState(9).random()
    assert rec.draws[-1].method == "random" and len(rec.draws) == 3  # random() -> random_sample: logged once


def test_result_to_dict_is_json_ready():
    import json

    res = privcheck.trace(noise_from_data, pairs=ADD_REMOVE[:2], sensitivity=1.0, runs=1)
    data = json.loads(json.dumps(res.to_dict()))
    assert data["verdict"] == "refuted" and data["findings"] and data["divergences"][0]["kind"] == "scale"
