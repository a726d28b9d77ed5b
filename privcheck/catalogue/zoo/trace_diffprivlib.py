"""diffprivlib gray-box: ``zoo.diffprivlib.trace.*`` (mechanisms, tools, models) and ``zoo.diffprivlib.calibrator.*``.

diffprivlib takes ``random_state=``: the traced functions build the object with the trace's recording
``RandomState`` (``rng_type="random_state"``), so every draw is coupled and logged as shipped.

- Mechanisms: ``randomise(value)`` on two values at the documented sensitivity (1), inside the documented
  domain; the distance read is what the noise is added to.
- Tools: diffprivlib's sensitivities are those of the *bounded* relation (one record replaced, n public):
  ``sum`` upper − lower, ``mean`` (upper − lower)/n, ``var`` ((upper − lower)/n)²(n − 1), ``count_nonzero``
  1 — the pairs replace one record of a 10-record dataset by a value inside the bounds, above them and
  below them (the documentation says records outside the bounds are clipped), and the NaN/±inf neighbours
  are traced too (a non-finite record is a record outside the bounds).
- Models: ``LogisticRegression(data_norm=1)``, ``GaussianNB(bounds)``, ``LinearRegression(bounds_X, bounds_y)``,
  ``KMeans(bounds)`` fitted on datasets with one row replaced; their outputs are not additive, so these
  cases check invariance only (no noise scale read from the data), with every privacy parameter documented.
- Calibrators: ``Gaussian`` (classic σ = √(2 ln(1.25/δ))/ε, ε ≤ 1 enforced), ``GaussianAnalytic`` (Balle–Wang
  bisection), ``GaussianDiscrete`` (Canonne et al. bisection) read from the mechanism's ``_scale`` set by its
  constructor; ``Laplace`` and ``Geometric`` from their ``variance``: b = √(var/2), and the geometric's
  t = 1/(−``_scale``) (its ``_scale`` is −ε/Δ), on the default grid.
"""

from __future__ import annotations

import math

from privcheck.catalogue.zoo.graybox import CalibratorCase, GrayEntry, TraceCase, register_gray

LIB, DIST, MODS = "diffprivlib", "diffprivlib", ("diffprivlib", "sklearn")
EXTRA = ("scikit-learn",)


class Mech:
    """``(x, rs) -> Mechanism(**kw, random_state=rs).randomise(x)`` (picklable, named)."""

    def __init__(self, name: str, kw: dict):
        self.name, self.kw = name, kw
        self.__name__ = f"{name}.randomise"

    def __call__(self, x, rs):
        import diffprivlib.mechanisms as m

        return getattr(m, self.name)(random_state=rs, **self.kw).randomise(x)


def _mech_entry(key: str, name: str, kw: dict, pair: tuple, norm: str = "l1", statement: str = "") -> None:
    def cases() -> list:
        return [
            TraceCase(
                f"{name}({', '.join(f'{k}={v}' for k, v in kw.items())}) on {pair}",
                lambda: Mech(name, kw),
                pairs=[pair],
                sensitivity=float(kw.get("sensitivity", 1)),
                norm=norm,
                relation="two values at the documented sensitivity",
                rng_type="random_state",
            )
        ]

    register_gray(
        GrayEntry(
            f"zoo.diffprivlib.trace.{key}",
            LIB,
            DIST,
            MODS,
            f"diffprivlib.mechanisms.{name}",
            statement or f"{name}.randomise adds noise of a data-independent scale to a value of sensitivity 1",
            cases,
            EXTRA,
        )
    )


_mech_entry("laplace", "Laplace", dict(epsilon=1.0, sensitivity=1.0), (0.0, 1.0))
_mech_entry(
    "laplace_truncated", "LaplaceTruncated", dict(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=1.0), (0.0, 1.0)
)
_mech_entry(
    "laplace_bounded_domain",
    "LaplaceBoundedDomain",
    dict(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=1.0),
    (0.0, 1.0),
)
_mech_entry("gaussian_analytic", "GaussianAnalytic", dict(epsilon=1.0, delta=1e-5, sensitivity=1.0), (0.0, 1.0), "l2")
_mech_entry("geometric", "Geometric", dict(epsilon=1.0, sensitivity=1), (0, 1))
_mech_entry("snapping", "Snapping", dict(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=1.0), (0.0, 1.0))


# ------------------------------------------------------------------ tools on neighbouring datasets
#: ten records in [0, 1]; neighbours replace one record (diffprivlib's bounded relation): the first, or the
#: zero for count_nonzero
DATA = [0.2, 0.4, 0.6, 0.8, 0.1, 0.3, 0.5, 0.7, 0.9, 0.0]
REPLACEMENTS = (1.0, 5.0, -5.0)


class Tool:
    """``(data, rs) -> tools.<name>(data, epsilon=1, bounds=(0, 1), random_state=rs)``."""

    def __init__(self, name: str, bounded: bool = True):
        self.name, self.bounded = name, bounded
        self.__name__ = f"tools.{name}"

    def __call__(self, data, rs):
        from diffprivlib import tools

        kw = {"bounds": (0.0, 1.0)} if self.bounded else {}
        return getattr(tools, self.name)(data, epsilon=1.0, random_state=rs, **kw)


def _tool_entry(name: str, sensitivity: float, doc: str, bounded: bool = True, index: int = 0) -> None:
    def replaced(r: float) -> list:
        out = list(DATA)
        out[index] = r
        return out

    pairs = [(list(DATA), replaced(r)) for r in REPLACEMENTS]

    def cases() -> list:
        return [
            TraceCase(
                f"tools.{name}(10 records, bounds (0, 1)), record {DATA[index]:g} replaced by 1, 5, -5",
                lambda: Tool(name, bounded),
                pairs=pairs,
                sensitivity=sensitivity,
                norm="l1",
                relation="bounded: one record replaced (n public)",
                rng_type="random_state",
                nonfinite=True,
            )
        ]

    register_gray(
        GrayEntry(
            f"zoo.diffprivlib.trace.tools.{name}",
            LIB,
            DIST,
            MODS,
            f"diffprivlib.tools.{name}",
            f"tools.{name}(array, epsilon, bounds=(0, 1)) has sensitivity {doc} under one record replaced, "
            "records outside the bounds clipped",
            cases,
            EXTRA,
        )
    )


_N = len(DATA)
_tool_entry("sum", 1.0, "upper - lower = 1")
_tool_entry("mean", 1.0 / _N, "(upper - lower)/n = 0.1")
_tool_entry("var", (1.0 / _N) ** 2 * (_N - 1), "((upper - lower)/n)^2 (n - 1) = 0.09")
_tool_entry("count_nonzero", 1.0, "1", bounded=False, index=-1)


# ------------------------------------------------------------------ models (invariance: the noise reads no data)
class Model:
    """``((X, y), rs) -> the fitted parameters of models.<name>(**kw, random_state=rs)`` as one vector."""

    def __init__(self, name: str, kw: dict, attrs: tuple[str, ...], supervised: bool = True):
        self.name, self.kw, self.attrs, self.supervised = name, kw, attrs, supervised
        self.__name__ = f"models.{name}.fit"

    def __call__(self, data, rs):
        import numpy as np
        from diffprivlib import models

        X, y = data
        m = getattr(models, self.name)(random_state=rs, **self.kw)
        m.fit(X, y) if self.supervised else m.fit(X)
        return np.concatenate([np.ravel(getattr(m, a)) for a in self.attrs])


def _datasets():
    import numpy as np

    rng = np.random.default_rng(20260101)
    X = rng.uniform(0.0, 0.7, size=(40, 2))
    y = (X[:, 0] + X[:, 1] > 0.7).astype(int)
    out = []
    for row in ([0.0, 0.0], [0.7, 0.7], [5.0, -5.0]):
        X2 = X.copy()
        X2[0] = row
        out.append(((X, y), (X2, y)))
    return out


def _model_entry(key: str, name: str, kw: dict, attrs: tuple[str, ...], supervised: bool = True) -> None:
    def cases() -> list:
        return [
            TraceCase(
                f"models.{name}({', '.join(f'{k}={v}' for k, v in kw.items())}), 40 rows, one row replaced",
                lambda: Model(name, kw, attrs, supervised),
                pairs=_datasets(),
                sensitivity=None,
                relation="bounded: one row replaced (n public)",
                rng_type="random_state",
            )
        ]

    register_gray(
        GrayEntry(
            f"zoo.diffprivlib.trace.models.{key}",
            LIB,
            DIST,
            MODS,
            f"diffprivlib.models.{name}",
            f"models.{name} with its privacy parameters given draws noise whose scale does not depend on the data",
            cases,
            EXTRA,
        )
    )


_B2 = ([0.0, 0.0], [1.0, 1.0])
_model_entry("logistic_regression", "LogisticRegression", dict(epsilon=1.0, data_norm=1.0), ("coef_", "intercept_"))
_model_entry("gaussian_nb", "GaussianNB", dict(epsilon=1.0, bounds=_B2), ("theta_", "var_"))
_model_entry(
    "linear_regression",
    "LinearRegression",
    dict(epsilon=1.0, bounds_X=_B2, bounds_y=(0, 1)),
    ("coef_", "intercept_"),
)
_model_entry("kmeans", "KMeans", dict(n_clusters=2, epsilon=1.0, bounds=_B2), ("cluster_centers_",), supervised=False)


# ------------------------------------------------------------------ calibrators, as shipped
class Scale:
    """``(eps, delta, sensitivity) -> the scale diffprivlib's mechanism ``name`` calibrates``."""

    def __init__(self, name: str, read: str, integer: bool = False):
        self.name, self.read, self.integer = name, read, integer
        self.__name__ = f"{name}._scale" if read == "_scale" else f"{name}.{read}"

    def __call__(self, eps, delta, sensitivity):
        import diffprivlib.mechanisms as m

        sens = int(sensitivity) if self.integer else sensitivity
        kw = {"epsilon": eps, "sensitivity": sens}
        if self.read == "_scale":
            return float(getattr(m, self.name)(delta=delta, **kw)._scale)
        mech = getattr(m, self.name)(**kw)
        if self.read == "variance":  # Laplace: var = 2 b^2
            return math.sqrt(mech.variance(0.0) / 2.0)
        return 1.0 / -float(mech._scale)  # Geometric: _scale = -eps/sensitivity, the log of the ratio r = e^(-1/t)


def _calibrator_entry(key: str, name: str, mechanism: str, read: str, statement: str, integer: bool = False) -> None:
    def cases() -> list:
        return [CalibratorCase(f"{name} ({read})", lambda: Scale(name, read, integer), mechanism)]

    register_gray(
        GrayEntry(
            f"zoo.diffprivlib.calibrator.{key}",
            LIB,
            DIST,
            MODS,
            f"diffprivlib.mechanisms.{name}",
            statement,
            cases,
            EXTRA,
        )
    )


_calibrator_entry(
    "gaussian",
    "Gaussian",
    "gaussian",
    "_scale",
    "Gaussian(epsilon <= 1, delta) calibrates sigma = sqrt(2 ln(1.25/delta))/epsilon to (epsilon, delta)-DP",
)
_calibrator_entry(
    "gaussian_analytic",
    "GaussianAnalytic",
    "gaussian",
    "_scale",
    "GaussianAnalytic(epsilon, delta) calibrates sigma to (epsilon, delta)-DP on the exact Gaussian curve",
)
_calibrator_entry(
    "gaussian_discrete",
    "GaussianDiscrete",
    "discrete-gaussian",
    "_scale",
    "GaussianDiscrete(epsilon, delta) calibrates sigma to (epsilon, delta)-DP on the exact discrete Gaussian curve",
    integer=True,
)
_calibrator_entry("laplace", "Laplace", "laplace", "variance", "Laplace(epsilon) has scale b = sensitivity/epsilon")
_calibrator_entry(
    "geometric",
    "Geometric",
    "discrete-laplace",
    "ratio",
    "Geometric(epsilon) is epsilon-DP for integer sensitivity",
    integer=True,
)
