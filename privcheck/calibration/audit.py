"""``privcheck.audit_calibrator``: a library's noise calibration checked against the exact curve of its mechanism."""

from __future__ import annotations

import inspect
import math
import time
from typing import Any, Callable, Mapping, Sequence

from privcheck.base.errors import PrivcheckUsageError, UnknownNameError, UserCodeError
from privcheck.calibration.curves import MECHANISMS, Mechanism, invert_eps
from privcheck.calibration.grid import DELTA_GRID, EPS_GRID, REL_TOL
from privcheck.calibration.result import CalibratorPoint, CalibratorResult
from privcheck.calibration.verdict import summarise

_EPS_NAMES = ("eps", "epsilon")


class _Calibrator:
    """Calls ``fn`` with the keyword names it takes (``eps``/``epsilon``, ``delta``, ``sensitivity``)."""

    def __init__(self, fn: Callable, name: str | None, needs_delta: bool, sensitivity: float):
        from privcheck.auditor.per_sample import callable_name

        if not callable(fn):
            raise PrivcheckUsageError(
                f"audit_calibrator needs a callable fn(eps=, delta=, sensitivity=) -> scale, got {type(fn).__name__}"
            )
        self.fn, self.name = fn, name or callable_name(fn)
        params: Mapping[str, inspect.Parameter]
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}
        anykw = any(p.kind == p.VAR_KEYWORD for p in params.values())
        self.eps_name = next((n for n in _EPS_NAMES if n in params), "eps" if anykw or not params else None)
        if self.eps_name is None:
            raise PrivcheckUsageError(
                f"{self.name} must take the privacy parameter as eps= or epsilon= (it takes {', '.join(params)})"
            )
        self.takes_delta = anykw or "delta" in params or not params
        self.takes_sens = anykw or "sensitivity" in params or not params
        if needs_delta and not self.takes_delta:
            raise PrivcheckUsageError(f"{self.name} takes no delta=, but the grid has delta > 0; pass delta=[0]")
        if not self.takes_sens and sensitivity != 1.0:
            raise PrivcheckUsageError(
                f"{self.name} takes no sensitivity= (read as calibrating sensitivity 1), but sensitivity={sensitivity:g}"
            )

    def __call__(self, eps: float, delta: float, sensitivity: float) -> Any:
        from privcheck.auditor.user_code import call_user

        kw: dict = {self.eps_name: eps}
        if self.takes_delta:
            kw["delta"] = delta
        if self.takes_sens:
            kw["sensitivity"] = sensitivity
        return call_user(lambda: self.fn(**kw), (), self.name, f"at eps={eps:g}, delta={delta:g}")


def _grid(values: Sequence[float] | float | None, default: Sequence[float], name: str) -> list[float]:
    if values is None:
        return list(default)
    vals = [values] if isinstance(values, (int, float)) else list(values)
    if not vals:
        raise PrivcheckUsageError(f"{name} must hold at least one value")
    out = []
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise PrivcheckUsageError(f"{name} values must be finite numbers, got {v!r}")
        out.append(float(v))
    return out


def _check(mech: Mechanism, eps: list[float], delta: list[float], sensitivity: Any) -> float:
    from privcheck.base.validation import check_positive

    sens = check_positive("sensitivity", sensitivity)
    if mech.integer and sens != int(sens):
        raise PrivcheckUsageError(f"the {mech.name} mechanism needs an integer sensitivity, got {sens:g}")
    for e in eps:
        if not e > 0:
            raise PrivcheckUsageError(f"eps values must be > 0, got {e:g}")
    for d in delta:
        if not 0 <= d < 1:
            raise PrivcheckUsageError(f"delta values must lie in [0, 1), got {d:g}")
        if d == 0 and not mech.pure:
            raise PrivcheckUsageError(f"the {mech.name} mechanism is not eps-DP at delta = 0; give delta values > 0")
    return sens


def check_request(mechanism: str, eps, delta, sensitivity) -> tuple[Mechanism, list[float], list[float], float]:
    """Validate a calibrator audit's mechanism, grid and sensitivity (one-line usage errors); returns them."""
    if mechanism not in MECHANISMS:
        raise UnknownNameError(f"unknown mechanism {mechanism!r}; choose one of {', '.join(MECHANISMS)}")
    mech = MECHANISMS[mechanism]
    eps_grid = _grid(eps, EPS_GRID, "eps")
    delta_grid = _grid(delta, (0.0,) if mech.pure else DELTA_GRID, "delta")
    return mech, eps_grid, delta_grid, _check(mech, eps_grid, delta_grid, sensitivity)


def audit_calibrator(
    fn: Callable,
    mechanism: str = "gaussian",
    eps: Sequence[float] | float | None = None,
    delta: Sequence[float] | float | None = None,
    sensitivity: float = 1.0,
    timeout: float | None = None,
    name: str | None = None,
) -> CalibratorResult:
    """Check a noise calibration ``fn(eps=, delta=, sensitivity=) -> scale`` against the exact privacy curve.

    At every grid point (ε, δ) the scale the calibrator returns is put into the exact curve of
    ``mechanism`` (:mod:`privcheck.calibration.curves`: the exact Gaussian δ(ε) of Balle & Wang 2018,
    Laplace, discrete Laplace, discrete Gaussian of Canonne, Kamath & Steinke 2020), evaluated as certified
    intervals (outward rounding): the point is ``refuted`` when the true δ at the claimed ε exceeds the
    claimed δ (relative tolerance 1e−9), ``holds`` when it does not, ``refused`` when the calibrator
    raises (it does not calibrate that point: e.g. the classic Gaussian calibration σ = Δ√(2 ln(1.25/δ))/ε
    of Dwork & Roth, Thm A.1, is proved for ε < 1 only). Each point also reports the true ε at the claimed
    δ and, where it over-noises, the noise wasted (scale over the smallest scale that meets the claim).

    Parameters
    ----------
    fn : the calibrator; keyword parameters ``eps`` (or ``epsilon``), ``delta`` and ``sensitivity`` are
        passed when it takes them (without ``sensitivity`` it is read as calibrating Δ = 1);
    mechanism : one of ``gaussian`` (scale σ), ``laplace`` (b), ``discrete-laplace`` (t),
        ``discrete-gaussian`` (σ); eps : ε values > 0 (default 0.01 … 50); delta : δ values in [0, 1)
        (default 1e−3 … 1e−12 for the (ε, δ) mechanisms, 0 for the pure ones); sensitivity : Δ > 0
        (an integer for the discrete mechanisms); timeout : seconds; when given the audit runs in a child
        process and a hang becomes verdict ``error``.
    """
    mech, eps_grid, delta_grid, sens = check_request(mechanism, eps, delta, sensitivity)
    cal = _Calibrator(fn, name, any(d > 0 for d in delta_grid), sens)
    args = (cal, mech, eps_grid, delta_grid, sens)
    t0 = time.perf_counter()
    try:
        if timeout is None:
            res = _run(*args)
        else:
            from privcheck.auditor.user_code import run_isolated
            from privcheck.base.resources import check_timeout

            res = run_isolated(_run, args, timeout=check_timeout(timeout), name=cal.name)
    except UserCodeError as exc:
        res = CalibratorResult("error", mech.name, cal.name, sens, summary=f"error: {exc}", reason=str(exc))
    res.seconds = round(time.perf_counter() - t0, 4)
    return res


def _run(cal: _Calibrator, mech: Mechanism, eps_grid: list[float], delta_grid: list[float], sens: float):
    points = [_point(cal, mech, e, d, sens) for d in delta_grid for e in eps_grid]
    return summarise(CalibratorResult("inconclusive", mech.name, cal.name, sens, points=points), mech)


def _point(cal: _Calibrator, mech: Mechanism, eps: float, delta: float, sens: float) -> CalibratorPoint:
    try:
        raw = cal(eps, delta, sens)
    except UserCodeError as exc:
        if exc.kind != "raised":
            raise
        return CalibratorPoint(eps, delta, None, "refused", note=f"the calibrator raised {exc.cause}")
    try:
        scale = float(raw)
    except (TypeError, ValueError):
        return CalibratorPoint(eps, delta, None, "error", note=f"returned {raw!r:.60}, not a number")
    if math.isnan(scale):
        return CalibratorPoint(eps, delta, None, "error", note="returned NaN")
    if scale <= 0:  # no noise: the release is the value itself
        return CalibratorPoint(eps, delta, scale, "refuted", (1.0, 1.0), (math.inf, math.inf), note="no noise")
    if math.isinf(scale):
        return CalibratorPoint(eps, delta, scale, "holds", (0.0, 0.0), (0.0, 0.0), wasted=math.inf)
    return _evaluate(mech, eps, delta, sens, scale)


def _evaluate(mech: Mechanism, eps: float, delta: float, sens: float, scale: float) -> CalibratorPoint:
    dt = mech.delta(scale, sens, eps)
    if delta == 0 and mech.eps0 is not None:
        et = mech.eps0(scale, sens)
        bound = eps * (1 + REL_TOL)
        verdict = "refuted" if et[0] > bound else "holds" if et[1] <= bound else "inconclusive"
    else:
        bound = delta * (1 + REL_TOL)
        verdict = "refuted" if dt[0] > bound else "holds" if dt[1] <= bound else "inconclusive"
        guess = None
        if mech.eps_guess is not None:
            try:
                guess = mech.eps_guess(scale, sens, delta)
            except Exception:  # noqa: BLE001 - the estimate only saves time
                guess = None
        et = invert_eps(lambda e: mech.delta(scale, sens, e), delta, hi=max(1.0, eps), guess=guess)
    pt = CalibratorPoint(eps, delta, scale, verdict, dt, et)
    try:
        pt.optimal = mech.optimal(sens, eps, delta)
    except Exception as exc:  # noqa: BLE001 - the waste is a report, the verdict stands without it
        pt.note = f"optimal scale not computed: {type(exc).__name__}"
    if verdict == "holds" and pt.optimal and math.isfinite(pt.optimal):
        pt.wasted = max(0.0, scale / pt.optimal - 1.0)
    return pt
