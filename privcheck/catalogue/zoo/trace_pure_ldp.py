"""pure-ldp gray-box: ``zoo.pure_ldp.trace.*`` — clients traced with the global ``numpy.random`` / ``random`` coupled.

The clients draw from the global generators (``np.random.laplace``, ``random.random``), which the trace
replaces by recording generators for each call (``rng_type="global"``). Local DP: every two items are
neighbours (``inputs`` = items 1, 2, 3 of a domain of 8). Histogram encoding (``HEClient``) adds
Laplace(2/ε) noise to the one-hot vector of the item: its documented ℓ1-sensitivity is 2, read from the
outputs; the randomised-response clients (direct encoding, unary encoding, local hashing) check
invariance only (their probabilities are the item's by design, recorded as parameter differences that are
no finding; a noise scale read from the item would be).
"""

from __future__ import annotations

from privcheck.catalogue.zoo.graybox import GrayEntry, TraceCase, register_gray

LIB, DIST, MODS = "pure-ldp", "pure-ldp", ("pure_ldp", "xxhash")
D = 8
ITEMS = [1, 2, 3]


class Client:
    """``x -> <name>(epsilon=1, d=8).privatise(x)`` (the client built once per call: no state between runs)."""

    def __init__(self, name: str, kw: dict):
        self.name, self.kw = name, kw
        self.__name__ = f"{name}.privatise"

    def __call__(self, x):
        import pure_ldp.frequency_oracles as fo

        return getattr(fo, self.name)(epsilon=1.0, d=D, **self.kw).privatise(x)


def _entry(key: str, name: str, statement: str, sensitivity: float | None = None, kw: dict | None = None) -> None:
    kw = kw or {}

    def cases() -> list:
        return [
            TraceCase(
                f"{name}(epsilon=1, d={D}) on items {ITEMS}",
                lambda: Client(name, kw),
                inputs=ITEMS,
                sensitivity=sensitivity,
                norm="l1",
                relation="local: any two items",
                rng_type="global",
            )
        ]

    register_gray(
        GrayEntry(f"zoo.pure_ldp.trace.{key}", LIB, DIST, MODS, f"pure_ldp.frequency_oracles.{name}", statement, cases)
    )


_entry(
    "he", "HEClient", "HEClient adds Laplace(2/epsilon) noise to the one-hot item: l1-sensitivity 2", sensitivity=2.0
)
_entry("de", "DEClient", "DEClient (direct encoding) draws no noise scale from the item")
_entry("ue", "UEClient", "UEClient (unary encoding) draws no noise scale from the item")
_entry("lh", "LHClient", "LHClient (local hashing) draws no noise scale from the item")
