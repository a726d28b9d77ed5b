"""The PLD accountant: compose events, answer ε(δ) and δ(ε) as certified intervals.

Routes (the result's ``method`` says which one answered):
- "exact GDP": every event is a plain Gaussian — μ = √(Σ count·μ_i²), closed form (tail-stable).
- "exact profile": one event used once — its closed-form (or atom) privacy profile.
- "pld-fft": pessimistic and optimistic grid measures (accountants.pld.discretise) composed by
  FFT (accountants.pld.compose); upper end = pessimistic bound (also capped by the Chernoff
  bound from the same measures), lower end = optimistic bound. Where the FFT cannot resolve
  the requested δ (below its error floor, e.g. δ < 1e−12) the upper end comes from the
  Chernoff/RDP-type tail bound in log space and the lower end from exactly computable parts
  of the composition (the Gaussian sub-composition, each single event); ``notes`` says so.
- lower ends at any δ also from :mod:`accountants.pld.tail_lower` (top atoms of the non-Gaussian
  optimistic measures with the Gaussian part in closed form, in log space).
- "exact (optimal composition, KOV Thm 3.3)": T runs of one pure / binary-RR / (ε, δ) event —
  the upper end is the minimum of the PLD and the exact route (accountants.composition).
- compositions of atom and Laplace events only: the upper end of ε(δ) never exceeds the largest
  finite privacy loss when δ ≥ the +∞ mass; above it δ(ε) is the +∞ mass exactly.
- "rdp": the upper end is the minimum over certified routes — the RDP bound of accountants.rdp
  (integer orders, CKS 2020 conversion, rounded up) replaces the PLD upper end where it is smaller.
Every end is rounded one ulp outward after the last float operation (``_outward``).
"""

from __future__ import annotations

import math

import numpy as np

from accountants.composition import RR_MAX_LOSS, RR_MAX_STEPS, optimal_composition, rr_composition_delta
from accountants.gdp import gdp_eps, gdp_log_delta
from accountants.pld.coarsen import coarsen, measure_of
from accountants.pld.compose import Composition, compose, product_inf_mass
from accountants.pld.discretise import discretise, pessimistic
from accountants.pld.events import RELATIONS, ApproxDPEvent, PLDEvent, Profile, PureDPEvent, RandomizedResponseEvent
from accountants.pld.interval import Interval
from accountants.pld.tail_lower import eps_lower, log_delta_lower, top_measure
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_delta, check_int, check_nonnegative

__all__ = ["Interval", "PLDAccountant"]

#: two ulps of the smallest double: a relative slack says nothing for subnormal values (issue 29 §2)
_SUB = 1e-323
TILT_BELOW = 1e-8  # below this δ the FFT is redone on exponentially tilted measures
REL_WIDTH = 5e-4  # relative width of ε(δ) aimed at by the grid step (issue 33 §2: <= 0.1 %)
STEP_PER_SPREAD = 0.035  # h / σ₁ for REL_WIDTH (second-order discretisation error)
ONE_STAGE_MAX = 2**17  # the grid is at least this fine (one FFT of this size is cheap); above it: blocks
MIN_BLOCK_COUNT = 128  # an event repeated at least this often is composed in blocks of ≈ √count
COARSE_FFT = 2**14  # target window points of the block stage
COARSE_PER_SPREAD = 0.03  # coarse step / spread of the narrowest block
TILT_STEP = 0.5  # the tilted route (δ < TILT_BELOW) runs at this fraction of the grid step
_REFINE = 256  # sub-grid points per loss step when ε(δ) is located (by bisection: 8 evaluations)


class PLDAccountant:
    """Privacy-loss-distribution accountant with certified bounds.

    relation: "add_remove" (default) or "replace_one" — each event's profiles are taken under it.
    grid_step: loss discretisation step h (default: chosen for a relative width ``rel_width`` of
    ε(δ), see _choose_step; ``target_fft_size`` caps the fineness at window/size). method: "auto" (exact closed forms where they apply)
    or "pld" (always the FFT route). tail_mass: Chernoff mass allowed outside the FFT window (added to the
    upper / subtracted from the lower bound; the default 1e−15 is 1e−7 of the smallest δ the
    untilted FFT answers, TILT_BELOW, and keeps the window ~30 % narrower than 1e−30). max_fft_size: refuse larger FFTs.
    """

    def __init__(
        self,
        relation: str = "add_remove",
        *,
        grid_step: float | None = None,
        tail_mass: float = 1e-15,
        max_fft_size: int = 2**23,
        target_fft_size: int | None = None,
        method: str = "auto",
        rel_width: float = REL_WIDTH,
    ):
        if relation not in RELATIONS:
            raise PrivcheckUsageError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
        self.relation = relation
        self.grid_step = None if grid_step is None else float(check_nonnegative("grid_step", grid_step))
        if self.grid_step is not None and not (1e-8 <= self.grid_step <= 1.0):
            raise PrivcheckUsageError(f"grid_step must be in [1e-8, 1], got {grid_step!r}")
        self.tail_mass = float(tail_mass)
        self.max_fft_size = int(max_fft_size)
        self.target_fft_size = None if target_fft_size is None else int(target_fft_size)
        self.rel_width = float(rel_width)
        if not (1e-6 <= self.rel_width <= 0.5):
            raise PrivcheckUsageError(f"rel_width must be in [1e-6, 0.5], got {rel_width!r}")
        self._refine = 1.0  # factor on the chosen grid step (lowered when an answer is too wide)
        if method not in ("auto", "pld"):
            raise PrivcheckUsageError(f"method must be 'auto' or 'pld', got {method!r}")
        self.method = method  # "pld": always the FFT route (for cross-checks of the exact routes)
        self._events: list[list] = []  # [event, count]
        self._cache: dict | None = None

    # ------------------------------------------------------------------ building
    def compose(self, event: PLDEvent, count: int = 1) -> "PLDAccountant":
        """Add ``count`` ≥ 1 independent runs of ``event``; returns self (chainable)."""
        if not isinstance(event, PLDEvent):
            raise PrivcheckUsageError(
                f"compose() needs a PLD event (GaussianEvent, LaplaceEvent, ...), got {type(event).__name__}"
            )
        count = check_int("count", count, minimum=1)
        event.profiles(self.relation)  # validates relation support early
        for item in self._events:
            if item[0] == event:
                item[1] += count
                break
        else:
            self._events.append([event, count])
        self._cache = None
        return self

    @property
    def events(self) -> list[tuple[PLDEvent, int]]:
        """The composed (event, count) pairs."""
        return [(e, c) for e, c in self._events]

    def _notes(self) -> tuple:
        return tuple(sorted({e.note for e, _ in self._events if getattr(e, "note", "")}))

    def _need(self):
        if not self._events:
            raise PrivcheckUsageError("the accountant is empty: compose at least one event")

    # ------------------------------------------------------------------ exact routes
    def _gdp_mu(self) -> float | None:
        if self.method == "pld":
            return None
        mus = [e.gdp_mu() for e, _ in self._events]
        if any(m is None for m in mus):
            return None
        m = max(mus)
        return m * math.sqrt(sum(c * (mu / m) ** 2 for mu, (_, c) in zip(mus, self._events)))

    def exact_mu(self) -> float | None:
        """μ of the composition when it is exactly μ-GDP (plain Gaussian events only: μ = √(Σ count·μ_i²),
        Dong, Roth & Su 2019, Cor. 3.3), else None (also with method="pld")."""
        return self._gdp_mu()

    def _single_profiles(self) -> tuple[Profile, ...] | None:
        if self.method == "pld":
            return None
        if len(self._events) == 1 and self._events[0][1] == 1:
            rem, add = self._events[0][0].profiles(self.relation)
            return (rem,) if rem is add else (rem, add)
        return None

    # ------------------------------------------------------------------ PLD route
    def _directions(self) -> list[list[tuple[Profile, int]]]:
        rem, add, sym = [], [], True
        for e, c in self._events:
            r, a = e.profiles(self.relation)
            rem.append((r, c))
            add.append((a, c))
            sym = sym and (r is a)
        return [rem] if sym else [rem, add]

    def _choose_step(self, dirs) -> float:
        """Grid step, sized to the accuracy asked for (issue 33 §2) rather than to fill an FFT: the
        discretisation error of both measures is second order, relative ε error ≈ 0.4·(h/σ₁)² with σ₁
        the smallest per-event loss spread, so h = STEP_PER_SPREAD·σ₁ aims at REL_WIDTH (``rel_width``
        scales it; the ε queries refine h when the answer is wider). An explicit ``target_fft_size``
        keeps its old meaning (h >= window/size: coarser, faster); never more than max_fft_size/2
        points in a one-stage window."""
        if self.grid_step is not None:
            return self.grid_step
        atoms_only = all(p.atoms is not None for d in dirs for p, _ in d)
        h0 = 2e-3
        W, sig = 0.0, math.inf
        for d in dirs:
            ms = [(pessimistic(p, h0), c) for p, c in d]
            W = max(W, compose(ms, "pessimistic", self.tail_mass, 2**40, window_only=True))
            for m, c in ms:
                F = m.finite_mass
                mean = float(np.sum(m.p * m.x)) / F
                v = float(np.sum(m.p * (m.x - mean) ** 2)) / F
                sig = min(sig, math.sqrt(v))
        sig = max(sig, h0 / 8) if math.isfinite(sig) else h0
        h = min(STEP_PER_SPREAD * sig * math.sqrt(self.rel_width / REL_WIDTH) * self._refine, h0)
        # a one-stage window of ONE_STAGE_MAX points is cheap: never coarser than that
        h = min(h, W / ONE_STAGE_MAX * self._refine)
        if self.target_fft_size is not None:
            h = max(h, W / self.target_fft_size)
        h = max(h, W / (self.max_fft_size / 2), 1e-7)
        if atoms_only:
            base = _atom_base([p for d in dirs for p, _ in d])
            if base is not None:
                h = base / math.ceil(base / h)
        return h

    def _build(self, tilt: float | tuple[float, ...] = 0.0):
        """The compositions of every direction, untilted (tilt 0) or tilted by λ = ``tilt`` (one λ for all
        directions, or one per direction: their Chernoff-optimal λ differ, e.g. 7.2 and 39 for DP-SGD
        q = 1e−3, σ = 0.8, T = 1e4 at δ = 1e−10, and one shared λ left the other direction's window far
        above ε(δ): [1.93, 3.04] instead of [2.19216, 2.19218])."""
        if self._cache is None:
            dirs = self._directions()
            h = self._choose_step(dirs)
            self._cache = {"h": h, "measures": [[(discretise(p, h), c) for p, c in d] for d in dirs], "comps": {}}
        nd = len(self._cache["measures"])
        tilts = tuple(round(t, 3) for t in tilt) if isinstance(tilt, tuple) else (round(tilt, 3),) * nd
        key = tilts[0] if len(set(tilts)) == 1 else tilts
        if key not in self._cache["comps"]:
            comps = []
            for i, ms in enumerate(self._cache["measures"]):
                lam = tilts[i]
                try:
                    two = self._two_stage(ms) if lam == 0 else None
                except (OverflowError, PrivcheckUsageError):  # blocks whose losses leave the float range: one stage
                    two = None
                if two is not None:
                    comps.append(two)
                    continue
                if lam > 0:  # the tilted route resolves tiny δ: knots without the absolute floor
                    ms = self._fine_measures(i)
                pess = compose([(m[0], c) for m, c in ms], "pessimistic", self.tail_mass, self.max_fft_size, tilt=lam)
                opt = compose([(m[1], c) for m, c in ms], "optimistic", self.tail_mass, self.max_fft_size, tilt=lam)
                comps.append((pess, opt))
            self._cache["comps"][key] = comps
        return {"h": self._cache["h"], "comps": self._cache["comps"][key]}

    def _built(self) -> dict:
        """The build cache (after _build)."""
        if self._cache is None:
            self._build()
        assert self._cache is not None
        return self._cache

    def _fine_measures(self, i: int):
        """Direction i's measures rebuilt for tiny δ: without the knots' absolute floor, at a finer
        step (TILT_STEP of the untilted one; atoms keep theirs)."""
        cache = self._built()
        fine = cache.setdefault("fine", {})
        if i not in fine:
            h = cache["h"] * (1.0 if self.grid_step is not None else TILT_STEP)
            d = self._directions()[i]
            fine[i] = [
                (discretise(p, h, floor=0.0) if p.atoms is None else discretise(p, h), c)
                for (m, c), (p, _) in zip(cache["measures"][i], d)
            ]
        return fine[i]

    def _two_stage(self, ms):
        """(pessimistic, optimistic) compositions of one direction by blocks (accountants.pld.coarsen),
        or None when one FFT is small enough or no event repeats enough to form blocks."""
        h = self._cache["h"]
        if self.method == "pld" and self.grid_step is not None:
            return None
        parts_p = [(m[0], c) for m, c in ms]
        W = compose(parts_p, "pessimistic", self.tail_mass, 2**40, window_only=True)
        if W / h <= ONE_STAGE_MAX or max(c for _, c in ms) < MIN_BLOCK_COUNT:
            return None
        plan = []
        sig_block = math.inf
        for (pm, om), c in ms:
            T1 = c if c < MIN_BLOCK_COUNT else _block_size(c)
            T2, T3 = divmod(c, T1)
            F = pm.finite_mass
            mean = float(np.sum(pm.p * pm.x)) / F
            sd = math.sqrt(max(float(np.sum(pm.p * (pm.x - mean) ** 2)) / F, 0.0))
            sig_block = min(sig_block, sd * math.sqrt(T1))
            plan.append(((pm, om), T1, T2, T3))
        # the coarse step: a small final FFT, and well below the spread of every block
        H = min(max(W / COARSE_FFT, h), COARSE_PER_SPREAD * sig_block)
        factor = max(1, int(H / h))
        out = []
        for kind, j in (("pessimistic", 0), ("optimistic", 1)):
            parts = []
            for pair, T1, T2, T3 in plan:
                for size, count in ((T1, T2), (T3, 1)):
                    if size == 0 or count == 0:
                        continue
                    block = compose([(pair[j], size)], kind, self.tail_mass, self.max_fft_size, long=True)
                    parts.append((coarsen(measure_of(block, pair[j].label), factor), count))
            out.append(compose(parts, kind, self.tail_mass, self.max_fft_size))
        self._cache["factor"] = factor
        return tuple(out)

    def _tilt_for_delta(self, comps, delta: float) -> tuple[float, ...]:
        """Chernoff-optimal λ per direction for this δ (the tilt that centres the composed loss near ε(δ)): the best of
        LAMBDAS_POS, refined on 33 points between its neighbours (that grid steps by ×1.78, which moves
        the tilted mean past ε(δ): the window then missed it and the route gave up, e.g. 2 × N(1) +
        3 × Laplace(0.5) at δ = 1e−250)."""
        ld = math.log(delta)

        def score(lam, K):
            return (K + lam * np.log(lam / (lam + 1)) - np.log1p(lam) - ld) / lam

        return self._refined_tilt(comps, score)

    def _tilt_for_eps(self, comps, eps: float) -> tuple[float, ...]:
        """λ per direction minimising the Chernoff bound K(λ) − λε on δ(ε), refined as in _tilt_for_delta."""
        return self._refined_tilt(comps, lambda lam, K: K - lam * eps)

    def _refined_tilt(self, comps, score) -> tuple[float, ...]:
        """Per direction: the λ of LAMBDAS_POS minimising ``score``, refined on 33 points between its neighbours."""
        from accountants.pld.compose import LAMBDAS_POS, log_mgf

        best = []
        for (pess, _), ms in zip(comps, self._built()["measures"]):
            i = int(np.argmin(score(LAMBDAS_POS, pess.K_pos)))
            lo = LAMBDAS_POS[max(i - 1, 0)]
            hi = LAMBDAS_POS[min(i + 1, LAMBDAS_POS.size - 1)]
            lam = np.geomspace(lo, hi, 33)
            K = np.zeros(lam.shape)
            for m, c in ms:
                K = K + c * log_mgf(m[0], lam, +1)
            best.append(float(lam[int(np.argmin(score(lam, K)))]))
        return tuple(best)

    # ------------------------------------------------------------------ lower bounds from parts
    def _tops(self) -> list[tuple]:
        """Per direction: (top atoms of the non-Gaussian optimistic measures, μ of the Gaussian part)."""
        cache = self._built()
        if "tops" not in cache:
            g = [(e.gdp_mu(), c) for e, c in self._events if e.gdp_mu() is not None]
            mu = math.sqrt(sum(c * m * m for m, c in g)) if g else None
            tops = []
            for ms in cache["measures"]:
                rest = [(m[1], c) for (m, c), (e, _) in zip(ms, self._events) if e.gdp_mu() is None]
                tops.append((top_measure(rest) if rest else None, mu))
            cache["tops"] = tops
        return cache["tops"]

    def _part_delta_lower(self, eps: float) -> float:
        best = 0.0
        for top, mu in self._tops():
            best = max(best, math.exp(log_delta_lower(top, mu, eps)) - _SUB)
        for e, _ in self._events:
            r, a = e.profiles(self.relation)
            for p in {id(r): r, id(a): a}.values():
                best = max(best, float(np.exp(p.log_delta_at(np.array([eps]))[0])) * (1 - 1e-9) - _SUB)
        return best

    def _part_eps_lower(self, delta: float, hi: float) -> float:
        best = 0.0
        hi = hi if math.isfinite(hi) else 1e4
        for top, mu in self._tops():
            best = max(best, eps_lower(top, mu, delta, hi))
        for e, _ in self._events:
            r, a = e.profiles(self.relation)
            for p in {id(r): r, id(a): a}.values():
                best = max(best, _profile_eps(p, delta, lower=True))
        return best

    def _max_loss(self) -> tuple[float, float, float] | None:
        """(L, a_lo, a_up) if every finite privacy loss of the composition is <= L in every direction
        (atoms and Laplace events only): then δ(ε) = +∞ mass ∈ [a_lo, a_up] for ε >= L; else None."""
        L, a_lo, a_up = 0.0, 0.0, 0.0
        for d in self._directions():
            if not all(p.bounded for p, _ in d):
                return None
            his = []
            for p, c in d:
                err = 0.0
                if p.atoms is not None:  # losses log p − log q: a few ulps of |log p| + |log q| + |loss|
                    fin = np.isfinite(p.atoms[0])
                    lf, lp = p.atoms[0][fin], np.log(p.atoms[1][fin])
                    err = 4 * 2.0**-53 * float(np.max(np.abs(lp) + np.abs(lp - lf) + np.abs(lf), initial=0.0))
                his.append(c * (p.hi + err))
            L = max(L, math.fsum(his) * (1 + 1e-15) + 1e-300)
            parts = [(p.inf_mass, 1.0 - p.inf_mass, c) for p, c in d]
            a_up = max(a_up, product_inf_mass(parts, "pessimistic"))
            a_lo = max(a_lo, product_inf_mass(parts, "optimistic"))
        return L, a_lo, a_up

    def _exact_pure(self) -> tuple[float, int, float] | None:
        """(ε, T, δ0) if the composition is T runs of one (ε, δ0)-DP dominating pair (binary RR, pure
        ε-DP or ApproxDPEvent, ε > 0): then the exact optimal composition (KOV Thm 3.3,
        accountants.composition) applies: δ(ε') = 1 − (1 − δ0)^T (1 − δ_RR(ε'))."""
        if self.method == "pld" or len(self._events) != 1:
            return None
        e, T = self._events[0]
        d0 = e.delta if isinstance(e, ApproxDPEvent) else 0.0
        if isinstance(e, (PureDPEvent, ApproxDPEvent)) or (isinstance(e, RandomizedResponseEvent) and e.k == 2):
            if e.eps > 0 and T <= RR_MAX_STEPS and T * e.eps <= RR_MAX_LOSS:
                return e.eps, T, d0
        return None

    def _rdp_could_win(self, up: float, **query) -> bool:
        """Whether the certified RDP route (mpmath, ~0.3 s per new subsampled event) could beat the
        upper end ``up``: its float64 estimate (accountants.rdp.rdp_estimate, relative error ~1e−9)
        is below up·(1 + 1e−6). Skipping the route only ever costs tightness, never validity."""
        if self.method == "pld":
            return False
        from accountants.rdp import rdp_estimate

        est = rdp_estimate(self.events, self.relation, **query)
        return est is not None and est < up * (1 + 1e-6) + 1e-300

    # ------------------------------------------------------------------ queries
    def delta(self, eps: float) -> Interval:
        """Certified interval on δ(ε) of the composition (ε ≥ 0)."""
        self._need()
        eps = check_nonnegative("eps", eps)
        notes = self._notes()
        mu = self._gdp_mu()
        if mu is not None:
            d = math.exp(gdp_log_delta(mu, eps))
            return _outward(d * (1 - 1e-9) - _SUB, d * (1 + 1e-9) + _SUB, "exact GDP", notes, top=1.0)
        single = self._single_profiles()
        if single is not None:
            d = max(float(np.exp(p.log_delta_at(np.array([eps]))[0])) for p in single)
            ae = max(p.delta_abs_err() for p in single)
            return _outward(d * (1 - 1e-9) - ae - _SUB, d * (1 + 1e-9) + ae + _SUB, "exact profile", notes, top=1.0)
        cache = self._build()
        up = max(p.delta_bound(eps) for p, _ in cache["comps"])
        lo = max(o.delta_bound(eps) for _, o in cache["comps"])
        if up < TILT_BELOW:  # the tail asked for is below the untilted FFT's resolution: tilt
            tc = self._build(self._tilt_for_eps(cache["comps"], eps))["comps"]
            up = min(up, max(p.delta_bound(eps) for p, _ in tc))
            lo = max(lo, max(o.delta_bound(eps) for _, o in tc))
        part = self._part_delta_lower(eps) if _loose(lo, up) else 0.0
        if part > lo:
            lo = part
        cap = self._max_loss()
        if cap is not None and eps >= cap[0]:  # every finite loss <= eps: δ(ε) is the +∞ mass, exactly
            lo, up = max(lo, cap[1]), min(up, cap[2])
            return _outward(lo, up, "exact (eps above the largest finite loss)", notes, top=1.0)
        ex = self._exact_pure()
        if ex is not None:
            drr = rr_composition_delta(ex[0], ex[1], eps)
            up = min(up, -math.expm1(ex[1] * math.log1p(-ex[2]) + math.log1p(-drr)) * (1 + 1e-12) if ex[2] else drr)
        method = "pld-fft"
        from accountants.rdp import rdp_delta  # late: accountants.rdp imports accountants.pld.events

        r = rdp_delta(self.events, eps, self.relation) if self._rdp_could_win(up, eps=eps) else None
        if r is not None and r.value < up:
            up, method = r.value, f"{r.method}; lower end pld-fft"
        return _outward(lo, max(up, lo), method, notes, top=1.0)

    def epsilon(self, delta: float) -> Interval:
        """Certified interval on ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ delta} of the composition; delta ∈ (0, 1)."""
        self._need()
        delta = check_delta(delta)
        notes = list(self._notes())
        mu = self._gdp_mu()
        if mu is not None:
            e = gdp_eps(mu, delta)
            return _outward(e * (1 - 1e-9) - 1e-12, e * (1 + 1e-9) + 1e-12, "exact GDP", tuple(notes))
        single = self._single_profiles()
        if single is not None:
            lo = max(_profile_eps(p, delta, lower=True) for p in single)
            hi = max(_profile_eps(p, delta, lower=False) for p in single)
            return _outward(lo, hi, "exact profile", tuple(notes))
        cache = self._build()
        comps = cache["comps"]
        if delta < TILT_BELOW:
            comps = comps + self._build(self._tilt_for_delta(comps, delta))["comps"]
        ups, los = [], []
        tail_used = False
        for pess, opt in comps:
            u_fft = _eps_upper(pess, delta)
            u_ch = pess.chernoff_eps(delta)
            if u_ch < u_fft:
                tail_used = tail_used or not math.isfinite(u_fft)
            ups.append(min(u_fft, u_ch))
            los.append(_eps_lower(opt, delta))
        nd = len(cache["comps"])
        if len(comps) > nd:  # untilted and tilted answers are both valid: keep the better ends per direction
            ups = [min(a, b) for a, b in zip(ups[:nd], ups[nd:])]
            los = [max(a, b) for a, b in zip(los[:nd], los[nd:])]
        lo = max(los)
        up = max(ups)
        part = self._part_eps_lower(delta, up) if (_loose(lo, up) or delta < TILT_BELOW) else 0.0
        if part > lo:
            if lo == 0.0 or not math.isfinite(lo):
                notes.append(
                    "lower end from exactly computable parts of the composition (the FFT grid does not resolve this delta)"
                )
            lo = part
        if tail_used:
            notes.append(
                "upper end from the Chernoff tail bound of the pessimistic measures (below the FFT error floor)"
            )
        method = "pld-fft"
        cap = self._max_loss()
        if cap is not None and delta >= cap[2] and cap[0] < up:
            up = cap[0]
            notes.append("upper end = the largest finite privacy loss (delta at it is only the +inf mass)")
        ex = self._exact_pure()
        if ex is not None and delta > -math.expm1(ex[1] * math.log1p(-ex[2])) * (1 + 1e-9):
            e = optimal_composition(ex[0], ex[1], delta, ex[2]).eps
            if e < up:
                up, method = e, "exact (optimal composition, KOV Thm 3.3)"
        from accountants.rdp import rdp_epsilon  # late: accountants.rdp imports accountants.pld.events

        r = rdp_epsilon(self.events, delta, self.relation) if self._rdp_could_win(up, delta=delta) else None
        if r is not None and r.value < up:
            up, method = r.value, f"{r.method}; lower end pld-fft"
            notes.append(f"upper end from RDP at order {r.order} (below the PLD upper end)")
        return _outward(lo, max(up, lo), method, tuple(notes))

    def delta_bounds(self, eps) -> tuple[np.ndarray, np.ndarray]:
        """Certified (lower, upper) arrays on δ(ε) for an array of ε ≥ 0 (for curves: the untilted
        FFT bounds only — at δ below ~1e−8 they are looser than ``delta``, never wrong)."""
        self._need()
        eps = np.asarray(eps, dtype=float)
        if self._gdp_mu() is not None or self._single_profiles() is not None:
            ivs = [self.delta(float(e)) for e in eps]
            return np.array([i.lower for i in ivs]), np.array([i.upper for i in ivs])
        comps = self._build()["comps"]
        flat = eps.ravel()
        up = np.max([p.delta_bounds(flat) for p, _ in comps], axis=0).reshape(eps.shape)
        lo = np.max([o.delta_bounds(flat) for _, o in comps], axis=0).reshape(eps.shape)
        return lo, np.maximum(up, lo)

    # ------------------------------------------------------------------ trade-off curves (accountants.pld.tradeoff)
    def _curve(self, points: int):
        from accountants.pld.tradeoff import certified_curve

        self._need()
        key = (tuple((e, c) for e, c in self._events), int(points))
        hit = getattr(self, "_curve_cache", None)
        if hit is None or hit[0] != key:
            self._curve_cache = (key, certified_curve(self, points))
        return self._curve_cache[1]

    def tradeoff(self, alpha, *, points: int = 241) -> Interval:
        """Certified interval on β(α), the symmetrised trade-off curve (f-DP) of the composition.

        alpha: scalar or array in [0, 1] (vectorised: ``.lower``/``.upper`` have alpha's shape).
        points: ε-grid size of the conjugate (more = tighter). See accountants.pld.tradeoff."""
        from accountants.pld.tradeoff import check_alpha, tradeoff_interval

        check_alpha(alpha)
        return tradeoff_interval(self._curve(points), alpha)

    def gdp(self, alpha_min: float = 1e-10, *, points: int = 241):
        """μ-GDP description: ``(mu, regret)`` certified Intervals (a GDPResult; gdpnum's definition).

        alpha_min ∈ (0, 0.5): μ is the smallest with G_μ ≤ f wherever α ≥ alpha_min and β ≥ alpha_min.
        The strict μ over all α can be far larger for subsampled mechanisms (see
        accountants.pld.tradeoff.gdp_description)."""
        from accountants.pld.tradeoff import gdp_description

        return gdp_description(self._curve(points), alpha_min)

    def risk(self, fpr, *, points: int = 241) -> Interval:
        """Certified interval on the best membership-inference attack's TPR at false-positive rate
        ``fpr`` ∈ [0, 1] (scalar or array): TPR = 1 − β(fpr). Its ``upper`` is the risk bound."""
        from accountants.pld.tradeoff import check_alpha, tradeoff_interval

        check_alpha(fpr, "fpr")
        iv = tradeoff_interval(self._curve(points), fpr)
        return Interval(1.0 - iv.upper, 1.0 - iv.lower, iv.method, iv.notes)

    def advantage(self) -> Interval:
        """Certified interval on the largest attack advantage max(TPR − FPR) = δ(0) (Kulynych et al. 2024)."""
        return self.delta(0.0)

    def describe(self) -> dict:
        """Events, counts, relation, grid step (after a query)."""
        return {
            "relation": self.relation,
            "events": [(repr(e), c) for e, c in self._events],
            "grid_step": None if self._cache is None else self._cache["h"],
            "tilts": [] if self._cache is None else sorted(self._cache["comps"], key=_tilt_order),
        }


# ---------------------------------------------------------------------- helpers


def _tilt_order(key) -> tuple:
    """Sort key of the build cache's tilt keys (one λ for every direction, or a tuple of them)."""
    return key if isinstance(key, tuple) else (key,)


def _outward(lo: float, up: float, method: str, notes, top: float = math.inf) -> Interval:
    """The interval [lo, up] with both ends moved one ulp outward after the last float operation
    (lo clipped at 0, up at ``top``; a positive δ below the float range gives up = 5e−324, never 0)."""
    lo = float(lo)
    up = float(up)
    lo = max(0.0, math.nextafter(lo, -math.inf)) if lo > 0 else 0.0
    up = min(top, math.nextafter(up, math.inf))
    return Interval(lo, up, method, tuple(notes))


def _block_size(c: int) -> int:
    """Events per block for a count c: a divisor of c within a factor 2 of √c (no remainder block),
    the closest to √c; else round(√c)."""
    r = math.sqrt(c)
    best = None
    for d in range(max(1, int(r / 2)), int(2 * r) + 1):
        if c % d == 0 and (best is None or abs(math.log(d / r)) < abs(math.log(best / r))):
            best = d
    return best if best is not None else max(1, int(round(r)))


def _loose(lo: float, up: float) -> bool:
    """Whether an FFT interval is loose enough for the (slower) lower bounds from parts to be tried."""
    return not (lo > 0 and math.isfinite(up) and up - lo <= 1e-2 * up)


def _atom_base(profiles: list[Profile]) -> float | None:
    vals = np.concatenate([np.abs(p.atom_arrays()[0][np.isfinite(p.atom_arrays()[0])]) for p in profiles])
    vals = vals[vals > 1e-12]
    if vals.size == 0:
        return None
    b = float(vals.min())
    r = vals / b
    if np.all(np.abs(r - np.round(r)) <= 1e-9 * np.maximum(r, 1)):
        return b
    return None


def _profile_eps(p: Profile, delta: float, lower: bool) -> float:
    """ε(δ) of one exact profile, bracketed: the lower end has δ(ε) > delta, the upper δ(ε) <= delta
    (the profile's absolute float error, Profile.delta_abs_err, counted against the answer)."""
    ae = p.delta_abs_err()
    ld = math.log(delta + ae) if lower else (math.log(delta - ae) if delta > ae else -math.inf)

    def f(e):
        return float(p.log_delta_at(np.array([e]))[0]) - ld

    if f(0.0) <= 0:
        return 0.0
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
        if hi > 1e6:
            return math.inf if not lower else 1e6
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    # the closed forms are accurate to ~1e−12 relative in δ; widen by the implied ε slack
    if lower:
        while lo > 0 and f(lo) - 1e-9 <= 0:
            lo = max(0.0, lo - max(1e-12, 1e-9 * lo) * 4)
        return lo
    while f(hi) + 1e-9 > 0:
        hi += max(1e-12, 1e-9 * hi) * 4
    return hi


def _eps_upper(comp: Composition, delta: float) -> float:
    """Smallest ε found with comp.delta_bound(ε) <= delta (pessimistic comp): bisection over the
    window points x >= 0 (log2 N single evaluations), then over _REFINE sub-points of the last
    step; inf if even the top window point is not certified."""
    if comp.delta_bound(0.0) <= delta:
        return 0.0
    n = comp.c.size
    k0 = max(0, -comp.bot)  # first window point with x >= 0
    if k0 >= n or comp.delta_bound((comp.bot + n - 1) * comp.h) > delta:
        return math.inf
    x = (comp.bot + np.arange(k0, n)) * comp.h
    k = min(_first_index(x, lambda v: comp.delta_bound(v) <= delta), x.size - 1)  # x[k] certified
    hi = float(x[k])
    lo = max(float(x[k - 1]) if k > 0 else 0.0, 0.0)
    grid = np.linspace(lo, hi, _REFINE + 1)[1:-1]
    j = _first_index(grid, lambda v: comp.delta_bound(v) <= delta)
    return float(grid[j]) if j < grid.size else hi


def _eps_lower(comp: Composition, delta: float) -> float:
    """Largest ε found with comp.delta_bound(ε) > delta (optimistic comp: then ε(δ) > ε), 0 if none:
    bisection over the window points x >= 0, then over _REFINE sub-points of the step above."""
    if comp.tilt == 0 and comp.delta_bound(0.0) <= delta:
        return 0.0
    n = comp.c.size
    k0 = max(0, -comp.bot)
    if k0 >= n:
        return 0.0
    x = (comp.bot + np.arange(k0, n)) * comp.h
    a, b = 0, x.size
    if comp.tilt > 0:  # tilted: δ-lower is 0 far below the tilt centre, so first find its last
        # region above delta on 257 spread points, then bisect the step after it
        cand = np.unique(np.linspace(0, x.size - 1, 257).round().astype(np.int64))
        above = np.nonzero(comp.delta_bounds(x[cand]) > delta)[0]
        if not above.size:
            return 0.0
        j = int(above[-1])
        a, b = int(cand[j]) + 1, (int(cand[j + 1]) + 1 if j + 1 < cand.size else x.size)
    k = a + _first_index(x[a:b], lambda v: comp.delta_bound(v) <= delta)  # x[k − 1] (or 0): δ-lower > delta
    lo = float(x[k - 1]) if k > 0 else 0.0
    hi = float(x[k]) if k < x.size else lo + comp.h
    grid = np.linspace(lo, hi, _REFINE + 1)[1:-1][::-1]  # the last point with δ-lower > delta
    j = _first_index(grid, lambda v: comp.delta_bound(v) > delta)
    return max(float(grid[j]) if j < grid.size else lo, 0.0)


def _first_index(grid: np.ndarray, good) -> int:
    """Bisection over ``grid``: an index j with good(grid[j]) true and good(grid[j − 1]) false
    (grid.size if no evaluated point is good), in log2(size) evaluations of ``good``. Whatever
    the monotonicity of ``good``, the point returned has been evaluated good (callers rely on
    that alone for validity)."""
    a, b = -1, grid.size
    while b - a > 1:
        m = (a + b) // 2
        if good(float(grid[m])):
            b = m
        else:
            a = m
    return b
