"""DP-SGD and DP-FedAvg: numpy references whose transcript of noisy sums is audited against their accountant.

Both run ``T`` rounds of the same loop (:class:`NoisyClippedSums`): every participant (a training
example in DP-SGD, a client in DP-FedAvg) joins the round independently with probability ``q``
(Poisson sampling), its contribution at the current model ``θ_t`` is clipped to L2 norm ``C``, and
the server releases ``y_t = Σ clipped contributions + N(0, (σC)² I_d)`` and updates
``θ_{t+1} = θ_t − lr · y_t``. The output is the transcript ``(y_1, …, y_T)`` (shape ``(n, T·d)``),
what the server (or anyone who sees the model updates) observes.

Neighbouring inputs (add/remove): ``x = 0`` is the dataset without the canary, ``x = 1`` with it.
The other ``N`` participants (default 0, the worst case for the audit) have fixed synthetic data.
The canary's raw contribution is enormous along the first axis, so its clipped contribution has norm
exactly ``C``: the accountant's worst case. Each round is then the Poisson-subsampled Gaussian
mechanism with noise multiplier ``σ`` (sensitivity ``C``, noise ``σC``), composed ``T`` times
adaptively (Abadi et al. 2016, DP-SGD; McMahan et al. 2018, DP-FedAvg): :meth:`accountant` is the
PLD accountant ``PoissonSampledEvent(GaussianEvent(σ), q) × T`` (:mod:`accountants.pld`).

- ``dp-sgd``: a participant's contribution is its per-example gradient of the squared loss
  ``½(θ·u − y)²`` at ``θ_t``;
- ``dp-fedavg``: a client's contribution is its model update after ``local_steps`` local gradient
  steps (rate ``local_lr``) from ``θ_t``, and the server adds its noise to the sum of clipped updates.

``bug="noise-ignores-clip"`` is a deliberately broken implementation whose noise is ``N(0, σ²)``
instead of ``N(0, (σC)²)`` (a real bug pattern: the noise multiplier used as the noise scale); with
``C > 1`` it leaks more than its accountant says, and an audit against the accountant refutes it.
With ``N = 0`` the mechanism offers the exact log-likelihood ratio of a transcript (:meth:`llr`),
the Neyman–Pearson optimal statistic the curve auditor uses.
"""

from __future__ import annotations

import math

import numpy as np

from estimators.base import Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_positive, check_probability

BUGS = ("none", "noise-ignores-clip")
#: the canary's target: far beyond any clipping norm, so its clipped contribution has norm C
CANARY_TARGET = -1e6
#: fixed seed of the other participants' synthetic data (part of the mechanism's definition)
DATA_SEED = 20260


class NoisyClippedSums(Mechanism):
    """Shared loop of DP-SGD and DP-FedAvg (see the module docstring); subclasses define :meth:`contribution`.

    Parameters: ``q`` in (0, 1] sampling rate, ``sigma`` > 0 noise multiplier, ``C`` > 0 clipping
    norm, ``T`` ≥ 1 rounds, ``d`` ≥ 1 model dimension, ``N`` ≥ 0 other participants, ``lr`` > 0
    server learning rate, ``bug`` one of :data:`BUGS`.
    """

    output_kind = "vector"
    exact_in_mpmath = False
    eps_nominal = math.inf
    delta_nominal = 0.0

    def __init__(
        self,
        q: float = 0.5,
        sigma: float = 1.0,
        C: float = 1.0,
        T: int = 1,
        d: int = 1,
        N: int = 0,
        lr: float = 0.1,
        bug: str = "none",
    ):
        self.q = check_probability("q", q, open_low=True)
        self.sigma = check_positive("sigma", sigma)
        self.C = check_positive("C", C)
        self.T = check_int("T", T, minimum=1, maximum=10_000)
        self.d = check_int("d", d, minimum=1, maximum=1_000)
        self.N = check_int("N", N, minimum=0, maximum=1_000)
        self.lr = check_positive("lr", lr)
        if bug not in BUGS:
            raise PrivcheckUsageError(f"bug must be one of {', '.join(BUGS)}, got {bug!r}")
        self.bug = bug
        self._params = {
            "q": self.q,
            "sigma": self.sigma,
            "C": self.C,
            "T": self.T,
            "d": self.d,
            "N": self.N,
            "lr": self.lr,
        }
        if bug != "none":
            self._params["bug"] = bug
        data = np.random.default_rng(DATA_SEED)
        self._U = data.standard_normal((self.N, self.d)) / math.sqrt(self.d)
        self._Y = data.standard_normal(self.N)
        self._canary_u = np.eye(1, self.d).reshape(-1)
        self.llr = self._llr if self.N == 0 else None

    # ------------------------------------------------------------------ the participants
    def contribution(self, theta: np.ndarray, U: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Raw contributions of participants with data ``(U, Y)`` (``(P, d)``, ``(P,)``) at models ``theta``
        (``(n, d)``): shape ``(n, P, d)``."""
        raise NotImplementedError

    def _clipped(self, theta: np.ndarray, U: np.ndarray, Y: np.ndarray) -> np.ndarray:
        g = self.contribution(theta, U, Y)
        norm = np.sqrt(np.einsum("npd,npd->np", g, g))
        return g * np.minimum(1.0, self.C / np.maximum(norm, 1e-300))[..., None]

    def _data(self, x) -> tuple[np.ndarray, np.ndarray]:
        if x not in (0, 1) or isinstance(x, bool):
            raise PrivcheckUsageError(f"{self.name} input must be 0 (without the canary) or 1 (with it), got {x!r}")
        if x == 0:
            return self._U, self._Y
        return np.vstack([self._U, self._canary_u]), np.append(self._Y, CANARY_TARGET)

    def noise_std(self) -> float:
        """The server noise's standard deviation: ``σC`` (``σ`` under ``bug="noise-ignores-clip"``)."""
        return self.sigma if self.bug == "noise-ignores-clip" else self.sigma * self.C

    # ------------------------------------------------------------------ mechanism interface
    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` transcripts ``(y_1, …, y_T)`` on dataset ``x`` (0 without, 1 with the canary): ``(n, T·d)``."""
        n = check_int("n", n, minimum=0)
        U, Y = self._data(x)
        theta = np.zeros((n, self.d))
        out = np.empty((n, self.T * self.d))
        std = self.noise_std()
        for t in range(self.T):
            y = rng.standard_normal((n, self.d)) * std
            if len(Y):
                keep = rng.random((n, len(Y))) < self.q
                y += np.einsum("np,npd->nd", keep, self._clipped(theta, U, Y))
            out[:, t * self.d : (t + 1) * self.d] = y
            theta -= self.lr * y
        return out

    def inputs(self) -> list:
        return [0, 1]

    def accountant(self):
        """The PLD accountant of the claim: ``T`` rounds of the Poisson-subsampled Gaussian (rate q, noise
        multiplier σ), add/remove — independent of ``bug`` (the accountant describes the intended mechanism)."""
        from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent

        ev = GaussianEvent(self.sigma) if self.q == 1.0 else PoissonSampledEvent(GaussianEvent(self.sigma), self.q)
        return PLDAccountant("add_remove").compose(ev, self.T)

    def _llr(self, X: np.ndarray, x, x_prime) -> np.ndarray:
        """Exact ``log p(X | x') − log p(X | x)`` of transcripts ``X`` (``(n, T·d)``) for the intended noise ``σC``,
        only with no other participants (``N = 0``): each round, ``log(1 − q + q·exp((⟨y, g⟩ − |g|²/2)/(σC)²))``
        with ``g`` the canary's clipped contribution at the model the transcript implies."""
        if x == x_prime:
            return np.zeros(len(X))
        X = np.asarray(X, dtype=np.float64).reshape(len(X), self.T, self.d)
        s2 = (self.sigma * self.C) ** 2
        theta = np.zeros((len(X), self.d))
        total = np.zeros(len(X))
        canary = (self._canary_u[None], np.array([CANARY_TARGET]))
        for t in range(self.T):
            y = X[:, t]
            g = self._clipped(theta, *canary)[:, 0]
            z = (np.einsum("nd,nd->n", y, g) - 0.5 * np.einsum("nd,nd->n", g, g)) / s2
            total += np.logaddexp(math.log1p(-self.q) if self.q < 1 else -np.inf, math.log(self.q) + z)
            theta -= self.lr * y
        return total if x_prime == 1 else -total


class DPSGD(NoisyClippedSums):
    """DP-SGD (CLI ``dp-sgd``): per-example gradients of ``½(θ·u − y)²`` clipped to C, Poisson rate q,
    noise σC on the sum, T steps; the transcript of noisy sums is the output (module docstring)."""

    name = "dp-sgd"
    source = "Abadi et al. 2016 (DP-SGD, Alg. 1); accountant: accountants.pld (Poisson-subsampled Gaussian x T)"

    def contribution(self, theta, U, Y):
        """Per-example gradients ``(θ·u − y) u``: ``(n, P, d)``."""
        r = theta @ U.T - Y[None, :]
        return r[..., None] * U[None, :, :]


class DPFedAvg(NoisyClippedSums):
    """DP-FedAvg (CLI ``dp-fedavg``): clients (rate q) run ``local_steps`` gradient steps (rate ``local_lr``)
    from the global model; their updates are clipped to C and summed, the server adds N(0, (σC)²)."""

    name = "dp-fedavg"
    source = "McMahan et al. 2018 (DP-FedAvg, Alg. 1); accountant: accountants.pld (Poisson-subsampled Gaussian x T)"

    def __init__(
        self,
        q: float = 0.5,
        sigma: float = 1.0,
        C: float = 1.0,
        T: int = 1,
        d: int = 1,
        N: int = 0,
        lr: float = 0.1,
        bug: str = "none",
        local_steps: int = 2,
        local_lr: float = 0.1,
    ):
        self.local_steps = check_int("local_steps", local_steps, minimum=1, maximum=100)
        self.local_lr = check_positive("local_lr", local_lr)
        super().__init__(q=q, sigma=sigma, C=C, T=T, d=d, N=N, lr=lr, bug=bug)
        self._params.update(local_steps=self.local_steps, local_lr=self.local_lr)

    def contribution(self, theta, U, Y):
        """Client updates ``θ_t − θ_local`` after local gradient steps on ``½(θ·u − y)²``: ``(n, P, d)``
        (the sign makes them descent directions the server subtracts, like gradients)."""
        local = np.repeat(theta[:, None, :], len(Y), axis=1)
        for _ in range(self.local_steps):
            r = np.einsum("npd,pd->np", local, U) - Y[None, :]
            local = local - self.local_lr * r[..., None] * U[None, :, :]
        return theta[:, None, :] - local
