"""The auditor is never fooled by the user's code (issue 18 §1–2, issue 19 §1–2).

- seeding: a sampler that ignores its generator and seeds itself is refused,
  never given a verdict; unseedable samplers are valid but flagged "not
  reproducible"; selection and estimation draws of per-sample code are
  independent (also with ``seed_global=True``);
- failures: whatever user code does (exit, interrupt, out of memory, ±inf,
  raising mid-audit, ``os._exit``, a segfault, a hang) becomes one
  :class:`UserCodeError` naming the function and what it did;
- processes: per-sample code runs from a script without the ``__main__``
  guard, from ``python -`` and ``python -c`` (threads with a note when worker
  processes would re-import ``__main__``), and the own-code page's block (docs/site/own-code.md) runs verbatim.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import privcheck
from privcheck.auditor.fresh_draws import NOT_REPRODUCIBLE, check_seeding
from privcheck.auditor.per_sample import PerSample
from privcheck.auditor.user_code import UserCodeError, guard_user_code, run_isolated
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import process_obstacle

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def laplace_fixed_seed(x, n, rng):
    """A correct ε=1 Laplace mechanism that ignores ``rng`` and seeds itself (the issue 18 regression)."""
    return x + np.random.default_rng(42).laplace(0.0, 1.0, n)


def laplace_os_entropy(x, n, rng):
    """A correct ε=1 Laplace mechanism drawing from OS entropy (cannot be seeded)."""
    return x + np.random.default_rng().laplace(0.0, 1.0, n)


# --------------------------------------------------------------------------- seeding


def test_fixed_internal_seed_is_refused_not_refuted():
    # old code: the same draws for selection and estimation refuted this correct mechanism (eps lower 1.007)
    with pytest.raises(PrivcheckUsageError, match="ignores the generator it is given and seeds itself"):
        privcheck.audit(laplace_fixed_seed, inputs=[0.0, 1.0], eps=1.0, samples=20_000, seed=0, jobs=1)


def test_unseedable_sampler_is_valid_and_says_not_reproducible():
    # view=False: the real-valued law is 1-DP; its float representation is not (auto-views, tests/test_autoviews.py)
    res = privcheck.audit(
        laplace_os_entropy, inputs=[0.0, 1.0], eps=1.0, samples=20_000, confidence=0.999, jobs=1, view=False
    )
    assert res.reproducible is False
    assert res.details["reproducibility"] == NOT_REPRODUCIBLE
    assert NOT_REPRODUCIBLE in res.summary()
    assert res.verdict != "refuted" and res.eps_lower <= 1.0  # fresh draws per stage: still a valid bound
    seeded = privcheck.audit(
        lambda x, n, rng: x + rng.laplace(0.0, 1.0, n), inputs=[0.0, 1.0], eps=1.0, samples=2_000, jobs=1
    )
    assert seeded.reproducible is True and "reproducibility" not in seeded.details


def test_deterministic_and_low_entropy_samplers_are_not_refused():
    # an identity "mechanism" is constant per input: not a self-seeded sampler, and blatantly not private
    res = privcheck.audit(lambda x, n, rng: np.full(n, x), inputs=[0, 1], eps=1.0, samples=2_000, jobs=1)
    assert res.verdict == "refuted"
    # randomised response keeping the bit with probability 0.999 often repeats a batch of 64 by chance
    for s in range(20):

        def rr(x, n, rng):
            return np.where(rng.random(n) < 0.999, x, 1 - x)

        assert check_seeding(rr, 1) == (True, 1), s


def _global_rng_fn(x):
    return x + np.random.random()


def test_seed_global_selection_and_estimation_draws_are_independent():
    """Every chunk of per_sample(seed_global=True) code draws differently: no batch repeats another.

    Seeding every chunk alike (the mutation of issue 18 §1) makes every batch of a given size identical,
    which this test and the auditor's seeding probe both catch.
    """
    ps = privcheck.per_sample(_global_rng_fn, seed_global=True)
    batches: list[tuple] = []

    def recorder(x, n, rng):
        out = ps(x, n, rng)
        batches.append((x, tuple(out)))
        return out

    res = privcheck.audit(recorder, inputs=[0, 1], eps=1.0, samples=3_000, seed=4, jobs=1)
    assert res.reproducible is True
    big = [b for b in batches if len(b[1]) > 64]  # not the seeding probe (64 draws, the same seed twice on purpose)
    assert len(big) >= 4  # pilot/selection and estimation batches of both inputs
    draws = [np.asarray(b[1]) - b[0] for b in big]
    for i in range(len(draws)):
        for j in range(i):
            m = min(len(draws[i]), len(draws[j]))
            assert not np.array_equal(draws[i][:m], draws[j][:m]), (i, j)


class _SameSeedEveryChunk(PerSample):
    """per_sample(seed_global=True) mutated to seed every chunk alike (what the probe must refuse)."""

    def __call__(self, x, n, rng):
        np.random.seed(0)
        return self._run(x, n, rng)


def test_seed_global_mutation_seeding_chunks_alike_is_refused():
    with pytest.raises(PrivcheckUsageError, match="ignores the generator"):
        privcheck.audit(
            _SameSeedEveryChunk(_global_rng_fn, seed_global=True), inputs=[0, 1], eps=1.0, samples=3_000, jobs=1
        )


# --------------------------------------------------------------------------- failures of user code


def _exits(x, n, rng):
    if n > 100:
        sys.exit(0)
    return rng.integers(0, 2, n)


def _memory(x, n, rng):
    if n > 100:
        raise MemoryError
    return rng.integers(0, 2, n)


def _raises_on_large_chunks(x, n, rng):
    if n > 100:
        raise ValueError("chunk too large")
    return rng.integers(0, 2, n)


def _returns_inf(x, n, rng):
    out = x + rng.laplace(0.0, 1.0, n)
    out[-1] = -np.inf
    return out


@pytest.mark.parametrize(
    "fn, kind, words",
    [
        (_exits, "exit", "called sys.exit(0)"),
        (_memory, "memory", "ran out of memory (MemoryError)"),
        (_raises_on_large_chunks, "raised", "raised ValueError: chunk too large"),
        (_returns_inf, "nonfinite", "returned -inf"),
    ],
)
def test_user_code_failures_name_the_function(fn, kind, words):
    with pytest.raises(UserCodeError) as info:
        privcheck.audit(fn, inputs=[0, 1], eps=1.0, samples=2_000, jobs=1)
    exc = info.value
    assert exc.kind == kind and exc.function == fn.__qualname__
    assert str(exc).startswith(f"{fn.__qualname__} {words}") and "\n" not in str(exc)


def test_keyboard_interrupt_raised_by_code_in_a_worker_is_the_users():
    import signal

    def kbi(x, n, rng):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in worker processes: Ctrl-C is the parent's
    try:
        with pytest.raises(UserCodeError, match="kbi raised KeyboardInterrupt"):
            guard_user_code(kbi)(0, 4, np.random.default_rng(0))
    finally:
        signal.signal(signal.SIGINT, old)


def _os_exit():
    os._exit(0)


def _segfault():
    import ctypes
    import faulthandler

    faulthandler.disable()  # the crash itself is the point: no dump in the test log
    ctypes.string_at(0)


def _hang():
    while True:
        pass


@pytest.mark.parametrize(
    "fn, words",
    [
        (_os_exit, "ended the process running it with exit code 0"),
        (_segfault, "crashed the process running it (SIGSEGV"),
        (_hang, "timed out after 1 s"),
    ],
)
def test_isolated_user_code_cannot_end_the_run(fn, words):
    with pytest.raises(UserCodeError) as info:
        run_isolated(fn, (), timeout=1.0, name="mod:fn")
    assert str(info.value).startswith(f"mod:fn {words}")


def test_isolated_child_leaves_no_workers_behind():
    def start_and_hang():
        sampler = privcheck.per_sample(lambda x, rng: (__import__("time").sleep(3600), x)[1])
        privcheck.audit(sampler, inputs=[0, 1], eps=1.0, samples=1_000, jobs=2)

    before = _children()
    with pytest.raises(UserCodeError, match="timed out"):
        run_isolated(start_and_hang, (), timeout=3.0, name="mod:fn")
    assert _children() - before == set()


def _children() -> set[int]:
    me = os.getpid()
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == me:
                        out.add(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


# --------------------------------------------------------------------------- worker processes and __main__


@pytest.mark.parametrize(
    "source, file, expected",
    [
        ("import privcheck\nprivcheck.audit(f)\n", "script.py", "has no \"if __name__ == '__main__':\" guard"),
        ("def main():\n    pass\nif __name__ == '__main__':\n    main()\n", "script.py", None),
        ("", "<stdin>", "is not a file"),
        (None, None, None),  # python -c, the REPL, notebooks: no main file
    ],
)
def test_process_obstacle(tmp_path, monkeypatch, source, file, expected):
    main = types.ModuleType("__main__")
    if file is not None:
        path = str(tmp_path / file) if file.endswith(".py") else file
        if source and file.endswith(".py"):
            pathlib.Path(path).write_text(source)
        main.__file__ = path
    monkeypatch.setitem(sys.modules, "__main__", main)
    reason = process_obstacle()
    assert (reason is None) if expected is None else (expected in reason)


PER_SAMPLE_SCRIPT = textwrap.dedent("""
    import privcheck

    def rr(x, rng):
        return x if rng.random() < 0.73 else 1 - x

    res = privcheck.audit(privcheck.per_sample(rr), inputs=[0, 1], eps=1.0, samples=4000, jobs=2)
    print(res.verdict, res.reproducible)
""")


@pytest.mark.parametrize("how", ["script", "stdin", "dash-c"])
def test_per_sample_jobs2_runs_without_main_guard(tmp_path, how):
    script = tmp_path / "audit_me.py"
    script.write_text(PER_SAMPLE_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = {"script": [PYTHON, str(script)], "stdin": [PYTHON, "-"], "dash-c": [PYTHON, "-c", PER_SAMPLE_SCRIPT]}[how]
    r = subprocess.run(
        args,
        input=PER_SAMPLE_SCRIPT if how == "stdin" else None,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["holds", "True"]
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("privcheck: note:")]
    assert len(notes) == (0 if how == "dash-c" else 1), r.stderr  # -c has no main file: real processes
    assert "Traceback" not in r.stderr


OWN_CODE_PAGE = ROOT / "docs" / "site" / "own-code.md"
_CAP = """
import os, privcheck
_real = privcheck.audit
def _capped(*args, **kwargs):  # the README's sample sizes, capped for CI (the code itself runs verbatim)
    kwargs["samples"] = min(kwargs.get("samples", 1_000_000), int(os.environ.get("PRIVCHECK_README_CAP", "0") or 10**12))
    return _real(*args, **kwargs)
privcheck.audit = _capped
"""


@pytest.mark.parametrize("how", ["script", "stdin"])
def test_readme_auditing_your_own_code_runs_verbatim(tmp_path, how):
    blocks = re.findall(r"```python\n(.*?)```", OWN_CODE_PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2 and blocks[0].startswith("# mymech.py")
    (tmp_path / "mymech.py").write_text(blocks[0])
    (tmp_path / "audit_readme.py").write_text(blocks[1])
    (tmp_path / "sitecustomize.py").write_text(_CAP)  # runs before the script; the script stays verbatim
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]), PRIVCHECK_README_CAP="30000")
    args = [PYTHON, "audit_readme.py"] if how == "script" else [PYTHON, "-"]
    r = subprocess.run(
        args,
        input=blocks[1] if how == "stdin" else None,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("holds ") and 0.5 < float(lines[0].split()[1]) <= 1.0
    assert lines[1:6] == ["True", "holds", "holds", "refuted", "holds"]  # as the page's comments say
    raw, seen = (float(v) for v in lines[6].split())
    assert not raw > 0.3 and seen > 0.8
