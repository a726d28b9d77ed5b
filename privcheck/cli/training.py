"""``privcheck audit dp-sgd|dp-fedavg --canaries M``: one training run audited with M canaries.

Trains the numpy DP-SGD / DP-FedAvg of :mod:`estimators.training` once (parameters by ``--param``,
names of :class:`~estimators.training.TrainingConfig`; ``T`` and ``N`` are accepted for ``steps``
and ``n``), with a progress bar on a terminal, and audits it against its own PLD accountant
(:func:`privcheck.canaries.training.audit_training`). ``--eps E`` without ``--param sigma=…``
calibrates σ so that the accountant's ε at δ is at most E. Exit: 1 refuted, 0 otherwise.
"""

from __future__ import annotations

import dataclasses
import sys

import click

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli.emit import emit_and_exit
from privcheck.cli.terminal import rich_terminal

__all__ = ["training_audit"]

_ALIASES = {"T": "steps", "N": "n"}


def _config(name: str, params: dict, canaries: int):
    from estimators.training import TrainingConfig

    fields = {f.name for f in dataclasses.fields(TrainingConfig)} - {"algorithm", "canaries", "extra"}
    kw = {}
    for key, val in params.items():
        key = _ALIASES.get(key, key)
        if key not in fields:
            raise PrivcheckUsageError(
                f"--param {key}: not a training parameter; allowed: {', '.join(sorted(fields | set(_ALIASES)))}"
            )
        kw[key] = val
    return TrainingConfig(algorithm=name, canaries=canaries, **kw)


def training_audit(name, params: dict, canaries, eps, delta, confidence, seed, json_out, method="one-run-fdp"):
    """Run and print one training audit (see the module docstring); exits the process."""
    from estimators.training.accounting import calibrate_sigma
    from privcheck.canaries.training import audit_training

    if name not in ("dp-sgd", "dp-fedavg"):
        raise PrivcheckUsageError(
            f"--canaries audits a training run: MECHANISM must be dp-sgd or dp-fedavg, got {name!r}"
        )
    if not isinstance(canaries, int) or canaries < 2:
        raise PrivcheckUsageError(f"--canaries must be an integer >= 2, got {canaries!r}")
    delta = 1e-5 if delta is None else float(delta)
    if not 0.0 < delta < 1.0:
        raise PrivcheckUsageError(f"--delta must be in (0, 1) for a training audit, got {delta}")
    if not 0.0 < confidence < 1.0:
        raise PrivcheckUsageError(f"--confidence must be in (0, 1), got {confidence}")
    cfg = _config(name, params, canaries)
    if eps is not None:
        if "sigma" in params:
            raise PrivcheckUsageError("give --eps (sigma is calibrated) or --param sigma=..., not both")
        click.echo(f"calibrating sigma for eps {eps:g} at delta {delta:g} ...", err=True)
        cfg = cfg.with_(sigma=calibrate_sigma(eps, delta, cfg.q, cfg.steps))
    res = _with_progress(
        lambda progress: audit_training(
            cfg, delta=delta, confidence=confidence, method=method, seed=seed, progress=progress
        ),
        cfg.steps,
    )
    emit_and_exit(res, json_out, _lines, 1 if res.verdict == "refuted" else 0, ensure_ascii=True)


def _with_progress(fn, total: int):
    if not rich_terminal(sys.stderr):
        return fn(None)
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("training", total=total)
        return fn(lambda step, n: bar.update(task, completed=step))


def _lines(res) -> list[str]:
    c = res.config
    bug = "" if c.bug == "none" else f", bug {c.bug}"
    lines = [
        f"{c.algorithm} ({c.model}, q={c.q:g}, sigma={c.sigma:.6g}, C={c.C:g}, steps={c.steps}{bug}): "
        f"{res.canaries} {c.canary_kind} canaries, {res.included} included; model accuracy {res.accuracy:.3f}",
        f"  score: {res.score}",
        f"  accountant (claimed): eps = {res.eps_claimed:.6g} at delta {res.delta:g} (PLD, certified upper end)",
        f"  eps_lower = {res.eps_lower:.6g}  ({100 * res.fraction:.1f}% of the claimed eps certified; {res.audit.method})",
    ]
    if res.mu_lower is not None:
        lines.append(f"  mu_lower = {res.mu_lower:.6g}")
    lines.append(f"  power: {res.audit.power}")
    lines.append(f"  verdict: {res.verdict}{' (' + res.reason + ')' if res.reason else ''}")
    test = (res.audit.claim or {}).get("test")
    if test:
        lines.append(f"  test: {test}")
    s = res.seconds
    lines.append(
        f"  time: accountant {s['accountant']:.2f} s, training {s['training']:.2f} s, audit {s['audit']:.2f} s"
    )
    return lines
