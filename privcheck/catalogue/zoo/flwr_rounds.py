"""Flower's rounds as deterministic checks: ``zoo.flwr.adaptive_clipping`` and ``zoo.flwr.zero_update``.

Both drive the DP strategy wrappers as :mod:`.flwr_adapters` does (``FitRes`` results → ``aggregate_fit``
around ``FedAvg()``; client-side clipping by the helper the client mods call) on fixed inputs, and compare
what the code does with an exact expectation — no sampling, so a deviation is certain:

* ``adaptive_clipping`` — the adaptive wrappers cite Andrew et al. 2021 ("Differentially private learning
  with adaptive clipping", Alg. 1): the clipping norm follows the geometric rule
  C ← C·exp(−η(b̄ − γ)), b̄ the fraction of updates with norm ≤ C (*not* clipped), so that C moves toward
  the γ-quantile of the update norms: it grows while every update is clipped. With γ = 0.5 (Flower's default
  ``target_clipped_quantile``) the rule is the same whether γ is read as the quantile clipped at or as the
  fraction to clip. Cases: (1, 2) the trajectory of the norm over :data:`ROUNDS` rounds from below
  (0.1, Flower's default and Andrew et al.'s recommendation) and from above (10), 10 clients whose updates
  have norm 1, no noise (z = 0, so the count is exact): measured against the rule's exact trajectory;
  (3) the round's model noise: Alg. 1 adds σ = z_Δ·C_t/m with C_t the norm the round clipped with; the
  standard deviation the code draws with is read from the recorded ``normal`` call (the trace's coupling
  of numpy's global generator, seeded from the run) and divided by z_Δ·C_t/m. The ratio is C_{t+1}/C_t, the
  norm *after* this round's update: the model's effective noise multiplier is z_Δ times it, and the model's
  μ given the released count is 1/(z_Δ·ratio) instead of 1/z_Δ.
* ``zero_update`` — one client whose update is exactly zero (it returns the parameters it received: no
  data, a zero learning rate), in a round of 10: every clipping path computes ``clipping_norm / norm``
  with norm 0. A round that raises releases nothing, which tells that client's update apart with
  certainty (and stops training): refuted with the exception and the line that raised.

No exact μ is given for the adaptive wrappers: a round is not a Gaussian mechanism (the model's noise
scale is a function of the same round's noised count, so the released model is a scale mixture whose
scale moves with the data); the exact statements are the ones above.
"""

from __future__ import annotations

import math
import time

import numpy as np

from privcheck.claims import CATALOGUE, Claim, Outcome, RunContext, check

LIB, DIST, MODS = "Flower", "flwr", ("flwr",)
HINT = "not installed: pip install 'privcheck[zoo]'"
#: rounds of a trajectory, clients per round, their update norm
ROUNDS, CLIENTS, NORM = 20, 10, 1.0
#: relative deviation from the exact expectation that refutes (float rounding of 20 products is ~1e-15)
REL_TOL = 1e-9
KINDS = {
    "server_adaptive": "DifferentialPrivacyServerSideAdaptiveClipping",
    "client_adaptive": "DifferentialPrivacyClientSideAdaptiveClipping",
}


def _gate(stmt: str) -> tuple[Outcome | None, dict]:
    from privcheck.catalogue.peers import missing, versions

    vers = versions(DIST, "numpy")
    if missing(*MODS) is not None:
        det = {"skipped": True, "reason": f"{DIST} {HINT}", "library": LIB, "versions": vers}
        return Outcome("inconclusive", claimed=stmt, details=det), vers
    return None, vers


def _fit_res(kind: str, theta: np.ndarray, update: np.ndarray, clip: float, n: int = 100):
    """One client's ``FitRes``; client-side kinds clip with the helper their mod calls (norm bit in the metrics)."""
    from flwr.common import Code, FitRes, Status, ndarrays_to_parameters
    from flwr.supercore.differential_privacy import (
        KEY_NORM_BIT,
        compute_adaptive_clip_model_update,
        compute_clip_model_update,
    )

    params, metrics = [theta + update], {}
    if kind == "client_fixed":
        compute_clip_model_update(params, [theta], clip)
    elif kind == "client_adaptive":
        metrics[KEY_NORM_BIT] = compute_adaptive_clip_model_update(params, [theta], clip)
    return None, FitRes(Status(Code.OK, ""), ndarrays_to_parameters(params), n, metrics)


class AdaptiveRounds:
    """``x -> (clipping norms C_0..C_R, last model)``: an adaptive wrapper ``kind`` around ``FedAvg()`` run for
    ``rounds`` rounds on CLIENTS clients whose updates are NORM·e1 (``x`` is ignored: the inputs are fixed)."""

    def __init__(self, kind: str, z: float, c0: float, rounds: int, count_stddev: float | None = None):
        self.kind, self.z, self.c0, self.rounds, self.count_stddev = kind, z, c0, rounds, count_stddev
        self.__name__ = f"flwr.server.strategy.{KINDS[kind]}.aggregate_fit"

    def strategy(self):
        from flwr.server import strategy as s

        cls = getattr(s, KINDS[self.kind])
        return cls(s.FedAvg(), self.z, CLIENTS, initial_clipping_norm=self.c0, clipped_count_stddev=self.count_stddev)

    def __call__(self, x=None):
        import logging

        from flwr.common import parameters_to_ndarrays

        logging.getLogger("flwr").disabled = True
        strat = self.strategy()
        theta, norms, model = np.zeros(2), [strat.clipping_norm], None
        for t in range(1, self.rounds + 1):
            strat.current_round_params = [theta]  # what configure_fit stores
            update = np.array([NORM, 0.0])
            results = [_fit_res(self.kind, theta, update, strat.clipping_norm) for _ in range(CLIENTS)]
            params, _ = strat.aggregate_fit(t, results, [])
            model = parameters_to_ndarrays(params)[0].astype(float)
            norms.append(float(strat.clipping_norm))
        return norms, model


def expected_norms(c0: float, rounds: int, lr: float = 0.2, quantile: float = 0.5) -> list[float]:
    """Andrew et al. 2021, Alg. 1 without noise: C ← C·exp(−lr·(b̄ − quantile)), b̄ = fraction of the CLIENTS
    updates of norm NORM with norm ≤ C (unclipped)."""
    out = [c0]
    for _ in range(rounds):
        c = out[-1]
        unclipped = 1.0 if NORM <= c else 0.0
        out.append(c * math.exp(-lr * (unclipped - quantile)))
    return out


def compare_trajectory(case: str, measured: list[float], want: list[float]) -> dict:
    """The row of a trajectory check: ``measured`` clipping norms C_0..C_R against the rule's ``want``; refuted
    from the first round whose relative deviation exceeds :data:`REL_TOL`, saying which way the norm went."""
    dev = [abs(m - w) / w for m, w in zip(measured, want)]
    bad = next((t for t, d in enumerate(dev) if d > REL_TOL), None)
    shown = sorted({0, 1, 2, 5, 10, 15, 20, len(measured) - 1} & set(range(len(measured))))
    row = {
        "case": case,
        "verdict": "holds" if bad is None else "refuted",
        "measured_norms": {t: measured[t] for t in shown},
        "expected_norms": {t: want[t] for t in shown},
        "max_relative_deviation": max(dev),
    }
    if bad is None:
        row["summary"] = f"holds: the norm follows the documented rule to {max(dev):.1e} over {len(dev) - 1} rounds"
        return row
    wrong = (measured[bad] - measured[bad - 1]) * (want[bad] - want[bad - 1]) < 0 if bad > 0 else False
    row["summary"] = (
        f"refuted: from round {bad} the norm leaves the documented rule: after {len(dev) - 1} rounds C = "
        f"{measured[-1]:.6g}, expected {want[-1]:.6g}"
        + (
            f" (the norm {'shrinks' if measured[bad] < measured[bad - 1] else 'grows'} where the rule "
            f"{'grows' if want[bad] > want[bad - 1] else 'shrinks'} it: the update runs the wrong way)"
            if wrong
            else ""
        )
    )
    return row


def _trajectory_row(kind: str, c0: float) -> dict:
    t0 = time.perf_counter()
    measured, _ = AdaptiveRounds(kind, 0.0, c0, ROUNDS)()
    case = f"{kind}: {ROUNDS} rounds from initial_clipping_norm={c0:g}, {CLIENTS} clients of update norm {NORM:g}, z=0"
    row = compare_trajectory(case, measured, expected_norms(c0, ROUNDS))
    row["seconds"] = round(time.perf_counter() - t0, 3)
    return row


def noise_verdict(sigma: float, z_delta: float, norm_used: float, norm_after: float, m: int = CLIENTS) -> dict:
    """The verdict fields of the noise check: the drawn ``sigma`` against z_Δ·``norm_used``/m (Alg. 1), the ratio,
    the model's effective noise multiplier and its μ given the count (documented 1/z_Δ)."""
    expected = z_delta * norm_used / m
    ratio = sigma / expected
    out = {
        "sigma_drawn": sigma,
        "sigma_expected": expected,
        "ratio": ratio,
        "norm_used": norm_used,
        "norm_after": norm_after,
        "effective_noise_multiplier": z_delta * ratio,
        "mu_model_given_count": 1.0 / (z_delta * ratio),
        "mu_model_documented": 1.0 / z_delta,
    }
    if abs(ratio - 1.0) <= REL_TOL:
        out.update(verdict="holds", summary="holds: the model noise is z_Delta C_t / m with C_t the norm clipped with")
        return out
    after = abs(sigma - z_delta * norm_after / m) <= REL_TOL * sigma
    out.update(
        verdict="refuted",
        summary=f"refuted: the model noise sigma = {sigma:.6g} is {ratio:.4f} x the documented z_Delta C_t/m = "
        f"{expected:.6g} (C_t = {norm_used:g}, the norm the updates were clipped with)"
        + (f": it is scaled to the norm after this round's update, {norm_after:.6g}" if after else "")
        + f"; the model's mu given the count is {1 / (z_delta * ratio):.6g}, documented {1 / z_delta:.6g}"
        + (" (under-noised)" if ratio < 1 else " (over-noised)"),
    )
    return out


def _noise_row(kind: str, seed: int) -> dict:
    """One round at z = 1, clipped_count_stddev = 5, C_0 = 0.1: the recorded model-noise σ over z_Δ·C_0/m."""
    from privcheck.tracing.coupling import Coupler
    from privcheck.tracing.globals import coupled_globals
    from privcheck.tracing.recording import Recorder

    t0 = time.perf_counter()
    fn = AdaptiveRounds(kind, 1.0, 0.1, 1, count_stddev=5.0)
    z_delta = float(fn.strategy().noise_multiplier)
    with coupled_globals(Recorder(), 0, 0):  # Flower's lazy imports outside the recorded call (rich draws at import)
        fn()
    run = Coupler(fn, "global").call(0, np.random.SeedSequence(seed))
    norms, _ = run.output
    normals = [d for d in run.draws if d.method == "normal"]
    row = {
        "case": f"{kind}: one round, z=1 (z_Delta={z_delta:.6g}), clipped_count_stddev=5, initial_clipping_norm=0.1, "
        f"{CLIENTS} clients of update norm {NORM:g} (all clipped)",
        "noise_site": normals[-1].site,
        "seed": seed,
    }
    row.update(noise_verdict(float(normals[-1].params["scale"]), z_delta, norms[0], norms[1]))
    row["seconds"] = round(time.perf_counter() - t0, 3)
    return row


def _adaptive(ctx: RunContext) -> Outcome:
    stmt = (
        "the adaptive wrappers update the clipping norm by Andrew et al.'s geometric rule toward the target quantile "
        "and scale the round's noise to the norm the round clipped with"
    )
    skipped, vers = _gate(stmt)
    if skipped is not None:
        return skipped
    seed = int(ctx.seed_seq.generate_state(1)[0])
    rows = []
    for kind in KINDS:
        rows += [_trajectory_row(kind, 0.1), _trajectory_row(kind, 10.0), _noise_row(kind, seed)]
    return _outcome(rows, vers, "zoo.flwr.adaptive_clipping", ctx)


class ZeroUpdateRound:
    """One round of ``kind`` (fixed or adaptive wrapper, or ``localdp_mod``) in which the target client's update is
    exactly zero and the others' are 0.5·e1: returns the released parameters (or raises as Flower does)."""

    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self):
        from privcheck.catalogue.zoo.flwr_adapters import LocalDpClient, RoundSpec, StrategyRound

        zero = np.zeros(2)
        if self.kind == "localdp_mod":
            return LocalDpClient(1.0, 2.0, 1.0, 1e-5, d=2).release(zero)
        kw = {"clipped_count_stddev": 5.0} if self.kind.endswith("adaptive") else {}
        return StrategyRound(self.kind, 1.0, 1.0, RoundSpec(d=2), kw).release(zero)


def _raise_site(exc: BaseException) -> str:
    import traceback

    from privcheck.tracing.recording import short_path

    last = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{short_path(last.filename)}:{last.lineno}"


def _zero_row(kind: str) -> dict:
    who = "one client's update" if kind == "localdp_mod" else "10 clients, one update"
    return zero_row(f"{kind}: {who} exactly zero (the parameters it received)", ZeroUpdateRound(kind))


def zero_row(case: str, fn) -> dict:
    """The row of a zero-update round ``fn() -> released parameters``: refuted when it raises (with the line that
    raised) or releases a non-finite value."""
    t0 = time.perf_counter()
    row: dict = {"case": case}
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - the finding: the round raises
        site = _raise_site(exc)
        row.update(
            verdict="refuted",
            error=f"{type(exc).__name__}: {exc}"[:200],
            raised_at=site,
            summary=f"refuted: the round raises {type(exc).__name__} ({exc}) at {site}: it releases nothing, which "
            "tells the zero update apart with certainty, and training stops",
        )
    else:
        finite = bool(np.all(np.isfinite(out)))
        row.update(
            verdict="holds" if finite else "refuted",
            summary="holds: the round releases a finite model"
            if finite
            else "refuted: the released model is non-finite",
        )
    row["seconds"] = round(time.perf_counter() - t0, 3)
    return row


def _zero(ctx: RunContext) -> Outcome:
    stmt = "a round in which one client's update is exactly zero releases a model (every clipping path)"
    skipped, vers = _gate(stmt)
    if skipped is not None:
        return skipped
    kinds = ("server_fixed", "client_fixed", "server_adaptive", "client_adaptive", "localdp_mod")
    return _outcome([_zero_row(k) for k in kinds], vers, "zoo.flwr.zero_update", ctx)


def _outcome(rows: list[dict], vers: dict, claim_id: str, ctx: RunContext) -> Outcome:
    from privcheck.catalogue.zoo.engine import reproduce_command
    from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS

    verdicts = [r["verdict"] for r in rows]
    verdict = "refuted" if "refuted" in verdicts else "holds" if all(v == "holds" for v in verdicts) else "inconclusive"
    details = {
        "cases": rows,
        "library": LIB,
        "versions": vers,
        "scorecard_versions": {d: SCORECARD_VERSIONS[d] for d in vers if d in SCORECARD_VERSIONS},
        "method": "deterministic: fixed inputs, the code's own numbers against an exact expectation (no sampling)",
        "reproduce": reproduce_command(claim_id, ctx),
    }
    found = [f"{r['case']}: {r['summary']}" for r in rows if r["verdict"] == "refuted"]
    if found:
        details["findings"] = found
    return Outcome(
        verdict,
        claimed={r["case"]: "as documented" for r in rows},
        measured={r["case"]: r["summary"][:120] for r in rows},
        details=details,
    )


def _register() -> None:
    CATALOGUE.add_claim(
        Claim(
            "zoo.flwr.adaptive_clipping",
            LIB,
            "flwr.server.strategy.DifferentialPrivacy{Server,Client}SideAdaptiveClipping.aggregate_fit",
            "privacy",
            "the adaptive-clipping wrappers follow Andrew et al. 2021, Alg. 1: the clipping norm moves toward the "
            "target quantile by the geometric rule, and the round's noise is z C_t / m with C_t the norm it clipped with",
            ("numeric",),
        )
    )
    check("zoo.flwr.adaptive_clipping", "numeric")(_adaptive)
    CATALOGUE.add_claim(
        Claim(
            "zoo.flwr.zero_update",
            LIB,
            "flwr.supercore.differential_privacy (clip_inputs_inplace, adaptive_clip_inputs_inplace)",
            "privacy",
            "a round in which one client's update is exactly zero releases a model, under every DP wrapper and "
            "LocalDpMod",
            ("numeric",),
        )
    )
    check("zoo.flwr.zero_update", "numeric")(_zero)


_register()
