"""Adaptive power at small ε: ``samples="auto"`` on the built-in mechanisms (not run in CI).

Usage: ``python benchmarks/bench_adaptive.py [--eps 0.25] [--draws 1e7] [--seconds S] [--seed 0] [--only de-2,pm]``

For each mechanism it prints the true ε (the mechanism's exact ε where it has
one, else its nominal ε, labelled), the certified lower bound and its fraction
of the true ε, the rounds (draws per input each), the total draws per input,
why the rounds stopped, the wall time, and the one-line budget message when the
budget could not reach the target.
"""

from __future__ import annotations

import argparse
import time

import privcheck
from privcheck.auditor.adaptive import Auto

MECHANISMS = {
    "de-2": ("de", {"m": 2}),
    "de-10": ("de", {"m": 10}),
    "de-100": ("de", {"m": 100}),
    "duchi": ("duchi", {}),
    "pm": ("pm", {}),
    "hm": ("hm", {}),
    "laplace": ("laplace", {}),
    "fedsel-exp": ("fedsel-exp", {"d": 5, "k": 1}),
}


def run(label: str, eps: float, auto: Auto, seed: int) -> dict:
    """One adaptive audit of ``MECHANISMS[label]`` at ``eps``; returns the row printed by :func:`main`."""
    name, params = MECHANISMS[label]
    mech = privcheck.mechanism(name, eps=eps, **params)
    t0 = time.perf_counter()
    res = privcheck.audit(mech, samples=auto, seed=seed)
    secs = time.perf_counter() - t0
    rec = res.details["adaptive"]
    true = res.eps_exact if res.eps_exact is not None else res.eps_claimed
    return {
        "mechanism": label,
        "true": true,
        "true_is_exact": res.eps_exact is not None,
        "eps_lower": res.eps_lower,
        "fraction_of_true": max(res.eps_lower, 0.0) / true,
        "rounds": [r["samples"] for r in rec["rounds"]],
        "draws_per_input": res.samples,
        "stopped": rec["stopped"],
        "seconds": secs,
        "verdict": res.verdict,
        "message": rec["message"],
    }


def main(argv=None) -> None:
    """Print one line per mechanism (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps", type=float, default=0.25)
    ap.add_argument("--draws", type=float, default=1e7)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--target", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", type=str, default=None)
    args = ap.parse_args(argv)
    auto = Auto(target=args.target, max_draws=int(args.draws), max_seconds=args.seconds)
    labels = args.only.split(",") if args.only else list(MECHANISMS)
    print(
        f"eps {args.eps:g}, target {args.target:g}, budget {int(args.draws)} draws/input"
        + (f", {args.seconds:g} s" if args.seconds else "")
    )
    for label in labels:
        row = run(label, args.eps, auto, args.seed)
        kind = "exact" if row["true_is_exact"] else "nominal"
        print(
            f"{label:11s} true {row['true']:.4f} ({kind})  lower {row['eps_lower']:.4f}  "
            f"= {row['fraction_of_true']:.3f} of true  rounds {'+'.join(map(str, row['rounds']))}  "
            f"{row['stopped']}  {row['seconds']:.1f} s  {row['verdict']}"
        )
        if row["message"]:
            print(f"{'':11s} {row['message']}")


if __name__ == "__main__":
    main()
