"""Flower (``flwr``, pinned 1.42.0: the release current on the registry when these audits were written; its DP
strategies, mods and helpers changed across 1.x, so the scorecard names the one it audited): ``zoo.flwr.*``.

Audited black-box through :mod:`.flwr_adapters` (the layer each record names):

* ``zoo.flwr.noise_helper`` — ``add_gaussian_noise_inplace(arrays, compute_stdv(z, C, m))`` on an aggregate of L2
  sensitivity C/m: documented as "the Gaussian mechanism" with noise multiplier z, i.e. μ = 1/z (float64 and
  float32 models: the helper casts its float64 noise to the array's dtype).
* ``zoo.flwr.localdp_mod`` — ``LocalDpMod(clipping_norm, sensitivity, epsilon, delta)`` called as a ClientApp calls
  its mods (Message, Context, call_next): documented (ε, δ) local DP. Its σ is the classic Δ√(2 ln(1.25/δ))/ε,
  proved for ε < 1 only; the true ε at δ of the code's σ (and of the 2C its clipping allows between two clients)
  is the calculator's. ε from the documentation's range up to 50.
* ``zoo.flwr.server_fixed`` / ``client_fixed`` / ``server_adaptive`` / ``client_adaptive`` — the four DP strategy
  wrappers around the default ``FedAvg()``, one round through ``aggregate_fit`` with fabricated ``FitRes`` results:
  documented "noise multiplier for the Gaussian mechanism for model updates" with noise σ = zC/m, i.e. each
  round μ = 1/z for one client's update (add/remove in the fixed-denominator sense of McMahan et al. 2018, the
  paper the code cites, which Flower's own accountant also uses). Round variations: number of clients, the
  ``num_examples`` each client sends (FedAvg weights by it), a client dropping out, model size and dtype, a
  diverged (NaN) update. The calculator gives the code's exact μ (weighted-aggregation sensitivity over σ) for
  the fixed-clipping wrappers. The adaptive wrappers have none: their round is not a Gaussian mechanism (the
  model's noise is scaled to the clipping norm *after* this round's noised-count update, so the release is a
  scale mixture whose scale moves with the data; :mod:`.flwr_rounds` measures that scale and the norm's
  trajectory exactly), so their rows are Monte Carlo only.

Beside these black-box entries: the gray-box ``zoo.flwr.trace.*`` / ``zoo.flwr.calibrator.*``
(:mod:`.trace_flwr`) and the deterministic ``zoo.flwr.adaptive_clipping`` / ``zoo.flwr.zero_update``
(:mod:`.flwr_rounds`: a client whose update is exactly zero makes every clipping helper divide by a zero norm,
so the adapters here use a 1e−6·C update).
"""

from __future__ import annotations

import privcheck
from accountants.gdp import gdp_eps
from privcheck.catalogue.zoo import calculators_flwr as cf
from privcheck.catalogue.zoo.engine import Case, Entry, register
from privcheck.catalogue.zoo.flwr_adapters import LocalDpClient, RoundSpec, StrategyRound, first_coordinate

LIB, DIST, MODS = "Flower", "flwr", ("flwr",)
DELTA = 1e-5
#: ε values users pass to LocalDpMod: the documentation's range (≤ 1 for the classic calibration), the common
#: 4 and 10, and up to 50
LOCAL_EPS = (0.5, 1.0, 4.0, 10.0, 50.0)
ROUND_LAYER = "FitRes results -> wrapper.aggregate_fit around FedAvg() (parameters set as configure_fit sets them)"
ADAPTIVE_NOTE = (
    "; no exact calculator: the round is not a Gaussian mechanism (noise scaled to the clipping norm after this "
    "round's noised-count update: zoo.flwr.adaptive_clipping measures it)"
)


class NoiseHelper:
    """``x -> add_gaussian_noise_inplace([aggregate_x], compute_stdv(z, C, m))`` with aggregate 0 or (C/m) e1."""

    def __init__(self, z: float, C: float, m: int, dtype: str):
        self.z, self.C, self.m, self.dtype = z, C, m, dtype
        self.__name__ = "flwr.supercore.differential_privacy.add_gaussian_noise_inplace"

    def __call__(self, x):
        import numpy as np
        from flwr.supercore.differential_privacy import add_gaussian_noise_inplace, compute_stdv

        arr = np.zeros(1, dtype=self.dtype)
        arr[0] = 0.0 if x == 0 else self.C / self.m
        add_gaussian_noise_inplace([arr], compute_stdv(self.z, self.C, self.m))
        return float(arr[0])


def _sampler(fn):
    return lambda: privcheck.per_sample(fn, takes_rng=False, seed_global=True)


def _mu_case(label: str, fn, mu: float, mu_true, calc: str, note: str, view=None) -> Case:
    return Case(
        label,
        _sampler(fn),
        [0, 1],
        gdp_eps(mu, DELTA),
        pairs=[(0, 1)],
        mu=mu,
        mu_true=mu_true,
        true_eps=None if mu_true is None else (lambda: gdp_eps(mu_true(), DELTA)),
        calculator=calc,
        note=note,
        view=view,
        exact_refutes=mu_true is not None,
        true_basis="code",
    )


def _noise_cases() -> list[Case]:
    out = []
    for z in (0.5, 1.0, 2.0):
        for dtype in ("float64", "float32"):
            out.append(
                _mu_case(
                    f"z={z:g}, m=10, {dtype}",
                    NoiseHelper(z, 1.0, 10, dtype),
                    1 / z,
                    lambda z=z: 1 / z,
                    "exact: sensitivity C/m over sigma = zC/m",
                    "helper layer (the function the wrappers call)",
                )
            )
    return out


def _localdp_cases() -> list[Case]:
    out = []
    for eps in LOCAL_EPS:
        for factor, what in ((1.0, "sensitivity=clipping_norm"), (2.0, "sensitivity=2*clipping_norm")):
            C = 1.0
            out.append(
                Case(
                    f"eps={eps:g}, delta=1e-5, {what}",
                    _sampler(LocalDpClient(C, factor * C, eps, DELTA)),
                    [0, 1],
                    eps,
                    delta=DELTA,
                    pairs=[(0, 1)],
                    true_eps=lambda eps=eps, f=factor: cf.localdp_eps(1.0, f, eps, DELTA),
                    mu_true=lambda eps=eps, f=factor: cf.localdp_mu(1.0, f, eps, DELTA),
                    calculator="exact Gaussian curve of the code's sigma (classic calibration) at the 2C "
                    "its clipping allows between two clients",
                    note="Message/Context -> LocalDpMod(msg, ctxt, call_next) as a ClientApp runs its mods",
                    exact_refutes=True,
                    true_basis="code",
                )
            )
    return out


#: round variations: label, spec
ROUNDS = (
    ("10 clients, equal num_examples", RoundSpec()),
    ("3 clients, equal num_examples", RoundSpec(others=(100, 100))),
    ("10 clients, target num_examples 10x the others", RoundSpec(n_target=1000)),
    (
        "10 clients, num_examples 50..500 (target 500)",
        RoundSpec(n_target=500, others=(50, 100, 150, 200, 250, 300, 350, 400, 450)),
    ),
    ("10 sampled, 1 dropped out (9 results)", RoundSpec(others=(100,) * 8, sampled=10)),
    ("10 clients, model of 10^4 float32 parameters", RoundSpec(d=10_000, dtype="float32")),
    ("10 clients, float32 model", RoundSpec(dtype="float32")),
    ("10 clients, target update has a NaN entry (diverged training)", RoundSpec(nonfinite=True, d=2)),
)


def _round_cases(kind: str, rounds=ROUNDS, z: float = 1.0, kw=None) -> list[Case]:
    out = []
    for label, spec in rounds:
        adapter = StrategyRound(kind, z, 1.0, spec, dict(kw or {}))
        exact = kind.endswith("fixed") and not spec.nonfinite
        out.append(
            _mu_case(
                label,
                adapter,
                1 / z,
                (lambda s=spec: cf.fedavg_mu(z, s.n_target, s.others, s.num_sampled)) if exact else None,
                "exact: FedAvg's num_examples-weighted sensitivity over sigma = zC/m" if exact else "",
                ROUND_LAYER
                + ("; client clipping by the mod's helper" if kind.startswith("client") else "")
                + (ADAPTIVE_NOTE if kind.endswith("adaptive") else ""),
                view=first_coordinate if spec.d > 1 else None,
            )
        )
    return out


_STMT = "{w}(FedAvg(), noise_multiplier=z, ...) adds Gaussian noise of noise multiplier z per round: mu = 1/z for one client's update"


def _register() -> None:
    base = dict(library=LIB, dist=DIST, modules=MODS, extra_dists=("numpy",))
    register(
        Entry(
            "zoo.flwr.noise_helper",
            where="flwr.supercore.differential_privacy.add_gaussian_noise_inplace / compute_stdv",
            statement="add_gaussian_noise_inplace with compute_stdv(z, C, m) is the Gaussian mechanism with noise "
            "multiplier z on a mean of sensitivity C/m (mu = 1/z)",
            adapter="per_sample(lambda i: add_gaussian_noise_inplace([aggregate_i], compute_stdv(z, C, m)))",
            cases=_noise_cases,
            samples=20_000,
            **base,
        )
    )
    register(
        Entry(
            "zoo.flwr.localdp_mod",
            where="flwr.clientapp.mod.LocalDpMod",
            statement="LocalDpMod(clipping_norm, sensitivity, epsilon, delta) makes a client's reply "
            "(epsilon, delta)-locally DP",
            adapter="per_sample(LocalDpClient(...)): Message/Context through the mod, call_next plays training",
            cases=_localdp_cases,
            samples=5_000,
            **base,
        )
    )
    for kind, cls, kw, rounds in (
        ("server_fixed", "DifferentialPrivacyServerSideFixedClipping", None, ROUNDS),
        ("client_fixed", "DifferentialPrivacyClientSideFixedClipping", None, ROUNDS[:5]),
        ("server_adaptive", "DifferentialPrivacyServerSideAdaptiveClipping", {"clipped_count_stddev": 5.0}, ROUNDS[:3]),
        ("client_adaptive", "DifferentialPrivacyClientSideAdaptiveClipping", {"clipped_count_stddev": 5.0}, ROUNDS[:3]),
    ):
        register(
            Entry(
                f"zoo.flwr.{kind}",
                where=f"flwr.server.strategy.{cls}.aggregate_fit",
                statement=_STMT.format(w=cls),
                adapter=f"per_sample(StrategyRound({kind!r}, ...)): {ROUND_LAYER}",
                cases=lambda k=kind, r=rounds, kw=kw: _round_cases(k, r, kw=kw),
                samples=3_000,
                **base,
            )
        )


_register()
