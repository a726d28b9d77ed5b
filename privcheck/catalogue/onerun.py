"""``onerun.*``: DP-SGD and DP-FedAvg audited end to end in ONE training run (privcheck.canaries.training).

Every claim trains once (numpy, :mod:`estimators.training`) with m canaries, each included with
probability ½, and audits the canary scores with the f-DP one-run recursion of Mahloujifar, Melis &
Chaudhuri (2025) against the run's own PLD accountant (certified trade-off curve of T
Poisson-subsampled Gaussian steps with the claimed q and σ); the guess rule is chosen on a random
half of the canaries and bounded on the other half (``thresholds="split"``); the certified
(ε, δ = 1e−5) lower bound and its fraction of the accountant's ε are reported (the one-run method of Steinke, Nasr &
Jagielski 2023 is the other published bound; ``privcheck audit-scores`` and benchmarks/bench_canaries.py
compare them).

- ``onerun.dpsgd.eps{1,4,10}``, ``onerun.dpfedavg.eps{1,4,10}``: correct implementations, σ chosen
  so that the accountant's ε at δ = 1e−5 is just below 1, 4 and 10 (q = 0.1, 100 steps; the
  accountant's ε is recomputed at run time, the σ values are only the configurations);
  expected: not refuted ("holds" when perfectly separated canaries could have refuted the curve,
  else "inconclusive" — at ε = 10 that needs ~10^5 canaries);
- ``onerun.{dpsgd,dpfedavg}.bug.*``: deliberately broken implementations (the accountant still
  describes the correct one) at claimed ε ≈ 1: noise not scaled by the clipping norm (C = 4),
  canary gradients escaping clipping (norm 4C), a sampling rate 4× the accountant's, noise added
  once per epoch instead of per step; expected: refuted in one run;
- ``onerun.dpsgd.mlp.eps4`` (a one-hidden-layer MLP) and ``onerun.dpsgd.input.eps10`` (input-space
  canaries — mislabelled points with a rare feature each — scored on the final model only).

Sizes: m = 10^4 canaries (10^5 for ε = 10; ``--quick``: 10^3, 3·10^3 for the broken variants;
``--samples N`` sets m).
"""

from __future__ import annotations

from estimators.training import TrainingConfig
from privcheck.canaries.training import audit_training
from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

PDESIGN = "design card"
#: noise multipliers whose accountant's ε(δ = 1e−5) is just below 1, 4, 10 for q = 0.1 and 100 steps
#: (accountants.pld, certified upper ends 0.99943, 3.99666, 9.99452; estimators.training.accounting.calibrate_sigma)
SIGMA = {1: 3.9435424908505023, 4: 1.3867230495588905, 10: 0.8371723399197685}
DELTA = 1e-5
BASE = dict(q=0.1, steps=100)
ALGOS = {"dpsgd": "dp-sgd", "dpfedavg": "dp-fedavg"}
BUG_CASES = {
    "noise_ignores_clip": dict(bug="noise-ignores-clip", C=4.0, canary_norm=16.0),
    "clip_escape": dict(bug="clip-escape", canary_norm=4.0),
    "sampling_rate": dict(bug="sampling-rate", sampling_factor=4.0),
    "noise_per_epoch": dict(bug="noise-per-epoch"),
}
_BUG_WORDS = {
    "noise_ignores_clip": "noise N(0, σ²) instead of N(0, (σC)²) with C = 4",
    "clip_escape": "canary gradients escape clipping (the norm omits their parameter group; norm 4C)",
    "sampling_rate": "the sampler uses 4q while the accountant is told q",
    "noise_per_epoch": "noise added once per epoch (every 10 steps) instead of every step",
}


def _claim(cid: str, statement: str) -> None:
    CATALOGUE.add_claim(
        Claim(
            cid, PDESIGN, "one-run audit (Steinke et al. 2023; Mahloujifar et al. 2025)", "privacy", statement, ("mc",)
        )
    )


def _run(ctx: RunContext, cfg: TrainingConfig, default: int, quick: int) -> Outcome:
    m = ctx.n(default, quick)
    seed = int(ctx.seed_seq.generate_state(1)[0])
    res = audit_training(cfg.with_(canaries=m), delta=DELTA, confidence=ctx.confidence, seed=seed)
    return Outcome(
        res.verdict or "inconclusive",
        claimed={"eps": res.eps_claimed, "delta": DELTA, "claim": "the run's PLD accountant (certified curve)"},
        measured={"eps_lower": res.eps_lower, "fraction_certified": res.fraction, "mu_lower": res.mu_lower},
        details={
            "reason": res.reason,
            "canaries": m,
            "included": res.included,
            "score": res.score,
            "test": (res.audit.claim or {}).get("test"),
            "power": res.audit.power,
            "rule": res.audit.rule,
            "chosen": res.audit.chosen,
            "model_accuracy": res.accuracy,
            "seconds": res.seconds,
        },
        samples=m,
    )


def _register_correct(short: str, algo: str, eps: int) -> None:
    cid = f"onerun.{short}.eps{eps}"
    _claim(
        cid,
        f"a correct {algo} (q = 0.1, 100 steps, σ = {SIGMA[eps]:.4g}: its PLD accountant's ε(δ = 1e−5) ≈ {eps}) "
        "audited in one run with gradient canaries (all iterates) does not refute its accountant's curve",
    )
    default = 100_000 if eps == 10 else 10_000

    @check(cid, "mc")
    def _chk(ctx: RunContext) -> Outcome:
        return _run(ctx, TrainingConfig(algorithm=algo, sigma=SIGMA[eps], **BASE), default, 1_000)


def _register_bug(short: str, algo: str, name: str) -> None:
    cid = f"onerun.{short}.bug.{name}"
    _claim(
        cid,
        f"a broken {algo} ({_BUG_WORDS[name]}) claiming its accountant's ε(δ = 1e−5) ≈ 1 is refuted in one run",
    )

    @check(cid, "mc")
    def _chk(ctx: RunContext) -> Outcome:
        return _run(ctx, TrainingConfig(algorithm=algo, sigma=SIGMA[1], **BASE, **BUG_CASES[name]), 10_000, 3_000)


for _short, _algo in ALGOS.items():
    for _eps in (1, 4, 10):
        _register_correct(_short, _algo, _eps)
    for _name in BUG_CASES:
        _register_bug(_short, _algo, _name)

_claim(
    "onerun.dpsgd.mlp.eps4",
    "a correct DP-SGD training a one-hidden-layer MLP (accountant ε(δ = 1e−5) ≈ 4) audited in one run with "
    "gradient canaries does not refute its accountant's curve",
)
_claim(
    "onerun.dpsgd.input.eps10",
    "a correct DP-SGD (accountant ε(δ = 1e−5) ≈ 10) audited in one run with input-space canaries (mislabelled "
    "points, a rare feature each, final model only) does not refute its accountant's curve",
)


@check("onerun.dpsgd.mlp.eps4", "mc")
def _mlp(ctx: RunContext) -> Outcome:
    return _run(ctx, TrainingConfig(model="mlp", sigma=SIGMA[4], **BASE), 10_000, 1_000)


@check("onerun.dpsgd.input.eps10", "mc")
def _input(ctx: RunContext) -> Outcome:
    cfg = TrainingConfig(canary_kind="input", view="final", sigma=SIGMA[10], **BASE)
    return _run(ctx, cfg, 10_000, 1_000)
