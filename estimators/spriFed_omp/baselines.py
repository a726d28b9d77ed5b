"""The two baselines of 002 §7.2, budget-matched in GDP: DP-SGD-ℓ1 and DP-GCD (Alg. 5).

"The first baseline DP-SGD is implemented to minimize the ℓ1-regularized mean square error. After
the algorithm is terminated, we pick the top-s elements [...]"; "we set the privacy parameter μ
[per step as] μ1 from SPriFed-OMP [...]. DP-SGD stops training when the overall privacy budget
matches that of SPriFed-OMP." Reconstruction: full participation (every client every step, no
subsampling amplification), per-client gradients of ½(y_i − x_iᵀβ)² clipped to ℓ2 norm C, their
NOISY-SMPC sum with σ = 2C/μ1 (replace-one sensitivity 2C), a proximal (soft-threshold) ℓ1 step;
T = ⌊μ_total²/μ1²⌋ steps (√T·μ1 ≤ μ_total by Lemma 3). The final model keeps the top-s |β_j|.

DP-GCD (Alg. 5, "the maximum gradient is picked privately in lines 5–8, and the model takes a step
in only the direction of this chosen gradient element in lines 10–11", "re-privatizing (in line 10)
the feature gradient chosen"): per step the element-clipped (|·| ≤ C) local gradients' NOISY-SMPC
sum (μ1, sensitivity 2C√d) selects j, the chosen coordinate's sum is re-privatised (μ2,
sensitivity 2C) and β_j −= η·ĝ_j/n; T = ⌊μ_total²/(μ1² + μ2²)⌋ steps.
"""

from __future__ import annotations

import math

import numpy as np

from estimators.spriFed_omp.algorithms import OMPResult, _argmax_unselected, _prepare
from estimators.spriFed_omp.mechanisms import Ledger, NoisySMPCCall
from privcheck.base.validation import check_nonnegative, check_positive


def _top_s(beta: np.ndarray, s: int) -> list:
    return [int(j) for j in np.argsort(-np.abs(beta), kind="stable")[:s]]


def dp_sgd_l1(
    X,
    y,
    s: int,
    mu1: float,
    mu_total: float,
    c_x: float,
    c_y: float,
    rng: np.random.Generator,
    lr: float = 0.5,
    lam: float = 0.01,
    clip: float | None = None,
    mode: str = "auto",
) -> OMPResult:
    """DP-SGD on ½·mean squared error + λ‖β‖₁ (full batch, proximal ℓ1 step), top-s after training.

    s ≥ 1; mu1 > 0: GDP parameter per step; mu_total ≥ mu1: the budget to match (steps
    T = ⌊μ_total²/μ1²⌋); c_x, c_y > 0: element bounds; lr > 0, lam ≥ 0: step size and ℓ1 weight;
    clip: ℓ2 bound C of the per-client gradients (default c_x·c_y·√s, the size of a gradient of a
    row on an s-sparse residual). Returns the top-s model (the other coefficients zeroed).
    """
    X, y, n, d, s, mu1, _, c_x, c_y = _prepare(X, y, s, mu1, mu_total, c_x, c_y)
    lr, lam = check_positive("lr", lr), check_nonnegative("lam", lam)
    C = check_positive("clip", clip) if clip is not None else c_x * c_y * math.sqrt(s)
    T = max(1, int(math.floor((mu_total / mu1) ** 2 + 1e-12)))
    ledger = Ledger()
    smpc = NoisySMPCCall(rng, ledger, mode)
    beta = np.zeros(d)
    for _ in range(T):
        G = X * (X @ beta - y)[:, None]
        norms = np.linalg.norm(G, axis=1)
        G *= np.minimum(1.0, C / np.maximum(norms, 1e-300))[:, None]
        g = smpc("dp-sgd step", G.sum(axis=0), 2.0 * C, mu1, n, G, level=1) / n
        z = beta - lr * g
        beta = np.sign(z) * np.maximum(np.abs(z) - lr * lam, 0.0)
    S = _top_s(beta, s)
    out = np.zeros(d)
    out[S] = beta[S]
    return OMPResult(S, out, ledger, [{"steps": T}])


def dp_gcd(
    X,
    y,
    s: int,
    mu1: float,
    mu2: float,
    mu_total: float,
    c_x: float,
    c_y: float,
    rng: np.random.Generator,
    lr: float = 1.0,
    clip: float | None = None,
    mode: str = "auto",
) -> OMPResult:
    """Enhanced DP-FL DP-GCD (002 Alg. 5): private greedy coordinate, re-privatised coordinate step.

    mu1, mu2 > 0: GDP parameters of the selection (d-dim) and of the re-privatised coordinate;
    mu_total: budget to match (T = ⌊μ_total²/(μ1²+μ2²)⌋ ≥ 1 steps); lr > 0; clip: element bound C
    of the local gradients (default c_x·c_y). Support: the top-s |β_j| (Alg. 5 returns a sparse model).
    """
    X, y, n, d, s, mu1, mu2, c_x, c_y = _prepare(X, y, s, mu1, mu2, c_x, c_y)
    lr = check_positive("lr", lr)
    C = check_positive("clip", clip) if clip is not None else c_x * c_y
    T = max(1, int(math.floor(mu_total**2 / (mu1**2 + mu2**2) + 1e-12)))
    ledger = Ledger()
    smpc = NoisySMPCCall(rng, ledger, mode)
    beta = np.zeros(d)
    for _ in range(T):
        G = np.clip(X * (X @ beta - y)[:, None], -C, C)
        g = smpc("gcd select", G.sum(axis=0), 2.0 * C * math.sqrt(d), mu1, n, G, level=1)
        j = _argmax_unselected(g, [])
        gj = smpc("gcd coordinate", G[:, j].sum(), 2.0 * C, mu2, n, G[:, j : j + 1], level=2)[0]
        beta[j] -= lr * gj / n
    S = _top_s(beta, s)
    out = np.zeros(d)
    out[S] = beta[S]
    return OMPResult(S, out, ledger, [{"steps": T}])
