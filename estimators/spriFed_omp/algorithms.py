"""SPriFed-OMP (002 Alg. 3), SPriFed-OMP-GRAD (002 Alg. 4) and non-private OMP (Fig. 1 artifacts).

Every client holds one row (x_i, y_i) of (X, y) ("we assume that each client contains a single
training sample", 002 §1); the algorithms are vectorised over clients (matrix products over the
rows) and all noise comes from one generator. Data are clipped element-wise to the bounds c_x, c_y
first (Assumption 2), so the sensitivities of Lemma 4 hold whatever the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from estimators.spriFed_omp.mechanisms import (
    Ledger,
    NoisySMPCCall,
    PrivateOLS,
    corr_sensitivity,
    cov_sensitivity,
    solve,
    validate_run,
)
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_positive


@dataclass
class OMPResult:
    """A run's output: the support S (selection order), the model β (d,), the ledger and a trace.

    trace: per round, the noisy selection scores' argmax and (for Fig. 1) norms when recorded.
    """

    support: list
    beta: np.ndarray
    ledger: Ledger
    trace: list = field(default_factory=list)

    def recovered(self, true_support) -> int:
        """How many of the true basis elements are in the predicted support."""
        return len(set(int(j) for j in self.support) & set(int(j) for j in true_support))

    def mse(self, X: np.ndarray, y: np.ndarray) -> float:
        """Mean squared prediction error of β on (X, y)."""
        return float(np.mean((y - X @ self.beta) ** 2))


def _prepare(X, y, s, mu1, mu2, c_x, c_y):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if X.ndim != 2 or y.shape[0] != X.shape[0]:
        raise PrivcheckUsageError(f"X must be n×d and y of length n, got X{X.shape}, y{y.shape}")
    n, d = X.shape
    n, d, s, mu1, mu2, c_x, c_y = validate_run(n, d, s, mu1, mu2, c_x, c_y)
    return np.clip(X, -c_x, c_x), np.clip(y, -c_y, c_y), n, d, s, mu1, mu2, c_x, c_y


def _argmax_unselected(scores: np.ndarray, S: list) -> int:
    a = np.abs(scores).copy()
    a[S] = -np.inf
    return int(np.argmax(a))


def spriFed_omp(
    X,
    y,
    s: int,
    mu1: float,
    mu2: float,
    c_x: float,
    c_y: float,
    rng: np.random.Generator,
    enhancement1: bool = True,
    mode: str = "auto",
    share_factor: float = 1.0,
    keep: bool = False,
) -> OMPResult:
    """SPriFed-OMP (002 Alg. 3): private OMP from NOISY-SMPC correlations and covariances.

    X (n×d), y (n): one client per row; s: sparsity 1 ≤ s ≤ d; mu1, mu2 > 0: GDP parameters of the
    d-dimensional releases (lines 5, 11) and of PRIVATE-OLS (Alg. 2); c_x, c_y > 0: element bounds;
    rng: the only source of randomness; enhancement1: re-privatise the chosen features' artifacts
    with μ2 (line 14, Enhancement 1) — False uses the μ1 artifacts of lines 5 and 11 for the model
    ("we directly use the artifacts privatized by the higher order noise", 002 §7.1);
    mode, share_factor: see :class:`NoisySMPCCall`; keep: keep the released transcript in the ledger.

    Rounds: c̃ = Xᵀy + N(0, σ_c²) (μ1); for k = 1..s: j = argmax_{j∉S} |r̃_j|; β̃_S from PRIVATE-OLS (μ2);
    if another round follows, Ṽ_j = X_jᵀX + N(0, σ_v²) (μ1) and r̃ = c̃ − Ṽ_S β̃_S (line 15). The last
    feature's covariance column is never used, so it is not computed (n1 = s, n2 = s with
    Enhancement 1; without it n1 = s + 1, n2 = 0 because the model needs every chosen column).
    """
    X, y, n, d, s, mu1, mu2, c_x, c_y = _prepare(X, y, s, mu1, mu2, c_x, c_y)
    ledger = Ledger(keep=keep)
    smpc = NoisySMPCCall(rng, ledger, mode, share_factor)
    c = smpc("correlation", X.T @ y, corr_sensitivity(c_x, c_y, d), mu1, n, lambda: X * y[:, None])
    ols = PrivateOLS(X, y, s, mu2, c_x, c_y, smpc) if enhancement1 else None
    S: list[int] = []
    V = np.zeros((d, 0))
    r = c
    trace = []
    b = np.zeros(0)
    for k in range(s):
        j = _argmax_unselected(r, S)
        S.append(j)
        need_cov = k < s - 1 or not enhancement1
        if need_cov:
            v = smpc("covariance", X.T @ X[:, j], cov_sensitivity(c_x, d), mu1, n, lambda: X * X[:, j : j + 1])
            V = np.column_stack([V, v])
        if enhancement1:
            b = ols.add(j)
        else:
            G = V[S, :]
            b = solve(0.5 * (G + G.T), c[S])
        if k < s - 1:
            r = c - V @ b
        trace.append({"round": k + 1, "chosen": j})
    beta = np.zeros(d)
    beta[S] = b
    return OMPResult(S, beta, ledger, trace)


def spriFed_omp_grad(
    X,
    y,
    s: int,
    mu1: float,
    mu2: float,
    c_x: float,
    c_y: float,
    rng: np.random.Generator,
    grad_clip: float | None = None,
    mode: str = "auto",
    share_factor: float = 1.0,
    keep: bool = False,
) -> OMPResult:
    """SPriFed-OMP-GRAD (002 Alg. 4): clients compute clipped local gradients at the shared private model.

    Parameters as :func:`spriFed_omp`; grad_clip > 0: element bound C_g of the local gradients
    x_i(y_i − x_iᵀβ̃) (line 4; default c_x·c_y, the bound of the first round where β̃ = 0, i.e. the
    "same DP noise magnitudes" as Alg. 3 assumed in the remark after Theorem 8). Each round: the
    noisy secure sum of the clipped gradients (μ1, ℓ2-sensitivity 2C_g√d), j = argmax_{j∉S} |g̃_j|,
    β̃_S from PRIVATE-OLS (μ2). n1 = n2 = s.
    """
    X, y, n, d, s, mu1, mu2, c_x, c_y = _prepare(X, y, s, mu1, mu2, c_x, c_y)
    C = check_positive("grad_clip", grad_clip) if grad_clip is not None else c_x * c_y
    ledger = Ledger(keep=keep)
    smpc = NoisySMPCCall(rng, ledger, mode, share_factor)
    ols = PrivateOLS(X, y, s, mu2, c_x, c_y, smpc)
    S: list[int] = []
    beta = np.zeros(d)
    trace = []
    for k in range(s):
        res = y - X @ beta
        G = np.clip(X * res[:, None], -C, C)
        g = smpc("gradient", G.sum(axis=0), 2.0 * C * np.sqrt(d), mu1, n, G)
        j = _argmax_unselected(g, S)
        S.append(j)
        b = ols.add(j)
        beta = np.zeros(d)
        beta[S] = b
        trace.append({"round": k + 1, "chosen": j})
    return OMPResult(S, beta, ledger, trace)


def omp_trace(X, y, s: int) -> dict:
    """Non-private OMP with the artifact norms of 002 Fig. 1 per iteration.

    Returns lists over iterations k = 1..s: ``gradient_norm`` ‖Xᵀ(y − Xβ_k−1)‖₂ (the correlation of
    the residual before the k-th choice, i.e. the gradient Algorithm 4 privatises),
    ``covariance_norm`` ‖X_jᵀX‖₂ of the newly chosen feature j (the d-dimensional artifact line 11
    of Alg. 3 privatises), ``correlation_abs`` |X_jᵀy| of the new feature, and the support.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    d = X.shape[1]
    S: list[int] = []
    beta = np.zeros(d)
    out = {"gradient_norm": [], "covariance_norm": [], "correlation_abs": [], "support": S}
    for _ in range(s):
        g = X.T @ (y - X @ beta)
        j = _argmax_unselected(g, S)
        S.append(j)
        out["gradient_norm"].append(float(np.linalg.norm(g)))
        out["covariance_norm"].append(float(np.linalg.norm(X.T @ X[:, j])))
        out["correlation_abs"].append(float(abs(X[:, j] @ y)))
        b = np.linalg.lstsq(X[:, S], y, rcond=None)[0]
        beta = np.zeros(d)
        beta[S] = b
    return out
