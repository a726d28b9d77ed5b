"""FedSel's two-stage local update — 000 Alg. 1 (LocalUpdate, lines 16–18) and Thm 1.

Stage 1 selects one coordinate of the local vector v with an ε1 selector
(EXP, PE or PS, :mod:`estimators.fedsel_selection`) from the ranking / Top-k
status of |v| (Alg. 2–4 line 2: sort |r^t|); stage 2 perturbs the selected
value, clipped to the mean-estimation input range [−1, 1] (000 Sec. 3.3:
"all inputs for a perturbation mechanism should be clipped"), with PM at ε2.
Alg. 1 line 17 adds a momentum term from the previous round before stage 2;
as in 000 Sec. 3.2 ("we abuse v to denote them") both stages read the same
local vector v here.

Input domain: v ∈ R^d (finite). Output (index, value): ⊥ of PE is (−1, NaN).

Exact ε (see :func:`two_stage_exact_epsilon`): the output law factorises,
P(j, y | v) = P_sel(j | z(v)) · f_PM(y | clip(v_j)), and the two worst cases
are attained by one pair of vectors, v = (1, 0, …, 0) and v' = (0, 1, …, 1):
index 0 is top-ranked (rank d, Top-k) in v and bottom-ranked (rank 1,
not Top-k) in v', and PM's density ratio reaches e^{ε2} for any two distinct
inputs (it takes only two values). So the exact ε is exactly
ε_sel,exact + ε2 — equal to ε1 + ε2 for EXP and PS, larger for PE (whose
selection ε exceeds ε1). The coupling of status and value through the same
vector does not lower the worst case. :func:`two_stage_enumerated_table`
checks this by brute force over a grid of vectors for small d.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from estimators.fedsel_selection import (
    FedSelEXP,
    FedSelPE,
    FedSelPS,
    exp_enumerated_table,
    pe_enumerated_table,
    ps_enumerated_table,
    ranking_from_vector,
    topk_status,
)
from estimators.piecewise import piece_cells, piece_density, pm_exact_epsilon, pm_pieces, sample_pm
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.exact import with_precision
from privcheck.base.validation import check_eps, check_int

SELECTORS = {"exp": FedSelEXP, "pe": FedSelPE, "ps": FedSelPS}


def _check_selector(selector) -> str:
    if selector not in SELECTORS:
        raise PrivcheckUsageError(f"selector must be one of exp, pe, ps, got {selector!r}")
    return selector


def two_stage_claimed_epsilon(eps1: float, eps2: float) -> float:
    """The ε Thm 1 of 000 claims for the two-stage update: ε1 + ε2."""
    return check_eps(eps1, "eps1") + check_eps(eps2, "eps2")


@with_precision("eps1", "eps2")
def two_stage_exact_epsilon(d: int, k: int, eps1: float, eps2: float, selector: str = "pe") -> ExactEpsilon:
    """Exact ε of the two-stage update: the selector's exact ε plus PM's exact ε2 (see module docstring).

    Both suprema are attained by the same pair v = (1, 0, …, 0), v' = (0, 1, …, 1)
    at output (0, y) with y in (max(1, (C−1)/2), C] (y lies in PM's high interval
    [1, C] for t = 1 and outside [−(C−1)/2, (C−1)/2], the one for t = 0), so the sum is attained, not just an upper bound.
    """
    selector = _check_selector(selector)
    sel = SELECTORS[selector](d=d, k=k, eps=eps1)
    eps2 = check_eps(eps2, "eps2")
    s = sel.exact_epsilon()
    v = pm_exact_epsilon(eps2)
    if s.eps == 0.0:  # k = d: the selector ignores v, only the value stage leaks
        total = mpmath.mpf(v.eps_text)
    else:
        total = mpmath.mpf(s.eps_text) + mpmath.mpf(v.eps_text)
    d = sel.d
    vec = (1.0,) + (0.0,) * (d - 1)
    vec2 = (0.0,) + (1.0,) * (d - 1)
    pair = (vec, vec2) if d <= 20 else ("(1, 0, ..., 0)", "(0, 1, ..., 1)")
    h = mpmath.exp(mpmath.mpf(eps2) / 2)
    c = (h + 1) / (h - 1)
    y_lo = max(mpmath.mpf(1), (c - 1) / 2)  # above PM's high interval [−(C−1)/2, (C−1)/2] for t = 0
    return ExactEpsilon(
        eps=float(total),
        eps_text=mpmath.nstr(total, 40),
        worst_pair=pair,
        worst_output=f"(0, y) with y in ({mpmath.nstr(y_lo, 12)}, {mpmath.nstr(c, 12)}]" if s.eps else "(j, y), any j",
        method="symmetry",
        note=f"selector {selector}: exact selection ε {s.eps_text[:20]} + PM ε2 {v.eps_text[:20]}, "
        "both attained by the same vector pair",
        extra={"claimed": two_stage_claimed_epsilon(eps1, eps2), "selection_eps": s.eps, "value_eps": v.eps},
    )


def two_stage_enumerated_table(
    d: int, k: int, eps1: float, eps2: float, selector: str = "pe", values=(-1.0, -0.5, 0.0, 0.5, 1.0)
) -> dict:
    """Brute force for small d: every v in ``values``^d -> the exact law of (index, PM cell).

    Selection probabilities come from the literal enumerations of
    :mod:`estimators.fedsel_selection`; PM masses from its pieces on the cells cut
    by all boundaries. Keys of the inner mapping: (j, cell index) or "⊥".
    Feed the result to :func:`privcheck.base.exact.worst_case_ratio`.
    """
    selector = _check_selector(selector)
    d = check_int("d", d, minimum=2, maximum=4)
    k = check_int("k", k, minimum=1, maximum=d)
    eps2 = check_eps(eps2, "eps2")
    if selector == "exp":
        sel_table = exp_enumerated_table(d, eps1)
    elif selector == "pe":
        sel_table = pe_enumerated_table(d, k, eps1)
    else:
        sel_table = ps_enumerated_table(d, k, eps1)
    values = sorted({float(np.clip(x, -1.0, 1.0)) for x in values})
    pieces = {t: pm_pieces(t, eps2)[0] for t in values}
    cells = piece_cells(pieces.values())
    cell_mass = {t: [piece_density(pieces[t], y) * w for y, w in cells] for t in values}
    table = {}
    for v in itertools.product(values, repeat=d):
        key = tuple(ranking_from_vector(v)) if selector == "exp" else tuple(topk_status(v, k))
        dist = {}
        for j, pj in sel_table[key].items():
            if j == -1:
                dist["⊥"] = pj
                continue
            for i, m in enumerate(cell_mass[v[j]]):
                dist[(j, i)] = pj * m
        table[v] = dist
    return table


class FedSelTwoStage(Mechanism):
    """FedSel two-stage local update (CLI ``fedsel-two-stage``) — 000 Alg. 1 lines 16–18, Thm 1.

    Parameters: ``d`` ≥ 2, ``k`` in [1, d], ``eps1`` > 0 (selection),
    ``eps2`` > 0 (PM value perturbation), ``selector`` in {"exp", "pe", "ps"}.
    Input: v ∈ R^d (finite); the ranking/Top-k status is taken of |v| (ties
    broken by index), the selected value is clipped to [−1, 1].
    Output (n, 2) float: column 0 the index (−1 for ⊥), column 1 the value (NaN for ⊥).
    """

    name = "fedsel-two-stage"
    source = "000_55a5a0ab95d522af.txt Alg. 1, Thm 1"
    output_kind = "index_value"

    def __init__(self, d: int = 5, k: int = 2, eps1: float = 1.0, eps2: float = 1.0, selector: str = "pe"):
        self.selector = _check_selector(selector)
        self.eps1 = check_eps(eps1, "eps1")
        self.eps2 = check_eps(eps2, "eps2")
        self.sel = SELECTORS[self.selector](d=d, k=k, eps=self.eps1)
        self.d, self.k = self.sel.d, self.sel.k
        self.eps_nominal = self.eps1 + self.eps2
        self._params = {"d": self.d, "k": self.k, "eps1": self.eps1, "eps2": self.eps2, "selector": self.selector}

    def _check_v(self, x) -> np.ndarray:
        v = np.asarray(x, dtype=np.float64)
        if v.shape != (self.d,):
            raise PrivcheckUsageError(f"v must be a vector of length d={self.d}, got shape {v.shape}")
        if not np.all(np.isfinite(v)):
            raise PrivcheckUsageError("v must contain finite numbers only (no NaN/inf)")
        return v

    def sample(self, x, n, rng):
        v = self._check_v(x)
        n = check_int("n", n, minimum=0)
        z = ranking_from_vector(v) if self.selector == "exp" else topk_status(v, self.k)
        idx = self.sel.sample(z, n, rng)
        bot = idx < 0
        t = np.clip(v[np.where(bot, 0, idx)], -1.0, 1.0)
        y = sample_pm(t, self.eps2, n, rng)
        y[bot] = np.nan
        return np.column_stack((idx.astype(np.float64), y))

    def inputs(self) -> list:
        d = self.d
        return [
            (1.0,) + (0.0,) * (d - 1),
            (0.0,) + (1.0,) * (d - 1),
            (-1.0,) + (0.0,) * (d - 1),
            tuple(float(a) for a in np.linspace(-1.0, 1.0, d)),
        ]

    def exact_epsilon(self) -> ExactEpsilon:
        return two_stage_exact_epsilon(self.d, self.k, self.eps1, self.eps2, self.selector)


__all__ = [
    "two_stage_claimed_epsilon",
    "two_stage_exact_epsilon",
    "two_stage_enumerated_table",
    "FedSelTwoStage",
    "SELECTORS",
]
