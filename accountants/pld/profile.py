"""A privacy profile of one direction (P ‖ Q) of a mechanism, and the Gaussian loss ranges the discretiser keeps.

Shared by :mod:`accountants.pld.events` (the mechanisms) and :mod:`accountants.pld.replace` (their
replace-one profiles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import special

#: the Gaussian loss range m ± K·sd: δ(m + 38.5 sd) < 1e-320, so the truncated mass (kept as +∞ mass
#: in the pessimistic measure) is below every δ a float can ask for (12.5 sd lost 1e-37)
GAUSS_SD_CUT = 38.5
#: the optimistic measure's range (it may drop mass: P(L outside m ± 12.5 sd) < 1e−35); also the
#: bottom of both ranges (mass below it is moved up in the pessimistic measure)
GAUSS_SD_OPT = 12.5
_SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True, eq=False)
class Profile:
    """One direction (P ‖ Q) of a mechanism.

    log_delta: vectorised x ↦ log δ(x) (None for atom-only profiles); atoms: (losses, P-masses)
    of a finite pair (losses may be +inf); inf_mass: δ(+∞) = P(Q = 0); lo, hi: the range of the
    finite losses to discretise (mass outside is handled by the discretiser: below lo it is moved
    up, above hi it is kept as +∞ mass in the pessimistic and dropped in the optimistic measure).
    """

    label: str
    lo: float
    hi: float
    inf_mass: float = 0.0
    log_delta: Callable[[np.ndarray], np.ndarray] | None = None
    atoms: tuple[np.ndarray, np.ndarray] | None = None
    log_delta_rev: Callable[[np.ndarray], np.ndarray] | None = None  # profile of the reverse pair (Q ‖ P)
    hi_opt: float | None = None  # top of the optimistic measure's range (None: hi); dropping mass is safe there
    bounded: bool = False  # finite losses never exceed hi (true of atoms and Laplace; hi is then the largest loss)

    def log_delta_rev_at(self, x) -> np.ndarray:
        """log δ of the reverse pair (Q ‖ P) at x; the profile must have one (``log_delta_rev``)."""
        if self.log_delta_rev is None:
            raise ValueError(f"profile {self.label} has no reverse profile")
        return self.log_delta_rev(np.asarray(x, dtype=float))

    def atom_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(losses, P-masses) of a finite profile."""
        if self.atoms is None:
            raise ValueError(f"profile {self.label} has no atoms")
        return self.atoms

    def delta_abs_err(self) -> float:
        """A bound on the absolute float error of exp(log_delta_at(x)) beyond its 1e−12 relative accuracy:
        for atoms, δ(x) = Σ m_i (1 − e^{x − l_i})_+ with l_i = log p_i − log q_i rounded by a few ulps of
        |log p_i| + |log q_i| + |l_i|; ∂δ/∂l_i = m_i e^{x − l_i} <= m_i, so the error is at most that
        rounding (Σ m_i <= 1). It matters when x is close to a loss and δ is tiny (RR with ε = 1e−6 at
        x = 0.99ε lost 2e−9 relatively, issue 29 §2). 0 for closed forms."""
        if self.atoms is None:
            return 0.0
        losses, mass = self.atom_arrays()
        fin = np.isfinite(losses)
        if not fin.any():
            return 0.0
        lf = losses[fin]
        lp = np.log(mass[fin])
        return float(8 * 2.0**-53 * np.max(np.abs(lp) + np.abs(lp - lf) + np.abs(lf)))

    def log_delta_at(self, x) -> np.ndarray:
        """log δ(x) for an array of real x (exact: closed form or a log-sum over the atoms)."""
        x = np.asarray(x, dtype=float)
        if self.log_delta is not None:
            return self.log_delta(x)
        losses, mass = self.atom_arrays()
        fin = np.isfinite(losses)
        lf, mf = losses[fin], mass[fin]
        out = np.full(x.shape, -np.inf)
        flat = x.reshape(-1)
        res = out.reshape(-1)
        for s in range(0, flat.size, 4096):
            xs = flat[s : s + 4096, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(lf[None, :] > xs, np.log(mf[None, :]) + np.log(-np.expm1(xs - lf[None, :])), -np.inf)
            res[s : s + 4096] = special.logsumexp(
                np.concatenate(
                    [terms, np.full((terms.shape[0], 1), math.log(self.inf_mass) if self.inf_mass > 0 else -np.inf)],
                    axis=1,
                ),
                axis=1,
            )
        return out
