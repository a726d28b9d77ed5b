"""Scale planning for the zoo: seconds per draw measured at 10⁶ draws/input, and the projected wall time of
the whole zoo at 10⁶ draws/input on 2 cores and on 8 and 32 Dask workers.

Usage::

    python benchmarks/zoo_plan.py [--draws 1000000] [--per-group 1] [--max-seconds 240] [--seed 0]
        [--out benchmarks/results/zoo_plan.md]

Sample: for every library and every ε of the grid (:data:`privcheck.catalogue.zoo.EPS_GRID`), ``--per-group``
cases drawn at random (seeded; not chosen by speed) among that library's cases at that ε (cases of other ε,
e.g. the central claims' own parameters, form a group "other"). Each sampled case is audited once by the
zoo's own :func:`~privcheck.catalogue.zoo.audit_case`: a warm-up (200 draws/input, JIT and imports), a
2000-draw pilot (:data:`PILOT`), then ``--draws`` draws/input — or, when the pilot predicts more than ``--max-seconds``, the
largest size the cap allows (labelled with the size measured; seconds per draw is close to flat above 10⁵
draws, where the auditor's per-audit overhead is amortised). Seconds per draw = audit seconds / (draws/input
× inputs audited), in CPU seconds (process time; the audit runs on one thread, so this is what an
unloaded core takes) and in wall seconds.

Projection: every case of the zoo gets the mean CPU seconds-per-draw of the sampled cases of its own claim,
else of its library at its ε, else of its library; a claim's seconds at 10⁶ draws/input are the sum of
its cases (``run_entry`` runs the cases of a claim in order; the runner spreads claims over workers). With
W workers the wall time is at least max(longest claim, total / W)
(:func:`privcheck.catalogue.zoo.scorecard.projection`), printed for W = 2, 8, 32. The header states the load average the
figures were measured under; under load they inherit its noise (the same run's figures stay comparable,
absolute seconds are then pessimistic).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

#: draws per input of the pilot audit that predicts the measured audit's time
PILOT = 2000


def _inputs(case) -> int:
    return 2 * len(case.pairs) if case.pairs else len(case.inputs)


def _group(case, grid) -> str:
    return f"{case.eps:g}" if case.eps in grid else "other"


def measure(case, draws: int, max_seconds: float, seed: int) -> dict:
    """Audit ``case`` at ``draws`` draws/input (or what ``max_seconds`` allows after a PILOT-draw pilot)."""
    from privcheck.catalogue import zoo

    zoo.audit_case(case, 200, seed, 0.95, call_rate=False)  # warm-up: imports, numba
    t = time.perf_counter()
    pilot = zoo.audit_case(case, PILOT, seed, 0.95, call_rate=False)
    per = (time.perf_counter() - t) / (PILOT * _inputs(case))
    if pilot.get("error"):
        return {"error": pilot["error"], "n": PILOT, "sec_per_draw": per, "cpu_per_draw": None}
    n = draws if per * draws * _inputs(case) <= max_seconds else max(PILOT, int(max_seconds / (per * _inputs(case))))
    if n == PILOT:
        return {"n": n, "sec_per_draw": per, "cpu_per_draw": None, "verdict": pilot["verdict"]}
    t, c = time.perf_counter(), time.process_time()
    row = zoo.audit_case(case, n, seed + 1, 0.95, call_rate=False)
    sec, cpu = time.perf_counter() - t, time.process_time() - c
    return {
        "n": n,
        "sec_per_draw": sec / (n * _inputs(case)),
        "cpu_per_draw": cpu / (n * _inputs(case)),
        "seconds": sec,
        "verdict": row["verdict"],
        "error": row.get("error"),
    }


def main() -> None:
    from privcheck.catalogue import zoo
    from privcheck.catalogue.peers import missing
    from privcheck.catalogue.zoo.scorecard import projection

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=1_000_000, help="draws per input of the plan")
    ap.add_argument("--per-group", type=int, default=1, help="sampled cases per (library, eps)")
    ap.add_argument("--max-seconds", type=float, default=240.0, help="cap on one measured audit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="benchmarks/results/zoo_plan.md")
    a = ap.parse_args()
    t_run = time.perf_counter()
    allc = []  # (entry, index, case)
    for e in zoo.ENTRIES:
        if missing(*e.modules) is None:
            allc += [(e, i, c) for i, c in enumerate(e.cases())]
    groups: dict[tuple, list] = {}
    for item in allc:
        groups.setdefault((item[0].library, _group(item[2], zoo.EPS_GRID)), []).append(item)
    rng = np.random.default_rng(a.seed)
    sample = []
    for key in sorted(groups):
        g = [it for it in groups[key] if not it[2].outside] or groups[key]
        sample += [g[j] for j in sorted(rng.choice(len(g), size=min(a.per_group, len(g)), replace=False))]
    load, cores = os.getloadavg(), os.cpu_count() or 1
    where = (
        f"a shared {cores}-core machine under load (other jobs running): absolute seconds are pessimistic"
        if load[0] > cores
        else f"a {cores}-core machine with no other heavy jobs"
    )
    lines = [
        "# Zoo scale plan",
        "",
        f"Generated by `benchmarks/zoo_plan.py --draws {a.draws} --per-group {a.per_group} --max-seconds "
        f"{a.max_seconds:g} --seed {a.seed}`; measured on {where}.",
        "",
        f"Load average at start: {', '.join(f'{x:.1f}' for x in load)} ({cores} cores). The projection uses "
        "CPU seconds per draw (process time of the single-threaded audit: what one unloaded core would take); "
        "wall seconds per draw under this load are shown beside it.",
        "",
        "| library | claim | case | inputs | draws/input measured | CPU s/draw | wall s/draw | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    measured: dict = {}
    for e, i, c in sample:
        m = measure(c, a.draws, a.max_seconds, a.seed)
        measured[(e.claim_id, i)] = m
        cpu = m["cpu_per_draw"]
        lines.append(
            f"| {e.library} | `{e.claim_id}` | {c.label} | {_inputs(c)} | {m['n']} | "
            f"{'—' if cpu is None else format(cpu, '.3g')} | {m['sec_per_draw']:.3g} | "
            f"{m.get('verdict') or m.get('error')} |"
        )
        print(lines[-1], flush=True)

    def mean(vals):
        return sum(vals) / len(vals) if vals else None

    by_claim: dict[str, list] = {}
    by_lib_eps: dict[tuple, list] = {}
    by_lib: dict[str, list] = {}
    for (cid, i), m in measured.items():
        e = next(x for x in zoo.ENTRIES if x.claim_id == cid)
        c = next(c for (x, j, c) in allc if x is e and j == i)
        spd = m["cpu_per_draw"] if m["cpu_per_draw"] is not None else m["sec_per_draw"]
        by_claim.setdefault(cid, []).append(spd)
        by_lib_eps.setdefault((e.library, _group(c, zoo.EPS_GRID)), []).append(spd)
        by_lib.setdefault(e.library, []).append(spd)
    claim_secs: dict[str, float] = {}
    lib_secs: dict[str, float] = {}
    for e, i, c in allc:
        spd = (
            mean(by_claim.get(e.claim_id, []))
            or mean(by_lib_eps.get((e.library, _group(c, zoo.EPS_GRID)), []))
            or mean(by_lib.get(e.library, []))
        )
        s = spd * a.draws * _inputs(c)
        claim_secs[e.claim_id] = claim_secs.get(e.claim_id, 0.0) + s
        lib_secs[e.library] = lib_secs.get(e.library, 0.0) + s
    secs = list(claim_secs.values())
    longest = max(claim_secs, key=claim_secs.get)
    lines += [
        "",
        f"Projection at {a.draws:.0e} draws/input for {len(allc)} cases in {len(claim_secs)} claims: total "
        f"{sum(secs) / 3600:.1f} h of one worker; longest claim `{longest}` {claim_secs[longest] / 3600:.2f} h.",
        "",
        "| workers | wall-time lower bound max(longest, total/W) |",
        "|---|---|",
    ]
    for w in (2, 8, 32):
        lines.append(
            f"| {w}{' (this machine, 2 cores)' if w == 2 else ' (Dask)'} | {projection(secs, w) / 3600:.2f} h |"
        )
    lines += [
        "",
        "Per library (one worker): " + ", ".join(f"{k} {v / 3600:.2f} h" for k, v in sorted(lib_secs.items())) + ".",
        "",
        f"Measurement wall time {time.perf_counter() - t_run:.0f} s.",
    ]
    text = "\n".join(lines) + "\n"
    Path(a.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
