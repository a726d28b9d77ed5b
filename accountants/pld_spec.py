"""``KIND:NAME=VALUE,...[xCOUNT]`` event specs of the PLD accountant (the CLI's ``--event`` and
``--accountant``, the claims files' ``[[accountant]] query = "pld"``): parsing, with one-line errors
naming what is wrong and what is allowed, and the composed :class:`PLDAccountant`."""

from __future__ import annotations

import math

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["PLD_KINDS", "PLD_SPEC_HELP", "parse_pld_event", "pld_accountant"]

PLD_KINDS = {
    "gaussian": ({"sigma"}, {"sensitivity"}),
    "laplace": (set(), {"b", "eps", "sensitivity"}),
    "rr": ({"eps"}, {"k"}),
    "pure": ({"eps"}, set()),
    "discrete-laplace": ({"a"}, {"sensitivity"}),
    "subsampled-gaussian": ({"q", "sigma"}, {"sensitivity"}),
    "subsampled-laplace": ({"q"}, {"b", "eps", "sensitivity"}),
    "subsampled-rr": ({"q", "eps"}, {"k"}),
    "approx": ({"eps", "delta"}, set()),
}
#: parameters that must be whole numbers (per kind)
PLD_INTS = {"rr": {"k"}, "subsampled-rr": {"k"}, "discrete-laplace": {"sensitivity"}}
PLD_SPEC_HELP = (
    "KIND:NAME=VALUE,...[xCOUNT], KIND one of "
    + ", ".join(PLD_KINDS)
    + " (e.g. subsampled-gaussian:q=0.01,sigma=1.1x10000, approx:eps=1,delta=1e-6x10)"
)


def _pld_count(spec: str, text: str) -> int:
    """The count after 'x' in an --event spec: a whole number >= 1, also in exponent form (1e6)."""
    from decimal import Decimal, InvalidOperation

    try:
        d = Decimal(text.replace("_", ""))
    except InvalidOperation:
        d = None
    if d is None or not d.is_finite() or d != d.to_integral_value() or d < 1:
        raise PrivcheckUsageError(
            f"--event {spec!r}: the count after 'x' must be a whole number >= 1 (e.g. x1000 or x1e6), got {text!r}"
        )
    if d > 10**18:
        raise PrivcheckUsageError(f"--event {spec!r}: the count after 'x' must be <= 1e18, got {text!r}")
    return int(d)


def parse_pld_event(spec: str):
    """Parse one ``--event`` spec into (event, count, description dict); bad specs raise
    PrivcheckUsageError naming what is wrong and what is allowed."""
    import re

    from accountants.pld import (
        ApproxDPEvent,
        DiscreteLaplaceEvent,
        GaussianEvent,
        LaplaceEvent,
        PLDEvent,
        PoissonSampledEvent,
        PureDPEvent,
        RandomizedResponseEvent,
    )

    kind, sep, rest = spec.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in PLD_KINDS:
        raise PrivcheckUsageError(f"--event {spec!r}: expected {PLD_SPEC_HELP}")
    m = re.fullmatch(r"(?P<params>.*?)(?:x(?P<count>[0-9_.eE+-]+))?", rest.strip())
    assert m is not None  # (the pattern matches every string)
    count = _pld_count(spec, m.group("count")) if m.group("count") else 1
    params: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in m.group("params").split(","))):
        name, eq, val = item.partition("=")
        name = name.strip().lower()
        if not eq:
            raise PrivcheckUsageError(f"--event {spec!r}: parameter {item!r} is not NAME=VALUE")
        try:
            v = float(val)
        except ValueError:
            raise PrivcheckUsageError(f"--event {spec!r}: {name} must be a number, got {val!r}") from None
        if not math.isfinite(v):
            raise PrivcheckUsageError(f"--event {spec!r}: {name} must be finite, got {val!r}")
        if name in params:
            raise PrivcheckUsageError(f"--event {spec!r}: {name} is given twice; give each parameter once")
        if name in PLD_INTS.get(kind, ()) and not v.is_integer():
            raise PrivcheckUsageError(f"--event {spec!r}: {name} must be a whole number, got {val.strip()!r}")
        params[name] = v
    required, optional = PLD_KINDS[kind]
    unknown = set(params) - required - optional
    missing = required - set(params)
    if unknown or missing:
        allowed = ", ".join(sorted(required)) + (" (optional " + ", ".join(sorted(optional)) + ")" if optional else "")
        what = f"unknown {', '.join(sorted(unknown))}" if unknown else f"missing {', '.join(sorted(missing))}"
        raise PrivcheckUsageError(f"--event {spec!r}: {what}; {kind} takes {allowed}")
    p = dict(params)

    def lap(d):
        if ("b" in d) == ("eps" in d):
            raise PrivcheckUsageError(f"--event {spec!r}: laplace takes exactly one of b= or eps=")
        return LaplaceEvent(b=d.get("b"), eps=d.get("eps"), sensitivity=d.get("sensitivity", 1.0))

    ev: PLDEvent
    if kind == "gaussian":
        ev = GaussianEvent(p["sigma"], p.get("sensitivity", 1.0))
    elif kind == "laplace":
        ev = lap(p)
    elif kind == "rr":
        ev = RandomizedResponseEvent(p["eps"], int(p.get("k", 2)))
    elif kind == "pure":
        ev = PureDPEvent(p["eps"])
    elif kind == "discrete-laplace":
        ev = DiscreteLaplaceEvent(p["a"], int(p.get("sensitivity", 1)))
    elif kind == "subsampled-gaussian":
        ev = PoissonSampledEvent(GaussianEvent(p["sigma"], p.get("sensitivity", 1.0)), p["q"])
    elif kind == "approx":
        ev = ApproxDPEvent(p["eps"], p["delta"])
    elif kind == "subsampled-laplace":
        ev = PoissonSampledEvent(lap({k: v for k, v in p.items() if k != "q"}), p["q"])
    else:
        ev = PoissonSampledEvent(RandomizedResponseEvent(p["eps"], int(p.get("k", 2))), p["q"])
    return ev, count, {"kind": kind, "params": params, "count": count}


def pld_accountant(specs, relation: str = "add_remove", *, grid_step: float | None = None, option: str = "--event"):
    """A ``PLDAccountant`` composed from ``KIND:NAME=VALUE,...[xCOUNT]`` specs (:func:`parse_pld_event`), and the
    specs' description dicts; errors name ``option`` (``--event`` or ``--accountant``)."""
    from accountants.pld import PLDAccountant

    acc = PLDAccountant(relation, grid_step=grid_step)
    described = []
    for spec in specs:
        try:
            ev, count, d = parse_pld_event(spec)
        except PrivcheckUsageError as exc:
            raise PrivcheckUsageError(str(exc).replace("--event", option, 1)) from None
        acc.compose(ev, count)
        described.append(d)
    return acc, described
