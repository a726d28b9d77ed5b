"""Opacus (``opacus`` 1.6.0 on a CPU ``torch``; extra ``privcheck[torch]``, never installed in CI): ``zoo.opacus.*``.

* ``zoo.opacus.calibration`` — ``get_noise_multiplier(target_epsilon, target_delta, sample_rate, steps,
  accountant=...)`` for each Opacus accountant (``rdp``, ``prv``, ``gdp``): the σ it returns must deliver the
  target, i.e. the Poisson-subsampled Gaussian at that σ has ε(δ) ≤ target. Checked against privcheck's
  certified PLD (:class:`accountants.pld.PLDAccountant`): refuted when the certified *lower* end exceeds the
  target; the row's true ε is the PLD interval's upper end (exact up to the interval's width).
* ``zoo.opacus.data_loader`` — ``DPDataLoader.from_data_loader`` draws Poisson batches at rate 1/len(loader):
  :func:`privcheck.check_sampling` on its batches (and, as the contrast the accountant must not be used with,
  the plain shuffled ``DataLoader`` it replaces).
* ``zoo.opacus.optimizer_step`` — one ``DPOptimizer`` step (SGD, lr 1) on per-sample gradients set as
  ``GradSampleModule`` sets them (``p.grad_sample``): batch with or without a target record whose gradient is
  clipped to ``max_grad_norm``; documented as the Gaussian mechanism with noise multiplier z, μ = 1/z (add/remove).
  Torch's generator is seeded from the audit's seed on each call (reproducible).
"""

from __future__ import annotations

import time

from privcheck.catalogue.zoo.engine import reproduce_command
from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

LIB, DIST, MODS = "Opacus", "opacus", ("torch", "opacus")
CLAIM = "zoo.opacus."
HINT = "not installed: pip install 'privcheck[torch]' (a CPU torch; never in CI)"
#: (target ε, δ, sample rate, steps): the REFERENCE.md DP-SGD case and a short small-ε run
CALIBRATION_CASES = ((5.0, 1e-5, 0.01, 10_000), (1.0, 1e-5, 0.01, 1_000))
ACCOUNTANTS = ("rdp", "prv", "gdp")


def _gate(statement: str):
    """The skipped Outcome when torch/opacus are missing (None when installed) and the versions."""
    from privcheck.catalogue.peers import missing, versions
    from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS

    vers = versions(DIST, "torch")
    pinned = {d: SCORECARD_VERSIONS[d] for d in vers if d in SCORECARD_VERSIONS}
    if missing(*MODS) is not None:
        details = {"skipped": True, "reason": f"opacus {HINT}", "library": LIB, "versions": vers}
        return Outcome("inconclusive", claimed=statement, details=details), vers, pinned
    return None, vers, pinned


def calibration_row(accountant: str, eps: float, delta: float, q: float, steps: int) -> dict:
    """One calibration case: Opacus's σ and the certified PLD ε(δ) interval at that σ."""
    from opacus.accountants.utils import get_noise_multiplier

    from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent

    t0 = time.perf_counter()
    sigma = float(
        get_noise_multiplier(target_epsilon=eps, target_delta=delta, sample_rate=q, steps=steps, accountant=accountant)
    )
    acc = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma=sigma), q=q), count=steps)
    iv = acc.epsilon(delta=delta)
    verdict = "refuted" if iv.lower > eps else "holds"
    return {
        "case": f"{accountant}: eps={eps:g}, delta={delta:g}, q={q:g}, steps={steps}",
        "eps_claimed": eps,
        "delta_claimed": delta,
        "sigma": sigma,
        "eps_true": float(iv.upper),
        "eps_true_lower": float(iv.lower),
        "calculator": "certified PLD interval of the Poisson-subsampled Gaussian at Opacus's sigma",
        "verdict": verdict,
        "verdict_basis": "exact",
        "true_basis": "code",
        "seconds": round(time.perf_counter() - t0, 2),
    }


def _calibration(ctx: RunContext) -> Outcome:
    stmt = "get_noise_multiplier(eps, delta, q, steps, accountant) returns a sigma that achieves (eps, delta)"
    skipped, vers, pinned = _gate(stmt)
    if skipped is not None:
        return skipped
    cases = CALIBRATION_CASES[:1] if ctx.quick else CALIBRATION_CASES
    rows = [calibration_row(a, *c) for c in cases for a in ACCOUNTANTS]
    verdict = "refuted" if any(r["verdict"] == "refuted" for r in rows) else "holds"
    return Outcome(
        verdict,
        claimed={r["case"]: r["eps_claimed"] for r in rows},
        measured={r["case"]: [r["eps_true_lower"], r["eps_true"]] for r in rows},
        details={
            "cases": rows,
            "library": LIB,
            "versions": vers,
            "scorecard_versions": pinned,
            "reproduce": reproduce_command(CLAIM + "calibration", ctx),
        },
    )


def _data_loader(ctx: RunContext) -> Outcome:
    stmt = "DPDataLoader draws Poisson batches at rate 1/len(loader)"
    skipped, vers, pinned = _gate(stmt)
    if skipped is not None:
        return skipped
    import torch
    from opacus.data_loader import DPDataLoader
    from torch.utils.data import DataLoader, TensorDataset

    from privcheck.sampling import check_sampling

    n, batch = 2000, 50
    seed = int(ctx.seed_seq.generate_state(1)[0])
    torch.manual_seed(seed)
    ds = TensorDataset(torch.arange(n, dtype=torch.float32))
    plain = DataLoader(ds, batch_size=batch, shuffle=True)
    dp = DPDataLoader.from_data_loader(plain, generator=torch.Generator().manual_seed(seed))
    q = float(dp.sample_rate)
    epochs = 2 if ctx.quick else 5
    rows = []
    for label, loader, expect in (("DPDataLoader", dp, "holds"), ("plain DataLoader(shuffle=True)", plain, "refuted")):
        res = check_sampling(loader, n=n, q=q, scheme="poisson", confidence=ctx.confidence, seed=seed, epochs=epochs)
        rows.append(
            {
                "case": f"{label}, n={n}, q={q:g}, {epochs} epochs",
                "eps_claimed": None,
                "verdict": res.verdict,
                "expected": expect,
                "observed": res.observed,
                "accounting": res.accounting,
                "evidence": [e.to_dict() for e in res.evidence],
            }
        )
    # the claim is about DPDataLoader; the plain loader's row is the contrast (it must be refuted)
    verdict = rows[0]["verdict"]
    return Outcome(
        verdict,
        claimed={"scheme": "poisson", "q": q},
        measured={r["case"]: r["observed"] for r in rows},
        details={
            "cases": rows,
            "library": LIB,
            "versions": vers,
            "scorecard_versions": pinned,
            "reproduce": reproduce_command(CLAIM + "data_loader", ctx),
        },
    )


class DPStep:
    """``x -> the parameter after one DPOptimizer(SGD(lr=1)) step``: a batch of ``B`` records whose per-sample
    gradients are 0.5 C (unclipped) plus, for x = 0, a target record with gradient 10 C (clipped to C)."""

    def __init__(self, z: float, C: float, B: int):
        self.z, self.C, self.B = z, C, B
        self.__name__ = "opacus.optimizers.DPOptimizer.step"

    def __call__(self, x, rng):
        import torch
        from opacus.optimizers import DPOptimizer

        torch.manual_seed(int(rng.integers(2**62)))
        p = torch.nn.Parameter(torch.zeros(1))
        opt = DPOptimizer(
            torch.optim.SGD([p], lr=1.0), noise_multiplier=self.z, max_grad_norm=self.C, expected_batch_size=self.B
        )
        g = [0.5 * self.C] * (self.B - 1) + ([10.0 * self.C] if x == 0 else [])
        p.grad_sample = torch.tensor(g, dtype=torch.float32).reshape(-1, 1)
        p.grad = torch.zeros(1)
        opt.step()
        return float(p.detach()[0])


def _optimizer_cases():
    import privcheck
    from accountants.gdp import gdp_eps
    from privcheck.catalogue.zoo.engine import Case

    out = []
    for z in (0.5, 1.0, 2.0):
        out.append(
            Case(
                f"z={z:g}, max_grad_norm=1, expected batch 64",
                lambda z=z: privcheck.per_sample(DPStep(z, 1.0, 64)),
                [0, 1],
                gdp_eps(1 / z, 1e-5),
                pairs=[(0, 1)],
                mu=1 / z,
                mu_true=lambda z=z: (64 / 64) / z,
                calculator="exact: sensitivity C/B over sigma = zC/B",
                note="per-sample gradients set as GradSampleModule sets them -> DPOptimizer.step()",
                exact_refutes=True,
                true_basis="code",
            )
        )
    return out


def _register() -> None:
    from privcheck.catalogue.zoo.engine import Entry, register

    CATALOGUE.add_claim(
        Claim(
            "zoo.opacus.calibration",
            LIB,
            "opacus.accountants.utils.get_noise_multiplier",
            "privacy",
            "get_noise_multiplier(eps, delta, q, steps, accountant=rdp|prv|gdp) returns a sigma achieving (eps, delta)",
            ("calculator",),
        )
    )
    check("zoo.opacus.calibration", "calculator")(_calibration)
    CATALOGUE.add_claim(
        Claim(
            "zoo.opacus.data_loader",
            LIB,
            "opacus.data_loader.DPDataLoader",
            "privacy",
            "DPDataLoader.from_data_loader samples Poisson batches at rate 1/len(loader) (the accountant's q)",
            ("exact",),
        )
    )
    check("zoo.opacus.data_loader", "exact")(_data_loader)
    register(
        Entry(
            "zoo.opacus.optimizer_step",
            LIB,
            DIST,
            MODS,
            "opacus.optimizers.DPOptimizer.step",
            "one DPOptimizer step is the Gaussian mechanism with noise multiplier z: mu = 1/z (add/remove one record)",
            "per_sample(DPStep(z, C, B)): grad_sample -> clip, sum, noise, scale -> SGD step",
            _optimizer_cases,
            extra_dists=("torch",),
            samples=5_000,
            install_hint=HINT,
        )
    )


_register()
