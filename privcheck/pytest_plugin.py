"""pytest plugin for privcheck (the ``privcheck`` pytest11 entry point).

Claims files as tests: ``pytest`` collects every claims file named ``privcheck_*.toml`` (the
``privcheck_files`` ini option changes the patterns; a ``.toml`` named on the command line is collected
too) and runs each of its checks as one test item, failing with the check's verdict line; options
``--privcheck-seed``, ``--privcheck-quick``, ``--privcheck-samples``, ``--privcheck-confidence``; markers
``privcheck``, ``privcheck_<kind>``, ``privcheck_<method>``; a ``privcheck`` section in the terminal summary.
The collection hooks live in :mod:`privcheck.pytest_claims` and are re-exported here.

In a test::

    from privcheck.pytest_plugin import assert_claims

    def test_our_formulas():
        assert_claims("claims/my_claims.py")          # fails if any verdict differs from its expect
        assert_claims("claims/my_claims.toml")        # TOML claims files too

or with the fixture (seed, quick and samples from the ``--privcheck-*`` options)::

    def test_catalogue_symbolic(privcheck_claims):
        records = privcheck_claims(["fedsel.pe.sparsity"])   # ids/globs of loaded claims, or a .py path
        assert all(r.met_expectation for r in records)

A claims file is plain Python that calls :func:`proofs.formula.formula_claim` (or registers
``@check`` functions) at import time; :func:`load_claims_file` executes it into a private
registry, so running it twice in one session is harmless.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Sequence

import pytest

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import Registry, RunContext, VerdictRecord
from privcheck.pytest_claims import (  # noqa: F401  (hooks: pytest finds them on this module)
    pytest_addoption,
    pytest_collect_file,
    pytest_configure,
    run_options,
)

__all__ = ["load_claims_file", "run_claims", "assert_claims", "ClaimsMismatch", "privcheck_claims", "assert_trace"]


class ClaimsMismatch(AssertionError):
    """Raised by :func:`assert_claims` when a verdict differs from the declared expectation (or is ``error``)."""


def load_claims_file(path: str | os.PathLike) -> Registry:
    """Execute a user claims file (.py) into a fresh registry and return it.

    ``formula_claim`` calls inside the file register into this registry (not the built-in
    catalogue). Raises PrivcheckUsageError if the file does not exist or is not .py.
    """
    from proofs.formula import collecting

    p = Path(path)
    if not p.is_file():
        raise PrivcheckUsageError(f"claims file {str(p)!r} does not exist")
    if p.suffix != ".py":
        raise PrivcheckUsageError(f"claims file must be a .py file, got {str(p)!r}")
    reg = Registry()
    with collecting(reg):
        runpy.run_path(str(p), run_name=f"privcheck_user_{p.stem}")
    return reg


def run_claims(
    target: str | os.PathLike | Sequence[str], *, seed: int = 0, quick: bool = False, samples: int | None = None
) -> list[VerdictRecord]:
    """Run the checks of a claims file (``.py`` or ``.toml`` path) or of catalogue ids/globs (list).

    A ``.py`` file runs in a private registry; a ``.toml`` file (``[[privacy]]``,
    ``[[accountant]]``, ``[[estimator]]`` entries, see ``examples/README.md``) is
    registered like ``privcheck verify --file`` does and run in one process, its
    Monte Carlo checks at family-wise 95 % confidence. seed ≥ 0; quick: Monte Carlo
    sizes ÷ 5; samples: override every Monte Carlo size (≥ 20). Returns the verdict
    records (each with ``expect`` and ``met_expectation``).
    """
    from privcheck.runner import load_catalogue, run_check, select

    if isinstance(target, (str, os.PathLike)) and str(target).lower().endswith(".toml"):
        from privcheck.claimsfile import load_user_file
        from privcheck.runner import RunOptions, run

        ids = load_user_file(os.fspath(target))  # one-line PrivcheckUsageError on a bad file
        return run(select(ids, registry=load_catalogue()), RunOptions(seed=seed, jobs=1, quick=quick, samples=samples))
    if isinstance(target, (str, os.PathLike)) and str(target).endswith(".py"):
        reg = load_claims_file(target)
        checks = [c for lst in reg.checks.values() for c in lst]
    else:
        pats = [target] if isinstance(target, str) else list(target)
        reg = load_catalogue()
        checks = select(pats, registry=reg)
    base = RunContext(seed=seed, quick=quick, samples=samples)
    return [run_check(c, base, registry=reg) for c in checks]


def _describe(r: VerdictRecord) -> str:
    """The record's verdict line (:func:`privcheck.reports.text.verdict_line`: the reason, the error, a formula
    check's counterexample)."""
    from privcheck.reports.text import verdict_line

    return verdict_line(r)


def assert_claims(
    target: str | os.PathLike | Sequence[str], *, seed: int = 0, quick: bool = False, samples: int | None = None
) -> list[VerdictRecord]:
    """Run the claims of ``target`` (a .py or .toml claims file, or catalogue ids/globs); fail on any mismatch.

    A record fails when its verdict is ``error`` or differs from its declared ``expect``; the message has one
    verdict line per such record (with its reason). Returns the records when all match.
    """
    records = run_claims(target, seed=seed, quick=quick, samples=samples)
    if not records:
        raise ClaimsMismatch(f"no checks found in {target!r}")
    bad = [r for r in records if not r.met_expectation]
    if bad:
        raise ClaimsMismatch("claims not matching their expectation:\n" + "\n".join(_describe(r) for r in bad))
    return records


def assert_trace(fn, *, expect: str = "holds", timeout: float | None = 600.0, **kwargs):
    """Trace ``fn`` on neighbouring inputs (:func:`privcheck.trace`) and fail unless the verdict is ``expect``.

    Keeps a library's sensitivity under CI::

        def test_release_sensitivity():
            assert_trace(release, pairs=[(D, D2)], sensitivity=1.0, norm="l1")

    kwargs: those of :func:`privcheck.trace` (pairs/inputs/neighbours, sensitivity, norm, runs, seed,
    rng_type, nonfinite, examples); timeout: seconds (the trace runs in a child process; None: in this
    process). Returns the :class:`~privcheck.tracing.result.TraceResult`; raises :class:`ClaimsMismatch`
    with the trace's summary and findings when the verdict differs from ``expect``.
    """
    from privcheck.tracing.core import trace

    res = trace(fn, timeout=timeout, **kwargs)
    if res.verdict != expect:
        lines = [f"trace of {res.function}: verdict {res.verdict}, expected {expect}", res.summary]
        lines += [f"  finding: {f}" for f in res.findings[:10]]
        raise ClaimsMismatch("\n".join(lines))
    return res


@pytest.fixture
def privcheck_claims(request):
    """A function ``run(target, seed=..., quick=..., samples=...) -> list[VerdictRecord]`` (see :func:`run_claims`)
    whose defaults are the session's ``--privcheck-seed``/``--privcheck-quick``/``--privcheck-samples``."""
    import functools

    opts = run_options(request.config)
    return functools.partial(run_claims, seed=opts.seed, quick=opts.quick, samples=opts.samples)
