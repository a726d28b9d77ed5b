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

Run: ``python benchmarks/bench_pld_horizons.py [--repeats 3] [--only 1e6] [--markdown] [--write]``.
``--write`` writes the generated results file ``benchmarks/results/pld_horizons_33.md`` (table, load,
commit, library versions, the issue's targets checked row by row) and the generated part of
``docs/site/budgets.md`` between ``<!-- pld-horizons:start -->`` and ``<!-- pld-horizons:end -->``.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
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
RESULTS = ROOT / "benchmarks" / "results" / "pld_horizons_33.md"
PAGE = ROOT / "docs" / "site" / "budgets.md"
START, END = "<!-- pld-horizons:start -->", "<!-- pld-horizons:end -->"
#: issue 33 §2: relative width, time against dp_accounting at every T, memory against it at 1e6
MAX_WIDTH, MAX_TIME_RATIO, MAX_MEM_RATIO_1E6 = 1e-3, 1.0, 1.5

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


def _cells(r: dict) -> list[str]:
    width = (r["up"] - r["lo"]) / r["up"]
    inside = "inside" if r["lo"] <= r["dp_eps"] <= r["up"] else ("above" if r["dp_eps"] > r["up"] else "BELOW")
    return [
        f"1e{round(math.log10(r['T']))}",
        f"[{r['lo']:.6f}, {r['up']:.6f}]",
        f"{width:.2e}",
        f"{r['dp_eps']:.6f}",
        inside,
        f"{r['ours_s']:.2f}",
        f"{r['dp_s']:.2f}",
        f"{r['ours_s'] / r['dp_s']:.2f}",
        f"{r['ours_mb']:.1f}",
        f"{r['dp_mb']:.1f}",
        f"{r['ours_mb'] / r['dp_mb']:.2f}",
        f"{r['ours_wall'] / r['dp_wall']:.2f}",
    ]


HEADER = [
    "T",
    "privcheck [lower, upper]",
    "rel. width",
    "dp_accounting ε (h=1e-4)",
    "dp vs interval",
    "privcheck s",
    "dp s",
    "ours/dp time",
    "privcheck MB",
    "dp MB",
    "ours/dp memory",
    "ours/dp wall (with imports)",
]


def targets(rows: list[dict]) -> list[str]:
    """Issue 33 §2's targets checked on the measured rows (one line each: met / NOT met, with the figure)."""
    out = []
    for r in rows:
        width, tr = (r["up"] - r["lo"]) / r["up"], r["ours_s"] / r["dp_s"]
        ok = width <= MAX_WIDTH and tr <= MAX_TIME_RATIO and r["lo"] <= r["dp_eps"]
        line = f"T = 1e{round(math.log10(r['T']))}: width {width:.2e} (<= {MAX_WIDTH:g}), time {tr:.2f}x dp_accounting (<= 1)"
        if r["T"] == 10**6:
            mr = r["ours_mb"] / r["dp_mb"]
            ok = ok and mr <= MAX_MEM_RATIO_1E6
            line += f", memory {mr:.2f}x (<= {MAX_MEM_RATIO_1E6:g})"
        out.append(f"- {line}: {'met' if ok else 'NOT met'}")
    return out


def markdown(rows: list[dict], meta: dict) -> str:
    """The generated table and its provenance (the body of the results file and of the docs part)."""
    lines = [
        f"Generated by `{meta['command']}` on {meta['when']} (commit {meta['commit']}; "
        f"dp_accounting {meta['dp_version']}, Python {meta['python']}); do not edit by hand.",
        "",
        f"DP-SGD q = {Q:g}, σ = {SIGMA:g}, δ = {DELTA:g}; minimum of {meta['repeats']} runs per cell, both libraries in "
        f"fresh interpreters, interleaved. Load average before / after: {meta['load_before']} / {meta['load_after']} "
        "(2 cores shared by several sessions: absolute seconds are noisy, compare the ratios within a row).",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(_cells(r)) + " |" for r in rows]
    lines += ["", "Issue 33 §2 targets on these rows:", ""] + targets(rows)
    return "\n".join(lines)


def _meta(repeats: int, argv: list[str]) -> dict:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return {
        "command": "python benchmarks/bench_pld_horizons.py " + " ".join(argv),
        "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit.stdout.strip() or "?",
        "dp_version": importlib.metadata.version("dp-accounting"),
        "python": sys.version.split()[0],
        "repeats": repeats,
        "load_before": "%.1f" % os.getloadavg()[0],
    }


def write(rows: list[dict], meta: dict) -> None:
    """Write the results file and the docs page's generated part."""
    body = markdown(rows, meta)
    RESULTS.write_text(
        "# PLD accountant at every horizon against dp_accounting (issue 33 §2)\n\n" + body + "\n", encoding="utf-8"
    )
    text = PAGE.read_text(encoding="utf-8")
    if START in text and END in text:
        head, rest = text.split(START, 1)
        PAGE.write_text(f"{head}{START}\n{body}\n{END}{rest.split(END, 1)[1]}", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)} and the part of {PAGE.relative_to(ROOT)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", type=float, default=None, help="one horizon only, e.g. 1e6")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--write", action="store_true", help="write the results file and the docs part (all horizons)")
    args = ap.parse_args()
    if args.write and args.only:
        ap.error("--write needs every horizon (no --only)")
    meta = _meta(args.repeats, sys.argv[1:])
    hs = [int(args.only)] if args.only else HORIZONS
    print(f"DP-SGD q={Q:g} sigma={SIGMA:g} delta={DELTA:g}; min of {args.repeats} runs per cell, interleaved")
    print("| " + " | ".join(HEADER) + " |" if args.markdown else "  ".join(HEADER))
    if args.markdown:
        print("|" + "---|" * len(HEADER))
    rows = []
    for T in hs:
        rows.append(measure(T, args.repeats))
        cells = _cells(rows[-1])
        print(("| " + " | ".join(cells) + " |") if args.markdown else "  ".join(cells), flush=True)
    meta["load_after"] = "%.1f" % os.getloadavg()[0]
    print("\n".join(targets(rows)))
    if args.write:
        write(rows, meta)


if __name__ == "__main__":
    main()
