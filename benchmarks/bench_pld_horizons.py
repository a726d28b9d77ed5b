"""Benchmark (not CI): the certified PLD accountant against dp_accounting at every horizon (issue 33 §2).

DP-SGD, Poisson rate q = 1e−3, noise multiplier σ = 0.8, δ = 1e−5, T = 10², …, 10⁶ steps; dp_accounting's
PLD accountant with value_discretization_interval 1e−4 (its pessimistic estimate, no certificate).
Every measurement runs in a fresh interpreter, the two libraries interleaved per repeat (the machine
is shared: ``--repeats`` runs each, the minimum is reported, and the ratios are taken between minima
measured in the same run):

- seconds: the accounting call (building the accountant, composing, ε(δ)), imports excluded;
  ``wall`` also reports the whole process (interpreter start + imports + call);
- memory: peak traced memory (tracemalloc) of the same call in a separate interpreter, MB;
- privcheck's certified interval [lower, upper], its relative width (upper − lower)/upper, and where
  dp_accounting's value lies against it ("above": a conservative estimate; "below" would contradict
  the certificate).

Run: ``python benchmarks/bench_pld_horizons.py [--repeats 3] [--only 1e6] [--markdown]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
Q, SIGMA, DELTA, DP_H = 1e-3, 0.8, 1e-5, 1e-4
HORIZONS = [10**k for k in range(2, 7)]

_WORKER = r"""
import json, sys, time
who, T, mem = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
q, s, d, h = map(float, sys.argv[4:8])
t_imp = time.perf_counter()
if who == "ours":
    from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent
    def run():
        iv = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(s), q), T).epsilon(d)
        return iv.lower, iv.upper
else:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    def run():
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
        acc.compose(dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), T))
        e = acc.get_epsilon(d)
        return e, e
t0 = time.perf_counter()
if mem:
    import tracemalloc
    tracemalloc.start()
    lo, up = run()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(json.dumps({"mb": peak}))
else:
    lo, up = run()
    t1 = time.perf_counter()
    print(json.dumps({"s": t1 - t0, "import": t0 - t_imp, "lo": lo, "up": up}))
"""


def _run(who: str, T: int, mem: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", _WORKER, who, str(T), "1" if mem else "0", str(Q), str(SIGMA), str(DELTA), str(DP_H)],
        env=env,
        capture_output=True,
        text=True,
        cwd=str(ROOT),
    )
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise RuntimeError(f"{who} T={T} failed: {res.stderr.strip().splitlines()[-1:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def measure(T: int, repeats: int) -> dict:
    """Interleaved runs of both libraries; minima over the repeats."""
    runs: dict = {"ours": [], "dp": [], "ours_mb": [], "dp_mb": []}
    for _ in range(repeats):
        for who in ("ours", "dp"):
            runs[who].append(_run(who, T, False))
            runs[who + "_mb"].append(_run(who, T, True)["mb"])
    row = {"T": T}
    for who in ("ours", "dp"):
        row[who + "_s"] = min(r["s"] for r in runs[who])
        row[who + "_wall"] = min(r["wall"] for r in runs[who])
        row[who + "_mb"] = min(runs[who + "_mb"])
    row["lo"], row["up"] = runs["ours"][0]["lo"], runs["ours"][0]["up"]
    row["dp_eps"] = runs["dp"][0]["up"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", type=float, default=None, help="one horizon only, e.g. 1e6")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    hs = [int(args.only)] if args.only else HORIZONS
    hdr = (
        "| T | privcheck [lower, upper] | rel. width | dp_accounting ε (h=1e-4) | dp vs interval "
        "| privcheck s | dp s | dp/ours time | privcheck MB | dp MB | ours/dp memory | wall ours/dp |"
    )
    print(f"DP-SGD q={Q:g} sigma={SIGMA:g} delta={DELTA:g}; min of {args.repeats} runs per cell, interleaved")
    print(hdr if args.markdown else hdr.replace("|", " "))
    if args.markdown:
        print("|" + "---|" * 12)
    for T in hs:
        r = measure(T, args.repeats)
        width = (r["up"] - r["lo"]) / r["up"]
        inside = "inside" if r["lo"] <= r["dp_eps"] <= r["up"] else ("above" if r["dp_eps"] > r["up"] else "BELOW")
        cells = [
            f"1e{round(math.log10(T))}",
            f"[{r['lo']:.6f}, {r['up']:.6f}]",
            f"{width:.2e}",
            f"{r['dp_eps']:.6f}",
            inside,
            f"{r['ours_s']:.2f}",
            f"{r['dp_s']:.2f}",
            f"{r['dp_s'] / r['ours_s']:.2f}",
            f"{r['ours_mb']:.1f}",
            f"{r['dp_mb']:.1f}",
            f"{r['ours_mb'] / r['dp_mb']:.2f}",
            f"{r['ours_wall'] / r['dp_wall']:.2f}",
        ]
        print(("| " + " | ".join(cells) + " |") if args.markdown else "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
