"""privcheck: verify and account for differential privacy in federated learning.

Public API (see DESIGN.md)::

    import privcheck
    res = privcheck.audit(sampler, inputs=[0, 1], eps=1.0, samples=1_000_000, seed=0)
    mech = privcheck.mechanism("fedsel-pe", d=5, k=2, eps=2.0)
    records = privcheck.verify(["fedsel.*"], seed=0)
"""

from __future__ import annotations

from privcheck.base.errors import PrivcheckUsageError, UnknownNameError

#: names exported lazily (``privcheck.Claim`` imports :mod:`privcheck.claims` on first use, not at start-up)
_LAZY = {
    "Claim": "privcheck.claims",
    "Outcome": "privcheck.claims",
    "RunContext": "privcheck.claims",
    "VerdictRecord": "privcheck.claims",
    "check": "privcheck.claims",
    "Scenario": "privcheck.estimator_check",
    "PackedBits": "privcheck.base.packed",
}

__version__ = "0.1.0"

__all__ = [
    "audit",
    "per_sample",
    "mechanism",
    "verify",
    "check_estimator",
    "audit_scores",
    "one_run_bound",
    "check_sampling",
    "Scenario",
    "PackedBits",
    "Claim",
    "Outcome",
    "RunContext",
    "VerdictRecord",
    "check",
    "PrivcheckUsageError",
    "UnknownNameError",
    "trace",
    "audit_calibrator",
    "strategies",
]


def audit(*args, **kwargs):
    """Audit a mechanism's ε; see :func:`privcheck.auditor.audit` (oversize requests are refused there)."""
    from privcheck.auditor import audit as _audit

    return _audit(*args, **kwargs)


def per_sample(fn=None, **kwargs):
    """Turn one-output code ``fn(x, rng)`` / ``fn(x)`` into a sampler; see :func:`privcheck.auditor.per_sample.per_sample`."""
    from privcheck.auditor.per_sample import per_sample as _per_sample

    return _per_sample(fn, **kwargs)


def trace(fn, **kwargs):
    """Gray-box trace of ``fn`` on neighbouring inputs with coupled randomness; see :func:`privcheck.tracing.core.trace`."""
    from privcheck.tracing.core import trace as _trace

    return _trace(fn, **kwargs)


def audit_calibrator(fn, **kwargs):
    """Check a noise calibrator against the exact curve; see :func:`privcheck.calibration.audit.audit_calibrator`."""
    from privcheck.calibration.audit import audit_calibrator as _audit_calibrator

    return _audit_calibrator(fn, **kwargs)


def mechanism(name: str, **params):
    """A built-in mechanism by CLI name; see :func:`estimators.registry.mechanism`."""
    from estimators.registry import mechanism as _mechanism

    return _mechanism(name, **params)


def check_estimator(*args, **kwargs):
    """Check an estimator's bias and variance by simulation; see :func:`privcheck.estimator_check.check_estimator`."""
    from privcheck.estimator_check import check_estimator as _check

    return _check(*args, **kwargs)


def audit_scores(scores_in, scores_out, **kwargs):
    """Certified ε / μ lower bounds from canary scores; see :func:`privcheck.canaries.audit.audit_scores`."""
    from privcheck.canaries.audit import audit_scores as _audit_scores

    return _audit_scores(scores_in, scores_out, **kwargs)


def one_run_bound(guesses, correct, **kwargs):
    """Certified one-run ε lower bound (Steinke et al. 2023); see :func:`privcheck.canaries.steinke.one_run_bound`."""
    from privcheck.canaries.steinke import one_run_bound as _one_run_bound

    return _one_run_bound(guesses, correct, **kwargs)


def check_sampling(batches, **kwargs):
    """Test whether batches were drawn the way the accountant assumes; see :func:`privcheck.sampling.check_sampling`."""
    from privcheck.sampling import check_sampling as _check

    return _check(batches, **kwargs)


def __getattr__(name: str):
    if name == "strategies":  # the hypothesis strategies module (imports hypothesis: only on use)
        import importlib

        return importlib.import_module("privcheck.strategies")
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'privcheck' has no attribute {name!r}")


def verify(patterns=None, **kwargs):
    """Run catalogue claims; see :func:`privcheck.runner.verify`."""
    from privcheck.runner import verify as _verify

    return _verify(patterns, **kwargs)
