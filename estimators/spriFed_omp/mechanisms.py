"""NOISY-SMPC calls with a GDP ledger, and PRIVATE-OLS (002 Alg. 1 and Alg. 2).

NOISY-SMPC (Alg. 1): each of the n clients adds a share N(0, σ²/n) to its contribution and the
secure sum returns Σ_i (v_i + e_i), which carries N(0, σ²) exactly ("NoisySMPC adds significantly
lower variance noise to the sum (reduced by a factor of n)", 002 §3). The per-client draw is
:func:`estimators.noisysmpc.noisy_smpc` (one share per client, summed); for large n·d the sum of the
shares is drawn directly, which has exactly the same distribution (a sum of n independent
N(0, σ²/n) is N(0, σ²)). σ is calibrated as σ = Δ/μ for the ℓ2-sensitivity Δ of Lemma 4 (002
Lemma 1, Dong, Roth & Su 2019 Thm 2.7), so every call is μ-GDP; the :class:`Ledger` records each
call's μ so that the total can be compared with Theorem 6 (:mod:`accountants.spriFed`).

``share_factor`` ≠ 1 builds a deliberately broken NoisySMPC whose shares sum to ``share_factor·σ²``
while the ledger still records the claimed μ (used to show that the privacy audit catches it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from estimators import noisysmpc as ns
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_nonnegative, check_positive

#: above this many client-coordinate shares a call draws the sum of the shares directly
MAX_SHARES = 200_000


#: the GDP parameters accepted: noise σ = Δ/μ and the ledger's μ² stay finite well inside this range
MU_RANGE = (1e-100, 1e100)
#: the largest clipping bound accepted (in standard deviations; beyond ~40 nothing is clipped anyway)
MAX_CLIP = 1e6
#: the largest additive error SD σₑ accepted (the response's clipping bound c_y·sd_y stays finite)
MAX_SIGMA_E = 1e100
#: float64 arrays of size (n + n_test)·d alive at once at the peak of a run (data, clipped copies, products)
PEAK_ARRAYS = 6


def validate_run(
    n: int, d: int, s: int, mu1: float, mu2: float, c_x: float, c_y: float, sigma_e: float | None = None
) -> tuple:
    """Validate the common inputs of a SPriFed run; raise a one-line :class:`PrivcheckUsageError` (a ValueError).

    n ≥ 1 clients (one row each), d ≥ 1 features, 1 ≤ s ≤ d sparsity, μ1, μ2 in :data:`MU_RANGE`
    (GDP parameters), c_x, c_y in (0, :data:`MAX_CLIP`] clipping bounds of the data and response
    elements (002 Assumption 2); sigma_e (when given): the synthetic set-up's error SD in
    [0, :data:`MAX_SIGMA_E`]. Returns (n, d, s, μ1, μ2, c_x, c_y) validated.
    """
    n = check_int("n (clients)", n, minimum=1)
    d = check_int("d", d, minimum=1)
    s = check_int("s", s, minimum=1)
    if s > d:
        raise PrivcheckUsageError(f"s must be at most d (s <= d), got s={s}, d={d}")
    mus = []
    for name, mu in (("mu1", mu1), ("mu2", mu2)):
        mu = check_positive(name, mu)
        if not MU_RANGE[0] <= mu <= MU_RANGE[1]:
            raise PrivcheckUsageError(
                f"{name} must be a GDP parameter in [{MU_RANGE[0]:g}, {MU_RANGE[1]:g}], got {mu:g} (outside it "
                "the noise sigma = sensitivity/mu or mu^2 leaves the floating-point range)"
            )
        mus.append(mu)
    clips = []
    for name, c in (("c_x (clipping bound)", c_x), ("c_y (clipping bound)", c_y)):
        c = check_positive(name, c)
        if c > MAX_CLIP:
            raise PrivcheckUsageError(
                f"{name} must be in (0, {MAX_CLIP:g}] standard deviations, got {c:g} (beyond about 40 nothing "
                "is clipped; the sensitivities 2 c_x c_y sqrt(d) would leave the floating-point range)"
            )
        clips.append(c)
    if sigma_e is not None and not 0 <= check_nonnegative("sigma_e", sigma_e) <= MAX_SIGMA_E:
        raise PrivcheckUsageError(f"sigma_e must be in [0, {MAX_SIGMA_E:g}], got {sigma_e:g}")
    return (n, d, s, *mus, *clips)


def run_memory_bytes(n: int, d: int, n_test: int = 500) -> float:
    """Estimated peak memory (bytes) of one run on an n×d instance with ``n_test`` test rows (float64 arrays)."""
    return 8.0 * PEAK_ARRAYS * (float(n) + float(n_test)) * float(d)


@dataclass
class Ledger:
    """The GDP mechanism invocations of a run: (label, μ, level) per NOISY-SMPC call.

    keep: also keep every released (noisy) vector in ``releases``, in call order (the transcript).
    """

    calls: list = field(default_factory=list)
    keep: bool = False
    releases: list = field(default_factory=list)

    def add(self, label: str, mu: float, level: int) -> None:
        """Record one μ-GDP invocation named ``label`` at privacy level 1 (μ1), 2 (μ2) or 0 (other)."""
        self.calls.append((label, float(mu), int(level)))

    def counts(self) -> tuple[int, int]:
        """(n1, n2): how many invocations used μ1 and μ2 (Theorem 6's counts)."""
        return (sum(1 for c in self.calls if c[2] == 1), sum(1 for c in self.calls if c[2] == 2))

    @property
    def mu_total(self) -> float:
        """√(Σ μ_i²) over the recorded invocations (002 Lemma 3; scaled by the largest μ: no overflow)."""
        m = max((c[1] for c in self.calls), default=0.0)
        return m * math.sqrt(sum((c[1] / m) ** 2 for c in self.calls)) if m > 0 else 0.0


@dataclass
class NoisySMPCCall:
    """NOISY-SMPC (002 Alg. 1) for one run: draws, calibration and the ledger.

    rng: the run's generator; ledger: where invocations are recorded; mode: 'clients' (one share
    per client, :func:`estimators.noisysmpc.noisy_smpc`), 'aggregate' (the sum of the shares drawn
    at once; same distribution) or 'auto' (clients when n·k ≤ MAX_SHARES); share_factor: the shares'
    total variance as a multiple of the stated σ² (1 is the algorithm; 0.5 the broken variant).
    """

    rng: np.random.Generator
    ledger: Ledger
    mode: str = "auto"
    share_factor: float = 1.0

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "clients", "aggregate"):
            raise PrivcheckUsageError(f"mode must be one of auto, clients, aggregate, got {self.mode!r}")
        self.share_factor = check_positive("share_factor", self.share_factor)

    def __call__(
        self, label: str, total: np.ndarray, sensitivity: float, mu: float, n: int, contributions=None, level: int = 1
    ) -> np.ndarray:
        """Σ_i v_i + N(0, σ²I) with σ = sensitivity/μ, recorded as one μ-GDP call.

        total: Σ_i v_i (k,); level: 1 or 2 (which of μ1, μ2; 0 for other budgets); contributions: the (n, k) client values when available (used in
        'clients' mode; computed lazily by a callable to avoid n·k memory otherwise).
        """
        sigma = sensitivity / mu
        self.ledger.add(label, mu, level)
        total = np.atleast_1d(np.asarray(total, dtype=float))
        sd = sigma * math.sqrt(self.share_factor)
        k = total.shape[0]
        clients = self.mode == "clients" or (self.mode == "auto" and n * k <= MAX_SHARES)
        if clients and contributions is not None:
            v = contributions() if callable(contributions) else contributions
            out = ns.noisy_smpc(v, sd, self.rng, 1)[0]
        else:
            out = total + self.rng.normal(0.0, sd, k)
        if self.ledger.keep:
            self.ledger.releases.append(out.copy())
        return out


def corr_sensitivity(c_x: float, c_y: float, k: int) -> float:
    """ℓ2-sensitivity 2c_x c_y √k of k data–response correlations X_jᵀy (002 Lemma 4)."""
    return 2.0 * c_x * c_y * math.sqrt(k)


def cov_sensitivity(c_x: float, k: int) -> float:
    """ℓ2-sensitivity 2c_x² √k of k covariances X_jᵀX_l (002 Lemma 4)."""
    return 2.0 * c_x * c_x * math.sqrt(k)


def ols_sensitivity(c_x: float, c_y: float, s: int) -> float:
    """ℓ2-sensitivity of one PRIVATE-OLS release: one correlation and at most s covariances.

    √((2c_x c_y)² + s(2c_x²)²) from Lemma 4's per-entry bounds (the noise "of order s", 002 §3).
    """
    return 2.0 * c_x * math.sqrt(c_y * c_y + s * c_x * c_x)


class PrivateOLS:
    """PRIVATE-OLS (002 Alg. 2): low-noise (μ2) correlations and covariances of the chosen features.

    Each :meth:`add` re-privatises the new feature j's correlation X_jᵀy and its covariances
    X_jᵀX_l, l ∈ S ∪ {j} (lines 4–7; the matrix is filled symmetrically, "as [it] is symmetric"),
    as one μ2-GDP NOISY-SMPC call, then returns the private OLS model β̃_S = Ĝ_S⁻¹ ĉ_S.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, s: int, mu2: float, c_x: float, c_y: float, smpc: NoisySMPCCall):
        self.X, self.y, self.s, self.mu2, self.smpc = X, y, s, mu2, smpc
        self.sens = ols_sensitivity(c_x, c_y, s)
        self.S: list[int] = []
        self.c = np.zeros(0)
        self.G = np.zeros((0, 0))

    def add(self, j: int) -> np.ndarray:
        """Add feature j (one μ2 call) and return the private OLS coefficients over S (len |S|)."""
        X, y = self.X, self.y
        S = self.S + [j]
        total = np.concatenate([[X[:, j] @ y], X[:, S].T @ X[:, j]])
        rel = self.smpc(
            "private-ols",
            total,
            self.sens,
            self.mu2,
            X.shape[0],
            lambda: np.column_stack([X[:, j] * y, X[:, S] * X[:, j : j + 1]]),
            level=2,
        )
        k = len(S)
        G = np.zeros((k, k))
        G[:-1, :-1] = self.G
        G[-1, :] = rel[1:]
        G[:, -1] = rel[1:]
        self.G, self.c, self.S = G, np.append(self.c, rel[0]), S
        return solve(self.G, self.c)


def solve(G: np.ndarray, c: np.ndarray) -> np.ndarray:
    """β = G⁻¹c for the (noisy, symmetric) Gram matrix; least squares when G is singular."""
    try:
        return np.linalg.solve(G, c)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(G, c, rcond=None)[0]
