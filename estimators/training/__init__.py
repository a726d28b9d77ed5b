"""Small numpy training runs with canaries, for end-to-end privacy audits (mechanisms, not audits).

- :mod:`~estimators.training.data` — synthetic classification data (fixed seed per dataset);
- :mod:`~estimators.training.models` — logistic regression and a one-hidden-layer MLP with
  per-example gradients (optional "rare" one-hot input features, one per input canary);
- :mod:`~estimators.training.config` — :class:`TrainingConfig` (the plan of one run) and the bugs;
- :mod:`~estimators.training.dpsgd` — DP-SGD (Poisson sampling, per-example clipping, Gaussian
  noise; Abadi et al. 2016) with gradient (Dirac) or input-space (mislabelled) canaries;
- :mod:`~estimators.training.fedavg` — DP-FedAvg (client sampling, client-level clipping and noise;
  McMahan et al. 2018) with canary clients;
- :mod:`~estimators.training.accounting` — each run's PLD accountant and σ calibration.

A run returns a :class:`~estimators.training.config.TrainingRun`: which canaries were included and
a score per canary (larger = more likely included), for the final model or for all iterates. The
audits live in :mod:`privcheck.canaries.training`.
"""

from estimators.training.config import BUGS, CANARY_KINDS, SCORE_VIEWS, TrainingConfig, TrainingRun

__all__ = ["BUGS", "CANARY_KINDS", "SCORE_VIEWS", "TrainingConfig", "TrainingRun", "run"]


def run(config: TrainingConfig, seed: int = 0, progress=None) -> TrainingRun:
    """Run ``config`` (DP-SGD or DP-FedAvg) with its canaries; ``progress(step, total)`` is called per step."""
    if config.algorithm == "dp-fedavg":
        from estimators.training.fedavg import train_fedavg

        return train_fedavg(config, seed, progress)
    from estimators.training.dpsgd import train_dpsgd

    return train_dpsgd(config, seed, progress)
