"""The Opacus adapter: a real privacy-engine run audited in one run (needs the privcheck[torch] extra)."""

from __future__ import annotations

import pytest

from privcheck.canaries.opacus_run import opacus_available

if not opacus_available():
    pytest.skip("torch/opacus not installed (extra privcheck[torch])", allow_module_level=True)


def test_opacus_run_is_audited_against_its_own_parameters():
    from privcheck.canaries.opacus_run import audit_opacus, opacus_run

    run = opacus_run(sigma=1.0, batch_size=200, epochs=4, n=800, canaries=400, seed=1)
    assert run.steps >= 8 and 0 < run.sample_rate < 1 and run.eps_opacus > 0
    res = audit_opacus(run)
    assert res.verdict in ("holds", "inconclusive")
    assert 0 <= res.eps_lower <= run.eps_opacus  # Opacus' RDP ε is an upper bound of the PLD ε


def test_a_smaller_noise_than_claimed_is_refuted():
    """The run uses σ = 0.3 while the audit is told σ = 3 (a wrong noise multiplier passed to the engine)."""
    from dataclasses import replace

    from privcheck.canaries.opacus_run import audit_opacus, opacus_run

    run = opacus_run(sigma=0.3, batch_size=200, epochs=4, n=800, canaries=400, seed=2)
    assert audit_opacus(replace(run, sigma=3.0)).verdict == "refuted"
