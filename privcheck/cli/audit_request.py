"""The options of one ``privcheck audit`` command line as a plan object, and the parsing they need.

:class:`AuditRequest` is what the command hands to the built-in and the user-code audits
(:mod:`privcheck.cli.audit`, :mod:`privcheck.cli.audit_user`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from privcheck.base.errors import PrivcheckUsageError


@dataclass
class AuditRequest:
    """The options of one ``privcheck audit`` command line (names as the command's parameters)."""

    mechanism_name: str
    params: tuple[str, ...] = ()
    eps: float | None = None
    samples: Any = None  # as typed (an integer or 'auto[:...]'), parsed by privcheck.auditor.adaptive
    exact: bool | None = None
    monte_carlo: bool = True
    confidence: float = 0.95
    seed: int = 0
    jobs: int | None = None
    json_out: str | None = None
    inputs: tuple[str, ...] = ()
    pairs: tuple[str, ...] = ()
    per_sample: bool = False
    seed_global: bool = False
    view: str | None = None
    delta: float | None = None
    max_memory: str | None = None
    dask: str | None = None
    mu: float | None = None
    accountant_specs: tuple[str, ...] = ()
    family: str | None = None
    timeout: float | None = None
    canaries: int | None = None

    def auditor_kwargs(self, draws: int, curve: dict) -> dict[str, Any]:
        """The keyword arguments of :func:`privcheck.audit` both audits share: the claim (``--eps`` and the
        curve claim), ``draws`` per input unless ``--samples`` says otherwise, seed, confidence, jobs, backend."""
        return dict(
            eps=self.eps,
            samples=self.samples or draws,
            seed=self.seed,
            confidence=self.confidence,
            jobs=self.jobs,
            client=self.dask,
            **curve,
        )


def parse_params(items: tuple[str, ...]) -> dict:
    """``--param NAME=VALUE`` items as a dict: integers as typed, finite floats, else the word itself."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise PrivcheckUsageError(f"--param takes NAME=VALUE, got {item!r}")
        key, _, val = item.partition("=")
        key = key.strip()
        if key in out:
            raise PrivcheckUsageError(f"--param {key} is given twice ({out[key]!r} and {val.strip()!r}); give it once")
        if re.fullmatch(r"\s*[+-]?[0-9]+\s*", val):  # an integer as typed: no rounding through a float
            out[key] = int(val)
            continue
        try:
            num = float(val)
        except ValueError:  # a word (e.g. selector=pe): the mechanism validates it
            out[key] = val.strip()
            continue
        if math.isnan(num) or math.isinf(num):
            raise PrivcheckUsageError(f"--param {key}: value must be a finite number, got {val!r}")
        out[key] = int(num) if num.is_integer() and "." not in val and "e" not in val.lower() else num
    return out


def curve_claim(mu, accountant_specs, eps, delta) -> dict:
    """``audit``'s curve claim as keyword arguments: ``{"mu": M}``, ``{"accountant": PLDAccountant}`` or ``{}``."""
    if mu is not None and accountant_specs:
        raise PrivcheckUsageError("give one claim: --mu or --accountant, not both")
    if (mu is not None or accountant_specs) and eps is not None:
        raise PrivcheckUsageError(
            "--mu/--accountant are claims of their own; drop --eps (--delta D alone adds the "
            "certified eps lower bound at delta D)"
        )
    if mu is not None:
        if not (math.isfinite(mu) and mu > 0):
            raise PrivcheckUsageError(f"--mu must be a finite number > 0, got {mu}")
        return {"mu": mu}
    if accountant_specs:
        from accountants.pld_spec import pld_accountant

        return {"accountant": pld_accountant(accountant_specs, option="--accountant")[0]}
    return {}
