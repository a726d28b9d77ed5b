"""Adapters driving Flower's DP code the way a real round does (used by :mod:`.flwr`; reusable by gray-box traces).

Each adapter is a picklable callable ``x -> the released arrays`` for an input label ``x`` (strategies: 0 the
target client sends a large update, clipped to the norm, 1 a tiny one; LocalDpMod: 0 and 1 are two clients
with opposite large updates), so that ``privcheck.per_sample(adapter,
seed_global=True)`` audits it (Flower draws its noise from numpy's global generator, which ``seed_global``
seeds from the audit's seed: the audits are reproducible).

Layers (stated in every record): :class:`LocalDpClient` builds the ``Message``/``Context`` objects a ClientApp
hands its mods and calls ``LocalDpMod`` with a ``call_next`` that plays the training (≈ 1.2 ms per call);
:class:`StrategyRound` builds the ``FitRes`` results of one round (parameters serialised by
``ndarrays_to_parameters``, ``num_examples``, metrics) and calls the wrapper's ``aggregate_fit`` around the
default ``FedAvg`` (≈ 1.7 ms per call for 3 clients); the round's current parameters are set as
``configure_fit`` sets them (without a client manager). Client-side clipping is applied with the helper
Flower's ``fixedclipping_mod`` / ``adaptiveclipping_mod`` call (``compute_clip_model_update`` /
``compute_adaptive_clip_model_update``, norm bit in the metrics under ``KEY_NORM_BIT``): the cheapest
faithful layer of those mods.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the update of the target client for input 0 is this many clipping norms long (so it is clipped);
#: for input 1 it is TINY clipping norms long (an exactly zero update crashes Flower's clipping: see .flwr)
BIG, TINY = 10.0, 1e-6


def first_coordinate(outputs):
    """The coordinate the neighbouring updates differ in (e1): for isotropic Gaussian noise, the
    likelihood-ratio statistic of the pair (a post-processing; the other coordinates are independent noise)."""
    arr = np.asarray(outputs, dtype=float)
    return arr.reshape(arr.shape[0], -1)[:, 0]


def set_task_identity() -> None:
    """The process identity Flower's runtime sets before running a ClientApp (``run_clientapp``)."""
    from flwr.supercore.task_identity import TaskIdentity

    TaskIdentity.task_id, TaskIdentity.run_id, TaskIdentity.node_id = 1, 1, 1


def _update(x, d: int, scale: float, dtype) -> np.ndarray:
    u = np.zeros(d, dtype=dtype)
    u[0] = scale * (BIG if x == 0 else TINY)
    return u


@dataclass
class LocalDpClient:
    """``x -> the parameters LocalDpMod(clipping_norm, sensitivity, epsilon, delta) sends``: the server's
    parameters θ = 0 arrive in a train ``Message``; the training (``call_next``) returns θ + update(x) with a
    ``MetricRecord``; the mod clips the update and adds its Gaussian noise."""

    clipping_norm: float
    sensitivity: float
    epsilon: float
    delta: float
    d: int = 1
    dtype: str = "float64"
    __name__: str = "flwr.clientapp.mod.LocalDpMod"

    def __call__(self, x):

        update = np.zeros(self.d, dtype=self.dtype)
        update[0] = (BIG if x == 0 else -BIG) * self.clipping_norm  # two clients, both clipped to norm C
        out = self.release(update)
        return float(out[0]) if self.d == 1 else out

    def release(self, update: np.ndarray) -> np.ndarray:
        """The parameters the mod sends when the training moves θ = 0 by ``update`` (any float array of the
        model's size: the gray-box traces pass updates, NaN ones included)."""
        import logging

        from flwr.app import ArrayRecord, ConfigRecord, Context, Message, MetricRecord, RecordDict
        from flwr.clientapp.mod import LocalDpMod

        logging.getLogger("flwr").disabled = True  # two INFO lines per call otherwise
        set_task_identity()
        theta = np.zeros(self.d, dtype=self.dtype)
        update = np.asarray(update, dtype=self.dtype).reshape(self.d)
        mod = LocalDpMod(self.clipping_norm, self.sensitivity, self.epsilon, self.delta)
        ctx = Context(run_id=1, node_id=1, node_config={}, state=RecordDict(), run_config={})
        msg = Message(
            RecordDict({"arrays": ArrayRecord([theta]), "config": ConfigRecord({})}),
            dst_node_id=1,
            message_type="train",
        )

        def train(m, c):
            content = RecordDict(
                {"arrays": ArrayRecord([theta + update]), "metrics": MetricRecord({"num-examples": 10})}
            )
            return Message(content, reply_to=m)

        return mod(msg, ctx, train).content["arrays"].to_numpy_ndarrays()[0].astype(float)


@dataclass
class RoundSpec:
    """One round: the target's weight ``n_target`` (its ``num_examples``), the others' weights ``others``
    (their updates: half a clipping norm along e1, unclipped), the number the wrapper was told it samples
    (``sampled``; more than ``1 + len(others)``: clients dropped out), the model size ``d`` and dtype, and
    whether the target's large update carries a non-finite entry (``nonfinite``: diverged training)."""

    n_target: int = 100
    others: tuple = (100,) * 9
    sampled: int | None = None
    d: int = 1
    dtype: str = "float64"
    nonfinite: bool = False

    @property
    def num_sampled(self) -> int:
        return self.sampled if self.sampled is not None else 1 + len(self.others)


@dataclass
class StrategyRound:
    """``x -> the parameters aggregate_fit releases`` for a DP wrapper ``kind`` around ``FedAvg()``:
    ``server_fixed``, ``client_fixed``, ``server_adaptive``, ``client_adaptive`` (a fresh wrapper per draw:
    one round from its initial state). ``kw``: the wrapper's other keyword arguments."""

    kind: str
    noise_multiplier: float
    clipping_norm: float
    spec: RoundSpec
    kw: dict = field(default_factory=dict)
    __name__: str = "flwr.server.strategy.DifferentialPrivacy*.aggregate_fit"

    def strategy(self):
        from flwr.server import strategy as s

        z, C, m = self.noise_multiplier, self.clipping_norm, self.spec.num_sampled
        if self.kind == "server_fixed":
            return s.DifferentialPrivacyServerSideFixedClipping(s.FedAvg(), z, C, m)
        if self.kind == "client_fixed":
            return s.DifferentialPrivacyClientSideFixedClipping(s.FedAvg(), z, C, m)
        cls = {
            "server_adaptive": s.DifferentialPrivacyServerSideAdaptiveClipping,
            "client_adaptive": s.DifferentialPrivacyClientSideAdaptiveClipping,
        }[self.kind]
        return cls(s.FedAvg(), z, m, initial_clipping_norm=C, **self.kw)

    def _result(self, theta, update, n: int, C: float):
        from flwr.common import Code, FitRes, Status, ndarrays_to_parameters
        from flwr.supercore.differential_privacy import (
            KEY_NORM_BIT,
            compute_adaptive_clip_model_update,
            compute_clip_model_update,
        )

        params, metrics = [theta + update], {}
        if self.kind == "client_fixed":  # what fixedclipping_mod does on the client
            compute_clip_model_update(params, [theta], C)
        elif self.kind == "client_adaptive":  # what adaptiveclipping_mod does on the client
            metrics[KEY_NORM_BIT] = compute_adaptive_clip_model_update(params, [theta], C)
        return None, FitRes(Status(Code.OK, ""), ndarrays_to_parameters(params), n, metrics)

    def __call__(self, x):
        target = _update(x, self.spec.d, self.clipping_norm, self.spec.dtype)
        if self.spec.nonfinite and x == 0:
            target[-1] = np.nan
        out = self.release(target)
        return float(out[0]) if self.spec.d == 1 else out

    def release(self, target: np.ndarray) -> np.ndarray:
        """The parameters ``aggregate_fit`` releases when the target client's update is ``target`` (any float
        array of the model's size) and the others' are as the spec says."""
        import logging

        logging.getLogger("flwr").disabled = True  # one INFO line per client per call otherwise
        sp = self.spec
        strat = self.strategy()
        theta = np.zeros(sp.d, dtype=sp.dtype)
        strat.current_round_params = [theta]  # what configure_fit stores (server-side wrappers)
        C = getattr(strat, "clipping_norm", self.clipping_norm)
        target = np.asarray(target, dtype=sp.dtype).reshape(sp.d)
        other = np.zeros(sp.d, dtype=sp.dtype)
        other[0] = 0.5 * self.clipping_norm
        results = [self._result(theta, target, sp.n_target, C)]
        results += [self._result(theta, other, n, C) for n in sp.others]
        params, _ = strat.aggregate_fit(1, results, [])
        from flwr.common import parameters_to_ndarrays

        return parameters_to_ndarrays(params)[0].astype(float)


@dataclass
class OnUpdate:
    """``update -> adapter.release(update)``: a :class:`LocalDpClient` or :class:`StrategyRound` driven by the
    update vector itself (the gray-box traces' input; ``fn(x)``, Flower's global numpy randomness)."""

    adapter: LocalDpClient | StrategyRound
    __name__: str = "flwr"

    def __call__(self, update):
        with np.errstate(invalid="ignore"):  # NaN updates: Flower's clipping multiplies by NaN (the trace reports it)
            return self.adapter.release(np.asarray(update, dtype=float))
