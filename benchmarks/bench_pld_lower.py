"""Benchmark (not CI): the LOWER end of the certified PLD accountant's ε(δ) across per-step losses and horizons.

A regression after the block ("evolving discretisation") route made the lower end very loose for large per-step
losses (Laplace b = 0.5 × 1000, δ = 1e−5: [1.999979, 1301.181] where the baseline gave [1292.732, 1301.174]):
the optimistic measure of one Laplace event lost the atom at its lowest loss −1/b (P-mass e^{−1/b}/2), and a
T-fold composition multiplied every composed mass by (1 − that)^T. This sweep shows the extent, and the fix:

- Laplace b ∈ {0.05, 0.1, 0.2, 0.5, 1, 2} × T ∈ {1, 10, 100, 1000};
- Gaussian σ ∈ {0.3, 0.5, 1} × T ∈ {10, 1000} through the FFT route (``method="pld"``);
- Poisson-subsampled Gaussian q = 1e−3, σ = 0.8 at T = 1e2..1e5;
- each at δ ∈ {1e−5, 1e−10}.

Reference column: for the Gaussian the exact ε(δ) of μ-GDP with μ = √T/σ (the composition is exactly Gaussian);
for Laplace T = 1 the exact profile; for Laplace T > 1 the exact ε(δ) of T-fold pure ε₀-DP (ε₀ = 1/b, KOV
Thm 3.3: the binomial of ±ε₀ losses) — an UPPER bound on Laplace's ε(δ) (the pure-DP pair dominates Laplace),
so there it checks the lower end only (lower <= reference). ``lower/ref`` and ``contains`` use the exact
references where they are exact. Every interval must satisfy lower <= upper; RuntimeWarnings raised during a query
are counted (none is expected).

Run: ``python benchmarks/bench_pld_lower.py [--before /work/wt/baseline] [--write] [--quick]``; each tree (this one
and ``--before``'s, with its own ``.venv`` if it has one) answers every query in one fresh interpreter. ``--write``
writes ``benchmarks/results/pld_lower.md`` (generated; do not edit by hand).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "pld_lower.md"
DELTAS = (1e-5, 1e-10)


def cases(quick: bool = False) -> list[dict]:
    """The sweep: dicts with kind (laplace | gaussian | dpsgd), parameters, T and δ."""
    out: list[dict] = []
    lap_b = (0.5, 0.1) if quick else (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
    lap_T = (10, 1000) if quick else (1, 10, 100, 1000)
    for d in DELTAS:
        out += [{"kind": "laplace", "b": b, "T": T, "delta": d} for b in lap_b for T in lap_T]
        out += [{"kind": "gaussian", "sigma": s, "T": T, "delta": d} for s in (0.3, 0.5, 1.0) for T in (10, 1000)]
        sg_T = (100, 10_000) if quick else (100, 1000, 10_000, 100_000)
        out += [{"kind": "dpsgd", "q": 1e-3, "sigma": 0.8, "T": T, "delta": d} for T in sg_T]
    return out


def label(c: dict) -> str:
    """A short name of a case."""
    if c["kind"] == "laplace":
        return f"Laplace b={c['b']:g} ×{c['T']}"
    if c["kind"] == "gaussian":
        return f"Gaussian σ={c['sigma']:g} ×{c['T']} (pld)"
    return f"DP-SGD q={c['q']:g} σ={c['sigma']:g} ×{c['T']:.0e}"


_WORKER = r"""
import json, sys, time, warnings
from accountants.pld import GaussianEvent, LaplaceEvent, PLDAccountant, PoissonSampledEvent
for line in sys.stdin:
    c = json.loads(line)
    if c["kind"] == "laplace":
        acc = PLDAccountant().compose(LaplaceEvent(b=c["b"]), c["T"])
    elif c["kind"] == "gaussian":
        acc = PLDAccountant(method="pld").compose(GaussianEvent(c["sigma"]), c["T"])
    else:
        acc = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(c["sigma"]), c["q"]), c["T"])
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            iv = acc.epsilon(c["delta"])
            res = {"lo": iv.lower, "up": iv.upper, "method": iv.method}
        except Exception as e:  # reported as a failed cell
            res = {"error": f"{type(e).__name__}: {e}"}
    res["s"] = time.perf_counter() - t
    res["warnings"] = sorted({f"{x.category.__name__}: {x.message}" for x in w})
    print(json.dumps(res), flush=True)
"""


def run_tree(tree: Path, cs: list[dict]) -> list[dict]:
    """Every case answered by the code of ``tree`` (its .venv python if present), one interpreter."""
    py = tree / ".venv" / "bin" / "python"
    exe = str(py) if py.exists() else sys.executable
    env = dict(os.environ, PYTHONPATH=str(tree))
    res = subprocess.run(
        [exe, "-c", _WORKER],
        input="".join(json.dumps(c) + "\n" for c in cs),
        capture_output=True,
        text=True,
        cwd=str(tree),
        env=env,
    )
    rows = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    if len(rows) != len(cs):
        raise RuntimeError(f"{tree}: {len(rows)} of {len(cs)} answers; {res.stderr.strip().splitlines()[-3:]}")
    return rows


def reference(c: dict) -> tuple[float, str]:
    """(value, kind): kind "exact" (the exact ε(δ), up to 1e−9 relative) or "upper" (an upper bound)."""
    from accountants.composition import optimal_composition
    from accountants.gdp import gdp_eps
    from accountants.pld import LaplaceEvent, PLDAccountant

    if c["kind"] == "gaussian":
        return gdp_eps(math.sqrt(c["T"]) / c["sigma"], c["delta"]), "exact"
    if c["kind"] == "laplace":
        if c["T"] == 1:
            iv = PLDAccountant().compose(LaplaceEvent(b=c["b"])).epsilon(c["delta"])
            return 0.5 * (iv.lower + iv.upper), "exact"
        return optimal_composition(1.0 / c["b"], c["T"], c["delta"]).eps, "upper"
    return math.nan, "none"


def _fmt_iv(r: dict) -> str:
    return f"ERROR {r['error'][:60]}" if "error" in r else f"[{r['lo']:.6g}, {r['up']:.6g}]"


def _width(r: dict) -> str:
    if "error" in r or not r["up"] > 0 or not math.isfinite(r["up"]):
        return "—"
    return f"{(r['up'] - r['lo']) / r['up']:.2e}"


def check(c: dict, r: dict, ref: tuple[float, str]) -> str:
    """'ok' or what is wrong (an interval not containing an exact reference, lower above an upper one)."""
    if "error" in r:
        return "error"
    v, kind = ref
    bad = []
    if r["lo"] > r["up"]:
        bad.append("lower > upper")
    if kind == "exact" and not (r["lo"] <= v * (1 + 1e-9) and v * (1 - 1e-9) <= r["up"]):
        bad.append("EXCLUDES exact")
    if kind == "upper" and r["lo"] > v * (1 + 1e-9):
        bad.append("lower ABOVE upper reference")
    if r["warnings"]:
        bad.append(f"{len(r['warnings'])} warning(s)")
    return "; ".join(bad) or "ok"


def table(cs: list[dict], after: list[dict], before: list[dict] | None) -> list[str]:
    """Markdown rows: case, δ, reference, after (and before) intervals, widths, lower/ref, seconds, checks."""
    head = ["case", "δ", "reference", "after [lower, upper]", "after rel. width", "after lower/ref", "after s"]
    if before is not None:
        head += ["before [lower, upper]", "before rel. width", "before lower/ref", "before s"]
    head += ["check (after)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, c in enumerate(cs):
        ref = reference(c)
        refc = "—" if ref[1] == "none" else f"{ref[0]:.6g} ({ref[1]})"

        def ratio(r: dict) -> str:
            return "—" if "error" in r or ref[1] == "none" or ref[0] <= 0 else f"{r['lo'] / ref[0]:.6f}"

        cells = [label(c), f"{c['delta']:g}", refc, _fmt_iv(after[i]), _width(after[i])]
        cells += [ratio(after[i]), f"{after[i]['s']:.2f}"]
        if before is not None:
            cells += [_fmt_iv(before[i]), _width(before[i]), ratio(before[i]), f"{before[i]['s']:.2f}"]
        cells.append(check(c, after[i], ref))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, default=None, help="a worktree to compare with (its own .venv if any)")
    ap.add_argument("--write", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    ap.add_argument("--quick", action="store_true", help="a small subset of the sweep")
    args = ap.parse_args()
    cs = cases(args.quick)
    load0 = os.getloadavg()[0]
    after = run_tree(ROOT, cs)
    before = run_tree(args.before.resolve(), cs) if args.before is not None else None
    load1 = os.getloadavg()[0]
    lines = table(cs, after, before)
    bad = [ln for ln in lines[2:] if not ln.rstrip(" |").endswith("ok")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    bcommit = ""
    if args.before is not None:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=args.before)
        bcommit = f"; before = commit {r.stdout.strip() or '?'}"
    argv = " ".join(a if not a.startswith("/") else Path(a).name for a in sys.argv[1:])
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        f"Generated by `python benchmarks/bench_pld_lower.py {argv}` on {when} (after = commit "
        f"{commit.stdout.strip() or '?'}{bcommit}); do not edit by hand.",
        "",
        "References: Gaussian — exact (μ-GDP, μ = √T/σ); Laplace ×1 — exact profile; Laplace ×T>1 — the exact "
        "ε(δ) of T-fold pure 1/b-DP (KOV), an upper bound on Laplace's (checks lower <= it). "
        f"Seconds: one ε(δ) query after building the accountant (load average {load0:.1f} / {load1:.1f}, 2 shared "
        "cores: noisy).",
        "",
        *lines,
        "",
        f"Checks failed: {len(bad)} of {len(cs)} rows.",
    ]
    print("\n".join(body))
    if args.write:
        RESULTS.write_text("# Lower end of the certified PLD ε(δ)\n\n" + "\n".join(body) + "\n", encoding="utf-8")
        print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
