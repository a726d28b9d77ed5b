"""ε lower bound against the number of samples: the curve behind the first report plot.

:func:`eps_curve` audits one built-in mechanism with :func:`privcheck.auditor.audit`
at a few sample sizes (the exact ε once, the Monte Carlo lower bound per size)
and returns an :class:`EpsCurve`. Every point is reproducible from ``seed``.
:data:`DEFAULT_CURVES` lists the catalogue mechanisms the HTML report may draw
(together about 6–8 s on one core at the default sizes); :func:`curves_for`
keeps those whose claim (:data:`CURVE_CLAIMS`) is in the report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

from privcheck.base.validation import check_confidence, check_int

#: (label, CLI mechanism name, parameters): catalogue settings drawn by the HTML report
DEFAULT_CURVES: list[tuple[str, str, dict]] = [
    ("de m=2, ε=1 (003)", "de", {"m": 2, "eps": 1.0}),
    ("fedsel-pe d=5, k=2, ε1=1 (000 Alg. 3)", "fedsel-pe", {"d": 5, "k": 2, "eps": 1.0}),
    ("pm ε=1 (000 ref. [13])", "pm", {"eps": 1.0}),
]
DEFAULT_SIZES: tuple[int, ...] = (10_000, 100_000, 1_000_000)
#: the catalogue claim each default curve illustrates: a report draws a curve only when it holds that claim
CURVE_CLAIMS: dict[str, str] = {"de": "biswas.de.ldp", "fedsel-pe": "fedsel.pe.ldp", "pm": "fedsel.pm.ldp"}


@dataclass
class EpsCurve:
    """Monte Carlo ε lower bounds of one mechanism at increasing sample sizes.

    label: legend text; mechanism: CLI name; params: its parameters;
    eps_claimed: the nominal (claimed) ε; eps_exact: the exact ε or None;
    samples: draws per input at each point; eps_lower: the lower bound at
    each point (``-inf`` when nothing separated the inputs); eps_max_certifiable:
    the largest ε each size could certify; confidence; seed.
    """

    label: str
    mechanism: str
    params: dict
    eps_claimed: float
    eps_exact: float | None
    samples: list[int] = field(default_factory=list)
    eps_lower: list[float] = field(default_factory=list)
    eps_max_certifiable: list[float] = field(default_factory=list)
    confidence: float = 0.95
    seed: int = 0

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        from privcheck.claims import _jsonable

        return _jsonable(asdict(self))


def eps_curve(
    name: str,
    params: dict,
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    label: str | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    jobs: int | None = 1,
) -> EpsCurve:
    """Audit mechanism ``name`` (CLI name, e.g. ``"de"``) with ``params`` at each sample size in ``sizes``.

    sizes: draws per input, each ≥ 20; seed ≥ 0 (the same seed at every size,
    so the points differ only by sample size); confidence in (0, 1). The exact
    ε is computed once when the mechanism provides it. Returns an
    :class:`EpsCurve` for :func:`privcheck.reports.plots.plot_eps_curves`.
    """
    from estimators.registry import mechanism
    from privcheck.auditor import audit

    confidence = check_confidence(confidence)
    sizes = [check_int("samples", s, minimum=20) for s in sizes]
    if not sizes:
        raise ValueError("sizes must contain at least one sample size")
    mech = mechanism(name, **params)
    ex = mech.exact_epsilon()
    curve = EpsCurve(
        label or name,
        name,
        dict(params),
        float(mech.eps_nominal),
        None if ex is None else float(ex.eps),
        confidence=confidence,
        seed=int(seed),
    )
    for n in sizes:
        res = audit(mech, samples=n, seed=seed, confidence=confidence, exact=False, jobs=jobs)
        curve.samples.append(int(n))
        curve.eps_lower.append(float(res.eps_lower))
        curve.eps_max_certifiable.append(float(res.eps_max_certifiable))
    return curve


def default_curves(sizes: Sequence[int] = DEFAULT_SIZES, seed: int = 0, confidence: float = 0.95) -> list[EpsCurve]:
    """The curves of :data:`DEFAULT_CURVES` (used by the HTML report)."""
    return [
        eps_curve(name, params, sizes, label=label, seed=seed, confidence=confidence)
        for label, name, params in DEFAULT_CURVES
    ]


def curves_for(
    claim_ids, sizes: Sequence[int] = DEFAULT_SIZES, seed: int = 0, confidence: float = 0.95
) -> list[EpsCurve]:
    """The default curves whose catalogue claim (:data:`CURVE_CLAIMS`) is among ``claim_ids``."""
    ids = set(claim_ids)
    return [
        eps_curve(name, params, sizes, label=label, seed=seed, confidence=confidence)
        for label, name, params in DEFAULT_CURVES
        if CURVE_CLAIMS.get(name) in ids
    ]
