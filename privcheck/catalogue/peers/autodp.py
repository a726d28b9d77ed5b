"""Peer audit of autodp: RDP mechanisms and transformers, the analytic Gaussian, calibrators."""

from __future__ import annotations

import math

from privcheck.catalogue.peers.core import Query, RunContext, _Peer, _q, _steps, register
from privcheck.catalogue.peers.events import LARGE_EPS_DPSGD, Ev, gaussian, laplace, pure, rr, subsampled_gaussian

# ---------------------------------------------------------------- autodp
_AD = "from autodp import mechanism_zoo as mz, transformer_zoo as tz, dp_bank\n"


def _ad(label: str, build: str, events: tuple[Ev, ...], target: str = "eps", at: float = 1e-5, **kw) -> Query:
    expr = f"m.get_approxDP({at!r})" if target == "eps" else f"m.get_approx_delta({at!r})"
    return _q(
        label,
        _AD + f"m = {build}\n",
        expr,
        events=events,
        relation="add_remove",
        target=target,
        at=at,
        role="upper",
        **kw,
    )


def autodp_rdp_queries(ctx: RunContext) -> list[Query]:
    """autodp's RDP-based mechanisms and compositions (Poisson subsampling: add/remove)."""
    T = _steps(ctx, 10_000, 1_000)
    p01, p1 = math.exp(0.1) / (1 + math.exp(0.1)), math.e / (1 + math.e)
    return [
        _ad(
            "100 × GaussianMechanism σ=10",
            "tz.Composition()([mz.GaussianMechanism(sigma=10.0)], [100])",
            (gaussian(10.0, count=100),),
        ),
        _ad("GaussianMechanism σ=1", "mz.GaussianMechanism(sigma=1.0)", (gaussian(1.0),)),
        _ad("LaplaceMechanism b=1", "mz.LaplaceMechanism(b=1.0)", (laplace(1.0),)),
        _ad("10 × LaplaceMechanism b=2", "tz.Composition()([mz.LaplaceMechanism(b=2.0)], [10])", (laplace(2.0, 10),)),
        _ad("RandresponseMechanism ε=0.1", f"mz.RandresponseMechanism(p={p01!r})", (rr(0.1),)),
        _ad(
            "400 × RandresponseMechanism ε=0.1",
            f"tz.Composition()([mz.RandresponseMechanism(p={p01!r})], [400])",
            (rr(0.1, 2, 400),),
        ),
        _ad(
            "400 × PureDP_Mechanism ε=0.1", "tz.Composition()([mz.PureDP_Mechanism(eps=0.1)], [400])", (pure(0.1, 400),)
        ),
        _ad(
            "10 × Gaussian σ=2 + 5 × Laplace b=1 + 20 × RR ε=1",
            f"tz.Composition()([mz.GaussianMechanism(sigma=2.0), mz.LaplaceMechanism(b=1.0), "
            f"mz.RandresponseMechanism(p={p1!r})], [10, 5, 20])",
            (gaussian(2.0, count=10), laplace(1.0, 5), rr(1.0, 2, 20)),
        ),
        _ad(
            f"SubsampleGaussianMechanism q=0.01 σ=1.1 T={T}, characteristic-function (phi) accountant",
            f"mz.SubsampleGaussianMechanism({{'prob': 0.01, 'sigma': 1.1, 'coeff': {T}}}, phi_off=False)",
            (subsampled_gaussian(0.01, 1.1, T),),
            note="known pitfall: broken in 0.2.3.1",
        ),
        _ad(
            f"NoisySGD_Mechanism q=0.01 σ=1.1 T={T}",
            f"mz.NoisySGD_Mechanism(prob=0.01, sigma=1.1, niter={T})",
            (subsampled_gaussian(0.01, 1.1, T),),
        ),
        _ad(
            "NoisySGD_Mechanism q=0.001 σ=0.8 T=100000 (long horizon)",
            "mz.NoisySGD_Mechanism(prob=0.001, sigma=0.8, niter=100000)",
            (subsampled_gaussian(0.001, 0.8, 100_000),),
        ),
        _ad(
            "NoisySGD_Mechanism q=0.01 σ=1.1 T=10000 at δ=1e-12 (tiny δ)",
            "mz.NoisySGD_Mechanism(prob=0.01, sigma=1.1, niter=10000)",
            (subsampled_gaussian(0.01, 1.1, 10_000),),
            at=1e-12,
        ),
        _ad(
            "100 × PureDP_Mechanism ε=1 (large ε)",
            "tz.Composition()([mz.PureDP_Mechanism(eps=1.0)], [100])",
            (pure(1.0, 100),),
        ),
    ] + (
        []
        if ctx.quick
        else [
            _ad(
                f"NoisySGD_Mechanism q={q} σ={s} T={n} (large-ε regime)",
                f"mz.NoisySGD_Mechanism(prob={q!r}, sigma={s!r}, niter={n})",
                (subsampled_gaussian(q, s, n),),
            )
            for q, s, n in LARGE_EPS_DPSGD
        ]
    )


def autodp_gaussian_queries(ctx: RunContext) -> list[Query]:
    """autodp's ExactGaussianMechanism (analytic ε(δ); δ(ε) through an RDP fall-back) and dp_bank."""
    qs = [
        _ad("ExactGaussianMechanism σ=1, ε(1e-5)", "mz.ExactGaussianMechanism(sigma=1.0)", (gaussian(1.0),)),
        _ad("ExactGaussianMechanism σ=1, ε(1e-12)", "mz.ExactGaussianMechanism(sigma=1.0)", (gaussian(1.0),), at=1e-12),
        _ad(
            "ExactGaussianMechanism σ=0.3, ε(1e-12) (large ε, tiny δ)",
            "mz.ExactGaussianMechanism(sigma=0.3)",
            (gaussian(0.3),),
            at=1e-12,
        ),
        _ad("GaussianMechanism σ=0.3 (large ε)", "mz.GaussianMechanism(sigma=0.3)", (gaussian(0.3),)),
        _q(
            "dp_bank.get_eps_ana_gaussian(σ=1, δ=1e-5)",
            _AD,
            "dp_bank.get_eps_ana_gaussian(1.0, 1e-5)",
            events=(gaussian(1.0),),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="upper",
        ),
    ]
    for sigma in (2.0, 1.0, 0.5):
        for e in (1.0, 2.0):
            qs.append(
                _ad(
                    f"ExactGaussianMechanism σ={sigma:g}, δ(ε={e:g})",
                    f"mz.ExactGaussianMechanism(sigma={sigma!r})",
                    (gaussian(sigma),),
                    target="delta",
                    at=e,
                    note="known pitfall: get_approx_delta falls back to RDP (overstates δ)",
                )
            )
    return qs


def autodp_calibration_queries(ctx: RunContext) -> list[Query]:
    """autodp's calibrators (accept |ε − target| < 1e-3 by construction)."""
    T = _steps(ctx, 1_000, 200)
    head = "from autodp import mechanism_zoo as mz, calibrator_zoo as cz\n"
    note = "the calibrator accepts |ε − target| < 1e-3"
    return [
        _q(
            "eps_delta_calibrator(ExactGaussianMechanism, (1, 1e-5))",
            head,
            "cz.eps_delta_calibrator()(mz.ExactGaussianMechanism, 1.0, 1e-5, [0.1, 50]).params['sigma']",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=1.0,
            tolerance=1e-3,
            events_for=lambda s: (gaussian(s),),
            note=note,
        ),
        _q(
            f"generalized_eps_delta_calibrator(SubsampleGaussianMechanism q=0.01 T={T}, (2, 1e-5))",
            head,
            f"cz.generalized_eps_delta_calibrator()(mz.SubsampleGaussianMechanism, 2.0, 1e-5, [0.3, 10], "
            f"params={{'prob': 0.01, 'sigma': None, 'coeff': {T}}}, para_name='sigma').params['sigma']",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=2.0,
            tolerance=1e-3,
            events_for=lambda s: (subsampled_gaussian(0.01, s, T),),
            note=note,
        ),
    ]


_CLAIMS = [
    _Peer(
        "peers.autodp.rdp",
        "autodp",
        ("autodp",),
        ("autodp",),
        "mechanism_zoo + transformer_zoo (RDP)",
        "autodp's get_approxDP of mechanisms and compositions is an upper bound",
        autodp_rdp_queries,
    ),
    _Peer(
        "peers.autodp.gaussian",
        "autodp",
        ("autodp",),
        ("autodp",),
        "ExactGaussianMechanism, dp_bank.get_eps_ana_gaussian",
        "autodp's exact Gaussian ε(δ) and δ(ε) are upper bounds (exact where analytic)",
        autodp_gaussian_queries,
    ),
    _Peer(
        "peers.autodp.calibration",
        "autodp",
        ("autodp",),
        ("autodp",),
        "calibrator_zoo",
        "autodp's calibrated parameters achieve the target (ε, δ)",
        autodp_calibration_queries,
    ),
]
for _p in _CLAIMS:
    register(_p)
