"""Benchmark (not CI): the sequential policy of ``samples="auto"`` against the rounds policy, in one run.

Usage: ``python benchmarks/bench_sequential.py [--quick] [--runs 500] [--seeds 20] [--out PATH]``

Three tables (issue 33 §1), every figure measured in this run for both policies on the same seeds:

1. **Draws to refutation** of grossly broken mechanisms (true ε = 3× the claim): median / 90th percentile /
   largest draws per input at stop and the refutation count, budget 10⁶ draws per input; the ratio
   rounds / sequential of the medians.
2. **False refutations** of correct mechanisms (RR, 4-RR, Laplace on raw outputs) audited at their true ε
   (the tight case) by the sequential policy at α = 0.05 over ``--runs`` seeded runs, target 1 (no early stop at the target: every run spends its whole budget of
   20 000 draws per input, the most exposure a budget gives); the count and its Clopper–Pearson 95 % upper
   bound on the rate.
3. **Power and holds at equal budget**: refutation rates of mildly broken mechanisms (true ε = 1.05× and
   1.1× the claim; default target 0.95) with 95 % Clopper–Pearson intervals and the mean certified fraction
   ``eps_lower / eps`` of a correct one (target 1), both policies given the same draws budget.
4. **Why a sequential run of table 3 did not refute** at the largest budget: the stop reasons (a run that
   certifies the target share of the claim stops as ``holds``, as the rounds do after a round) and how many
   of those seeds the same audit with target 1 refutes.

It prints the tables and writes them to ``benchmarks/results/sequential.md`` (``--out``). Seconds are wall time
on a shared machine: read them as ratios within the run.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privcheck  # noqa: E402
from privcheck.base.stats import clopper_pearson  # noqa: E402

POLICIES = ("sequential", "rounds")
ALPHA = 0.05


def rr(eps: float) -> Callable:
    """Binary randomised response, true ε = ``eps``."""
    p = math.exp(eps) / (1.0 + math.exp(eps))

    def sampler(x, n, rng):
        return np.where(rng.random(n) < p, x, 1 - x)

    return sampler


def krr(eps: float, m: int) -> Callable:
    """k-ary randomised response on {0..m-1}, true ε = ``eps``."""
    keep = math.exp(eps) / (math.exp(eps) + m - 1)

    def sampler(x, n, rng):
        other = (x + rng.integers(1, m, n)) % m
        return np.where(rng.random(n) < keep, x, other)

    return sampler


def laplace(eps: float) -> Callable:
    """The Laplace mechanism on inputs 0 and 1 (sensitivity 1), true ε = ``eps``."""

    def sampler(x, n, rng):
        return x + rng.laplace(0.0, 1.0 / eps, n)

    return sampler


@dataclass
class Case:
    name: str
    sampler: Callable
    inputs: list
    claim: float
    true_eps: float
    view: bool | None = None  # False: raw outputs only (no float-representation view)


GROSS = [
    Case("RR, eps 0.75 claimed 0.25", rr(0.75), [0, 1], 0.25, 0.75),
    Case("RR, eps 3 claimed 1", rr(3.0), [0, 1], 1.0, 3.0),
    Case("4-RR, eps 3 claimed 1", krr(3.0, 4), [0, 1, 2, 3], 1.0, 3.0),
    Case("Laplace, eps 3 claimed 1", laplace(3.0), [0.0, 1.0], 1.0, 3.0),
    Case("Laplace (raw view), eps 3 claimed 1", laplace(3.0), [0.0, 1.0], 1.0, 3.0, view=False),
]
# Laplace as ``x + rng.laplace`` leaks through its floating-point representation (Mironov 2012): the auto view
# refutes ε = 1 for the ε = 1 sampler (bounds near 3-6), so the correct and mildly broken continuous cases are
# audited on raw outputs (view=False), where the claim is about the real-valued law
CORRECT = [
    Case("RR, eps 1 claimed 1", rr(1.0), [0, 1], 1.0, 1.0),
    Case("4-RR, eps 1 claimed 1", krr(1.0, 4), [0, 1, 2, 3], 1.0, 1.0),
    Case("Laplace (raw view), eps 1 claimed 1", laplace(1.0), [0.0, 1.0], 1.0, 1.0, view=False),
]
MILD = [
    Case("RR, eps 1.05 claimed 1", rr(1.05), [0, 1], 1.0, 1.05),
    Case("RR, eps 1.1 claimed 1", rr(1.1), [0, 1], 1.0, 1.1),
    Case("Laplace (raw view), eps 1.05 claimed 1", laplace(1.05), [0.0, 1.0], 1.0, 1.05, view=False),
    Case("Laplace (raw view), eps 1.1 claimed 1", laplace(1.1), [0.0, 1.0], 1.0, 1.1, view=False),
]


def run(case: Case, policy: str, seed: int, auto: str, confidence: float = 1 - ALPHA, record: bool = False):
    """One audit; (verdict, draws per input, eps_lower, seconds), and why it stopped when ``record``."""
    t = time.perf_counter()
    res = privcheck.audit(
        case.sampler,
        inputs=case.inputs,
        eps=case.claim,
        samples=f"auto:policy={policy},{auto}",
        seed=seed,
        confidence=confidence,
        **({} if case.view is None else {"view": case.view}),
    )
    out = (res.verdict, res.samples, res.eps_lower, time.perf_counter() - t)
    return (*out, res.details["adaptive"]["stopped"]) if record else out


def gross_table(seeds: int, emit: Callable[[str], None]) -> None:
    emit("| mechanism | policy | refuted | median draws/input | 90% | max | seconds (all runs) | rounds/seq (median) |")
    emit("|---|---|---|---|---|---|---|---|")
    for case in GROSS:
        med = {}
        for policy in POLICIES:
            out = [run(case, policy, s, "draws=1000000") for s in range(seeds)]
            n = np.array([o[1] for o in out])
            refuted = sum(o[0] == "refuted" for o in out)
            med[policy] = float(np.median(n))
            ratio = f"{med['rounds'] / med['sequential']:.0f}×" if policy == "rounds" else ""
            emit(
                f"| {case.name} | {policy} | {refuted}/{seeds} | {med[policy]:.0f} | {np.percentile(n, 90):.0f} | "
                f"{n.max()} | {sum(o[3] for o in out):.1f} | {ratio} |"
            )


def _cp(k: int, n: int) -> str:
    """``k/n`` with its two-sided 95 % Clopper–Pearson interval."""
    lo = clopper_pearson(k, n, 0.025, side="lower") if k > 0 else 0.0
    hi = clopper_pearson(k, n, 0.025, side="upper") if k < n else 1.0
    return f"{k}/{n} [{float(lo):.2f}, {float(hi):.2f}]"


def false_table(runs: int, emit: Callable[[str], None], policies=("sequential",)) -> None:
    emit(f"| mechanism | policy | runs | refuted at α = {ALPHA} | rate | CP 95% upper | seconds |")
    emit("|---|---|---|---|---|---|---|")
    for case in CORRECT:
        for policy in policies:
            t = time.perf_counter()
            k = sum(run(case, policy, s, "draws=20000,target=1")[0] == "refuted" for s in range(runs))
            hi = clopper_pearson(k, runs, 0.05, side="upper") if k < runs else 1.0
            emit(
                f"| {case.name} | {policy} | {runs} | {k} | {k / runs:.4f} | {float(hi):.4f} | "
                f"{time.perf_counter() - t:.1f} |"
            )


def power_table(seeds: int, budgets: list[int], emit: Callable[[str], None]) -> None:
    emit("| mechanism | budget draws/input | sequential | rounds | statement |")
    emit("|---|---|---|---|---|")
    for budget in budgets:
        for case in MILD:
            k = {}
            for policy in POLICIES:
                out = [run(case, policy, s, f"draws={budget}") for s in range(seeds)]
                k[policy] = sum(o[0] == "refuted" for o in out)
            emit(
                f"| {case.name} | {budget} | {_cp(k['sequential'], seeds)} | {_cp(k['rounds'], seeds)} | "
                "refuted (95% CP interval) |"
            )
        case = CORRECT[0]
        frac = {}
        for policy in POLICIES:
            out = [run(case, policy, s, f"draws={budget},target=1") for s in range(seeds)]
            frac[policy] = float(np.mean([max(o[2], 0.0) / case.claim for o in out]))
        emit(
            f"| {case.name} | {budget} | {frac['sequential']:.3f} | {frac['rounds']:.3f} | "
            "mean certified fraction (holds) |"
        )


def stops_table(seeds: int, budget: int, emit: Callable[[str], None]) -> None:
    emit("| mechanism | budget draws/input | refuted | not refuted: why it stopped | of those, refuted with target=1 |")
    emit("|---|---|---|---|---|")
    for case in MILD:
        out = [(s, run(case, "sequential", s, f"draws={budget}", record=True)) for s in range(seeds)]
        missed = [(s, o) for s, o in out if o[0] != "refuted"]
        why: dict[str, int] = {}
        for _, o in missed:
            why[o[4]] = why.get(o[4], 0) + 1
        again = sum(run(case, "sequential", s, f"draws={budget},target=1")[0] == "refuted" for s, _ in missed)
        reasons = ", ".join(f"{v} {k}" for k, v in sorted(why.items())) or "none"
        emit(f"| {case.name} | {budget} | {seeds - len(missed)}/{seeds} | {reasons} | {again}/{len(missed)} |")


class Report:
    """The results file, rewritten after every row (a timeout loses at most the row being measured)."""

    def __init__(self, path: Path | None, head: list[str]):
        self.path, self.parts = path, list(head)

    def emit(self, line: str) -> None:
        self.parts.append(line)
        print(line, flush=True)
        self.flush()

    def flush(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(exist_ok=True)
            self.path.write_text("\n".join(self.parts) + "\n")


def _sections(text: str) -> dict[int, str]:
    """The tables of an earlier results file by number (``## k.`` up to the next section or the footer)."""
    out: dict[int, str] = {}
    for chunk in text.split("\n## ")[1:]:
        body = chunk.split("\nLast run ")[0].split("\nTotal ")[0].rstrip()
        out[int(chunk.split(".", 1)[0])] = "## " + body
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few seeds and runs (a smoke run, not the figures)")
    ap.add_argument("--runs", type=int, default=500, help="runs per correct mechanism (table 2)")
    ap.add_argument("--seeds", type=int, default=20, help="seeds per cell of table 1")
    ap.add_argument("--power-seeds", type=int, default=100, help="seeds per cell of table 3")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "sequential.md"))
    ap.add_argument(
        "--keep-from",
        help="comma-separated results files whose tables not run are kept, the first that has one (default: --out); "
        "with --sections 0 this assembles tables run in separate processes",
    )
    ap.add_argument(
        "--sections",
        default="1,2,3,4",
        help="tables to run (e.g. 3); the others are kept from the existing --out file, each marked with its run",
    )
    a = ap.parse_args(argv)
    wanted = {int(x) for x in a.sections.split(",")}
    runs, seeds, pseeds = (20, 4, 4) if a.quick else (a.runs, a.seeds, a.power_seeds)
    budgets = [20_000] if a.quick else [20_000, 100_000]
    t0 = time.perf_counter()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    titles = {
        1: f"## 1. Draws to refutation, true ε = 3× the claim ({seeds} seeds, budget 10⁶ draws/input)",
        2: f"## 2. False refutations of correct mechanisms audited at their true ε ({runs} seeded runs each, "
        "budget 20 000 draws/input, target 1)",
        3: f"## 3. Power and holds at equal budget ({pseeds} seeds per cell)",
        4: f"## 4. Why sequential runs of table 3 did not refute at 10⁵ draws/input ({pseeds} seeds, default target "
        "0.95)",
    }
    tables = {
        1: lambda emit: gross_table(seeds, emit),
        2: lambda emit: false_table(runs, emit),
        3: lambda emit: power_table(pseeds, budgets, emit),
        4: lambda emit: stops_table(pseeds, budgets[-1], emit),
    }
    out = Path(a.out)
    old: dict[int, str] = {}
    for keep in reversed([Path(p) for p in a.keep_from.split(",")] if a.keep_from else [out]):
        old.update(_sections(keep.read_text()) if keep.exists() else {})
    head = [
        '# Sequential vs rounds: `samples="auto"` (generated by `benchmarks/bench_sequential.py`)',
        "",
        f"Both policies on the same seeds in one run; α = {ALPHA}; python {platform.python_version()}, "
        f"{platform.machine()}; shared 2-core machine (seconds are noisy: compare within a row).",
        "",
    ]
    rep = Report(None if a.quick else out, head)
    for k in (1, 2, 3, 4):
        if k in wanted:
            for line in (titles[k], "", f"(run {stamp})", ""):
                rep.emit(line)
            tables[k](rep.emit)
            rep.emit("")
        elif k in old:
            rep.emit(old[k])
            rep.emit("")
    if wanted & {1, 2, 3, 4}:
        rep.emit(f"Last run {time.perf_counter() - t0:.0f} s (sections {a.sections}{', quick' if a.quick else ''}).")
    else:
        rep.emit("Assembled from runs made in separate processes; each table states its run.")


if __name__ == "__main__":
    main()
