"""Flower gray-box: ``zoo.flwr.trace.*`` (coupled runs of the DP code) and ``zoo.flwr.calibrator.*``.

Flower draws its noise from numpy's global generator (``np.random.normal`` in
``add_gaussian_noise_inplace``), which the trace replaces by a recording generator for each call
(``rng_type="global"``). The traced function takes the *update* a client's training produced (a float
vector of a 2-parameter model; :class:`~.flwr_adapters.OnUpdate`) and runs the layer the black-box
entries run (:mod:`.flwr_adapters`): the clipping helpers, ``LocalDpMod`` through ``Message``/``Context``, or
one round of a DP strategy wrapper through ``aggregate_fit`` around ``FedAvg()`` with the other clients'
``FitRes`` fixed. The distance read is that of what the noise is added to (certain, no statistics):

- helpers and ``LocalDpMod`` (local DP: any two clients are neighbours): two clipped updates differ by at
  most 2C in ℓ2, the documented ``sensitivity`` must be at least that (a case declares ``sensitivity =
  clipping_norm``, what the parameter's name suggests);
- fixed-clipping wrappers: add/remove one client with the fixed denominator of McMahan et al. 2018 (the
  paper the code cites): the target's update against a 10⁻⁶·C one, sensitivity C/m of the mean the noise
  σ = zC/m is calibrated to; rounds with unequal ``num_examples`` (FedAvg weights by them) and a dropped
  client measure the code's own sensitivity;
- adaptive wrappers: no sensitivity declared (invariance only): the model noise must not be scaled by
  something this round's data moves (Andrew et al. 2021, Alg. 1: noise z·C_t with C_t the norm the round
  clipped with);
- non-finite neighbours (``nonfinite``): a diverged client's NaN/±inf update.

Calibrators: ``LocalDpMod``'s σ (read from the recorded ``normal`` call of the mod as shipped) against the
exact Gaussian curve on the default grid; and the wrappers' σ = ``compute_stdv(z, C, m)`` for the noise
multiplier z at which Flower's own accountant (``RdpAccountant``, one round, no amplification) reports the
(ε, δ) asked, on the mean of sensitivity C/m.
"""

from __future__ import annotations

from privcheck.catalogue.zoo.graybox import CalibratorCase, GrayEntry, TraceCase, register_gray

LIB, DIST, MODS, EXTRA = "Flower", "flwr", ("flwr",), ("numpy",)
C, Z, M = 1.0, 1.0, 10
#: updates of the traced 2-parameter model, in clipping norms: clipped (10C along e1 or e2, −10C along e1) and a
#: tiny one (an exactly zero update makes Flower's clipping divide by zero: :mod:`.flwr_rounds`)
BIG, NEG, BIG2, TINY, TINY2 = [10.0, 0.0], [-10.0, 0.0], [0.0, 10.0], [1e-6, 0.0], [0.0, 1e-6]
LOCAL_PAIRS = [(BIG, NEG), (BIG, BIG2), (BIG, TINY)]
ROUND_PAIRS = [(BIG, TINY), (BIG2, TINY2)]
LOCAL = "local DP: any two clients' updates"
ADD_REMOVE = "add/remove one client, fixed denominator (McMahan et al. 2018): the target's update vs 1e-6 C"


class ClipNoise:
    """``update -> compute_clip_model_update`` at C, then ``add_gaussian_noise_inplace`` with
    ``compute_stdv(z, C, 1)``: the helpers a client-side clipping mod and LocalDpMod call, in that order."""

    __name__ = "flwr.supercore.differential_privacy (clip + noise helpers)"

    def __call__(self, update):
        import numpy as np
        from flwr.supercore.differential_privacy import (
            add_gaussian_noise_inplace,
            compute_clip_model_update,
            compute_stdv,
        )

        theta = np.zeros(2)
        params = [theta + np.asarray(update, dtype=float)]
        with np.errstate(invalid="ignore"):  # a NaN update: the clipping multiplies by NaN (the trace reports it)
            compute_clip_model_update(params, [theta], C)
        add_gaussian_noise_inplace(params, compute_stdv(Z, C, 1))
        return params[0]


def warmed(fn):
    """``fn`` after one call on a clipped update outside any trace: the modules Flower imports lazily inside the
    call are imported now (``rich`` draws from ``random`` at import, which a traced first call would record
    as a random call the second one lacks). The global generators' states are restored afterwards."""
    from privcheck.tracing.globals import coupled_globals
    from privcheck.tracing.recording import Recorder

    with coupled_globals(Recorder(), 0, 0):
        fn(BIG)
    return fn


def _on_update(make):
    """A builder of the traced function ``OnUpdate(make())``, warmed up (imports Flower only when run)."""

    def build():
        from privcheck.catalogue.zoo.flwr_adapters import OnUpdate

        adapter = make()
        return warmed(OnUpdate(adapter, getattr(adapter, "__name__", "flwr")))

    return build


def _local(sensitivity: float):
    def make():
        from privcheck.catalogue.zoo.flwr_adapters import LocalDpClient

        return LocalDpClient(C, sensitivity, 1.0, 1e-5, d=2)

    return _on_update(make)


def _round(kind: str, **spec):
    def make():
        from privcheck.catalogue.zoo.flwr_adapters import RoundSpec, StrategyRound

        kw = {"clipped_count_stddev": 5.0} if kind.endswith("adaptive") else {}
        return StrategyRound(kind, Z, C, RoundSpec(d=2, **spec), kw)

    return _on_update(make)


def _case(label, build, pairs, sensitivity, relation, nonfinite=False) -> TraceCase:
    return TraceCase(
        label,
        build,
        pairs=pairs,
        sensitivity=sensitivity,
        norm="l2",
        relation=relation,
        rng_type="global",
        nonfinite=nonfinite,
    )


def _clip_noise():
    return warmed(ClipNoise())


def _helpers_cases() -> list:
    return [
        _case("clip at C=1 + noise, two clients' updates", _clip_noise, LOCAL_PAIRS, 2 * C, LOCAL),
        _case("clip at C=1 + noise, a diverged update (NaN/+-inf entry)", _clip_noise, LOCAL_PAIRS, 2 * C, LOCAL, True),
    ]


def _localdp_cases() -> list:
    return [
        _case("sensitivity=2*clipping_norm, eps=1, delta=1e-5", _local(2 * C), LOCAL_PAIRS, 2 * C, LOCAL),
        _case("sensitivity=clipping_norm, eps=1, delta=1e-5", _local(C), LOCAL_PAIRS, C, LOCAL),
        _case(
            "sensitivity=2*clipping_norm, a diverged update (NaN/+-inf entry)",
            _local(2 * C),
            LOCAL_PAIRS,
            2 * C,
            LOCAL,
            True,
        ),
    ]


def _fixed_cases(kind: str):
    def cases() -> list:
        s = C / M
        return [
            _case("10 clients, equal num_examples", _round(kind), ROUND_PAIRS, s, ADD_REMOVE),
            _case(
                "10 clients, target num_examples 10x the others",
                _round(kind, n_target=1000),
                ROUND_PAIRS,
                s,
                ADD_REMOVE,
            ),
            _case(
                "10 sampled, 1 dropped out (9 results)",
                _round(kind, others=(100,) * 8, sampled=10),
                ROUND_PAIRS,
                s,
                ADD_REMOVE,
            ),
            _case("10 clients, a diverged update (NaN/+-inf entry)", _round(kind), ROUND_PAIRS, s, ADD_REMOVE, True),
        ]

    return cases


def _adaptive_cases(kind: str):
    def cases() -> list:
        rel = ADD_REMOVE + "; invariance only: the model noise scale must not move with this round's data"
        return [
            _case("10 clients, initial_clipping_norm=1, clipped_count_stddev=5", _round(kind), ROUND_PAIRS, None, rel),
            # two clipped updates (the same norm bit): the clean pair moves no noise scale, the NaN neighbour does
            _case("10 clients, a diverged update (NaN/+-inf entry)", _round(kind), [(BIG, BIG2)], None, rel, True),
        ]

    return cases


# ------------------------------------------------------------------ calibrators
def recorded_scale(fn, x) -> float:
    """The ``scale`` of the last ``normal`` draw ``fn(x)`` makes from the global numpy generator (recorded
    by the trace's coupling: Flower's noise standard deviation as the code computes it)."""
    import numpy as np

    from privcheck.tracing.coupling import Coupler

    run = Coupler(fn, "global").call(x, np.random.SeedSequence(0))
    scales = [float(d.params["scale"]) for d in run.draws if d.method == "normal" and "scale" in d.params]
    if not scales:
        raise RuntimeError("no normal draw was recorded")
    return scales[-1]


class LocalDpScale:
    """``(eps, delta, sensitivity) -> the σ LocalDpMod(1, sensitivity, eps, delta) draws its noise with``."""

    __name__ = "flwr.clientapp.mod.LocalDpMod (noise std)"

    def __call__(self, eps, delta, sensitivity):
        from privcheck.catalogue.zoo.flwr_adapters import LocalDpClient

        return recorded_scale(LocalDpClient(C, sensitivity, eps, delta), 0)


def flower_rdp_epsilon(z: float, delta: float) -> float:
    """ε at δ that Flower's ``RdpAccountant`` reports for one round of noise multiplier ``z`` (no amplification,
    add/remove, one client of a population of M)."""
    from flwr.supercore.privacy_accounting import (
        GaussianPrivacyEvent,
        NeighboringRelation,
        PrivacyConfig,
        SamplingMethod,
    )
    from flwr.supercore.privacy_accounting.rdp_accountant import RdpAccountant

    cfg = PrivacyConfig(delta, M, NeighboringRelation.ADD_OR_REMOVE_ONE, SamplingMethod.NO_AMPLIFICATION)
    acc = RdpAccountant(cfg)
    acc.compose(GaussianPrivacyEvent(z, M, M))
    return acc.get_epsilon(delta)


class WrapperScale:
    """``(eps, delta, sensitivity) -> compute_stdv(z, C, m)`` with m = 10 and C = m·sensitivity (the mean of
    sensitivity C/m), z the smallest noise multiplier (bisection to relative 1e−12, on the safe side) at which
    :func:`flower_rdp_epsilon` is at most ε."""

    __name__ = "flwr compute_stdv(z, C, m) with z from Flower's RdpAccountant"

    def __call__(self, eps, delta, sensitivity):
        from flwr.supercore.differential_privacy import compute_stdv

        lo, hi = 1e-3, 1.0
        while flower_rdp_epsilon(hi, delta) > eps:
            lo, hi = hi, hi * 2
            if hi > 1e9:
                raise ValueError(f"no noise multiplier reaches eps={eps:g}")
        while hi - lo > 1e-12 * hi:
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if flower_rdp_epsilon(mid, delta) <= eps else (mid, hi)
        return compute_stdv(hi, M * sensitivity, M)


#: the grid of the accountant-chained calibrator (each point is a bisection over Flower's accountant)
RDP_EPS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
RDP_DELTA = (1e-3, 1e-5, 1e-8, 1e-12)


def _register() -> None:
    def gray(key: str, where: str, statement: str, cases) -> None:
        register_gray(GrayEntry(f"zoo.flwr.{key}", LIB, DIST, MODS, where, statement, cases, EXTRA))

    gray(
        "trace.clipping_helpers",
        "flwr.supercore.differential_privacy.compute_clip_model_update / add_gaussian_noise_inplace",
        "compute_clip_model_update bounds an update to l2 norm C (two clients' clipped updates differ by at most "
        "2C) and the noise helpers release a finite value for any update",
        _helpers_cases,
    )
    gray(
        "trace.localdp_mod",
        "flwr.clientapp.mod.LocalDpMod",
        "LocalDpMod(clipping_norm, sensitivity, epsilon, delta) adds noise calibrated to `sensitivity`, which must "
        "bound what two clients' clipped updates differ by (2 * clipping_norm), and releases a finite value",
        _localdp_cases,
    )
    for kind, cls in (
        ("server_fixed", "DifferentialPrivacyServerSideFixedClipping"),
        ("client_fixed", "DifferentialPrivacyClientSideFixedClipping"),
    ):
        gray(
            f"trace.{kind}",
            f"flwr.server.strategy.{cls}.aggregate_fit",
            f"{cls}(FedAvg(), z, C, m) adds noise sigma = zC/m to an aggregate of l2 sensitivity C/m "
            "(add/remove one client, fixed denominator)",
            _fixed_cases(kind),
        )
    for kind, cls in (
        ("server_adaptive", "DifferentialPrivacyServerSideAdaptiveClipping"),
        ("client_adaptive", "DifferentialPrivacyClientSideAdaptiveClipping"),
    ):
        gray(
            f"trace.{kind}",
            f"flwr.server.strategy.{cls}.aggregate_fit",
            f"{cls}(FedAvg(), z, m) scales the round's model noise to the clipping norm the round clipped with "
            "(Andrew et al. 2021, Alg. 1), not to anything this round's data moves",
            _adaptive_cases(kind),
        )
    gray(
        "calibrator.localdp_mod",
        "flwr.clientapp.mod.LocalDpMod (std_dev = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon)",
        "LocalDpMod(clipping_norm, sensitivity, epsilon, delta) adds Gaussian noise making the reply "
        "(epsilon, delta)-DP for the given sensitivity",
        lambda: [CalibratorCase("LocalDpMod noise std (recorded)", LocalDpScale, "gaussian")],
    )
    gray(
        "calibrator.wrappers_rdp",
        "flwr.supercore.differential_privacy.compute_stdv + flwr.supercore.privacy_accounting.RdpAccountant",
        "the wrappers' noise sigma = compute_stdv(z, C, m), with z chosen so that Flower's RdpAccountant reports "
        "(epsilon, delta) for the round, makes the mean of sensitivity C/m (epsilon, delta)-DP",
        lambda: [
            CalibratorCase(
                "compute_stdv(z, 10 * sensitivity, 10), z from RdpAccountant",
                WrapperScale,
                "gaussian",
                eps=list(RDP_EPS),
                delta=list(RDP_DELTA),
                sensitivity=0.1,
            )
        ],
    )


_register()
