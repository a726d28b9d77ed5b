"""multi-freq-ldpy gray-box: ``zoo.multi_freq_ldpy.trace.*`` — clients traced with the global ``numpy.random`` coupled.

The clients are functions ``X_Client(x, k, epsilon)`` drawing from ``numpy.random``; several are compiled by
numba, whose random state neither numpy's seeding nor the trace's recording generators reach: the trace
says so in one line (two runs on the same item with the same stream differ) and the case is
``inconclusive``, never a false alarm. Local DP: items 0, 1, 2 of a domain of 8. ``HE_Client`` (histogram
encoding) documents Laplace(2/ε) noise on the one-hot vector, ℓ1-sensitivity 2.
"""

from __future__ import annotations

from privcheck.catalogue.zoo.graybox import GrayEntry, TraceCase, register_gray

LIB, DIST, MODS = "multi-freq-ldpy", "multi-freq-ldpy", ("multi_freq_ldpy", "xxhash", "numba")
K = 8
ITEMS = [0, 1, 2]
PFO = "pure_frequency_oracles"


class Call:
    """``x -> multi_freq_ldpy.<module>.<name>(x, k=8, epsilon=1, **kw)``."""

    def __init__(self, module: str, name: str, kw: dict):
        self.module, self.name, self.kw = module, name, kw
        self.__name__ = name

    def __call__(self, x):
        import importlib

        fn = getattr(importlib.import_module(f"multi_freq_ldpy.{self.module}"), self.name)
        return fn(x, K, 1.0, **self.kw)


def _entry(key: str, module: str, name: str, statement: str, sensitivity: float | None = None, kw=None) -> None:
    kw = kw or {}

    def cases() -> list:
        return [
            TraceCase(
                f"{name}(x, k={K}, epsilon=1) on items {ITEMS}",
                lambda: Call(module, name, kw),
                inputs=ITEMS,
                sensitivity=sensitivity,
                norm="l1",
                relation="local: any two items",
                rng_type="global",
            )
        ]

    register_gray(
        GrayEntry(
            f"zoo.multi_freq_ldpy.trace.{key}", LIB, DIST, MODS, f"multi_freq_ldpy.{module}.{name}", statement, cases
        )
    )


_entry(
    "he", f"{PFO}.HE", "HE_Client", "HE_Client adds Laplace(2/epsilon) noise to the one-hot item: l1-sensitivity 2", 2.0
)
_entry("grr", f"{PFO}.GRR", "GRR_Client", "GRR_Client draws no noise scale from the item")
_entry("oue", f"{PFO}.UE", "UE_Client", "UE_Client (OUE) draws no noise scale from the item", kw={"optimal": True})
_entry("olh", f"{PFO}.LH", "LH_Client", "LH_Client (OLH) draws no noise scale from the item", kw={"optimal": True})
