"""The sequential policy of ``samples="auto"``: anytime-valid audits that stop at the first decisive batch.

- :mod:`~privcheck.auditor.sequential.wealth` — the e-process (payoff, Kelly bets, wealth over a θ grid, the
  lower bound on ε valid at every batch at once);
- :mod:`~privcheck.auditor.sequential.nulls` — what the grid bounds: ε, δ at the claimed ε, or μ (μ-GDP);
- :mod:`~privcheck.auditor.sequential.gdp_audit` — the runner of a μ-GDP claim with ``samples="auto"``;
- :mod:`~privcheck.auditor.sequential.pairs` — the estimate stage of one batch: joint counts of paired draws;
- :mod:`~privcheck.auditor.sequential.simple` — the reserved half-line slot (best threshold event per epoch);
- :mod:`~privcheck.auditor.sequential.final` — the final look: a fixed-sample test of the schedule's last epoch
  at a share of α fixed in advance (union bound with the e-process);
- :mod:`~privcheck.auditor.sequential.run` — the schedule (epochs of selection, batches) and the stopping rule;
- :mod:`~privcheck.auditor.sequential.record` — the record in ``details["adaptive"]``.
"""

from privcheck.auditor.sequential.record import Look, SequentialRecord
from privcheck.auditor.sequential.run import sequential_bound
from privcheck.auditor.sequential.wealth import EProcess, kelly_bet, log_factor, theta_grid

__all__ = ["EProcess", "Look", "SequentialRecord", "kelly_bet", "log_factor", "sequential_bound", "theta_grid"]
