"""The 20-seed false-refutation run of the zoo: is any correct mechanism refuted more often than the stated α?

Usage::

    python benchmarks/zoo_false_refutation.py [--seeds 20] [--samples 2000] [--confirm-samples 20000]
        [--jobs 2] [--claims 'zoo.pure_ldp.*' ...] [--out benchmarks/results/zoo_false_refutation.md]

Every case of every selected ``zoo.*`` claim is audited (:func:`privcheck.catalogue.zoo.audit_case`, the
zoo's own audit) ``--seeds`` times at a fixed modest size (``--samples`` draws per input; the validity of a
refutation does not depend on n, only its power does), each seed from its own SeedSequence
``derive(seed, "false-refutation", claim, case, s)``, at the confidence :func:`run_entry` gives the case
(``1 − α/len(cases)``: the claim's Bonferroni share of α = 1 − ``--confidence``). Under a correct mechanism
each audit refutes with probability ≤ α_case, so the refutation count is stochastically below
Binomial(seeds, α_case); the case is flagged a **validity failure** when ``P(Bin(seeds, α_case) ≥ count)``
< 0.001 (:data:`FLAG_P`) — unless the case is *known broken*:

- its true-ε calculator (the library's documented probabilities) exceeds the claimed ε, or
- a held-out **confirmation** audit refutes it: one more audit at a fresh seed stream
  (``derive(seed, "confirm", claim, case)``, disjoint from the 20 seeds) at ``--confirm-samples`` draws per
  input, run only for cases refuted at least once. Its refutation is a certified bound on draws no seed of
  the 20 used, valid at its own α_case, so a correct case is wrongly excluded with probability ≤ α_case.

Cases run in parallel, one task per case, on the project's process backend
(:func:`privcheck.base.scheduler.get_backend` with ``processes=True``); each audit runs under the zoo's per-case
timeout. Finished cases are appended to a JSONL file as they arrive (``--resume`` skips them), and the
Markdown table (per case: refutations/seeds, α_case, binomial tail, known-broken reason, flag) is written
from it, so a run stopped early still renders what it finished (the header says which claims were run).
"""

from __future__ import annotations

import argparse
import fnmatch
import itertools
import json
import math
import multiprocessing as mp
import time
from collections import Counter
from pathlib import Path

from privcheck.catalogue.zoo.scorecard import false_refutation_summary

#: a case is a validity failure when its refutation count has binomial tail probability below this
FLAG_P = 0.001


def _seed_int(ss) -> int:
    return int(ss.generate_state(1)[0]) % (2**31)


def run_case(item: tuple) -> dict:
    """Worker: the ``seeds`` audits of one case (and its confirmation audit), as one JSON-ready row."""
    from scipy.stats import binom

    from privcheck.base.seeding import derive
    from privcheck.catalogue import zoo

    claim_id, idx, seeds, n, n_confirm, base, confidence = item
    entry = next(e for e in zoo.ENTRIES if e.claim_id == claim_id)
    cases = entry.cases()
    case = cases[idx]
    alpha_case = (1.0 - confidence) / max(1, len(cases))
    conf = 1.0 - alpha_case
    run = zoo.audit_case if mp.current_process().daemon else zoo._timed_case
    if run is zoo._timed_case:
        zoo._warm_up([case])  # numba clients: compile once here, not in every audit's forked child
    t0 = time.perf_counter()
    counts: dict[str, int] = {}
    best, best_seed = None, None
    for s in range(seeds):
        seed = _seed_int(derive(base, "false-refutation", claim_id, idx, s))
        r = run(case, n, seed, conf, False)
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        if r.get("eps_lower") is not None and (best is None or r["eps_lower"] > best):
            best, best_seed = r["eps_lower"], seed
    row = {
        "claim": claim_id,
        "case": case.label,
        "index": idx,
        "eps_claimed": case.eps,
        "delta": case.delta,
        "seeds": seeds,
        "samples": n,
        "alpha_case": alpha_case,
        "counts": counts,
        "refuted": counts.get("refuted", 0),
        "max_eps_lower": best,
        "max_seed": best_seed,
    }
    if case.true_eps is not None:
        try:
            row["eps_true"] = float(case.true_eps())
        except Exception as exc:  # noqa: BLE001 - a failing calculator is reported, not fatal
            row["eps_true"], row["calculator_error"] = None, zoo._one_line(exc)
    k = row["refuted"]
    row["tail_p"] = float(binom.sf(k - 1, seeds, alpha_case)) if k > 0 else 1.0
    known = None
    et = row.get("eps_true")
    if et is not None and et > case.eps * (1 + 1e-9) + 1e-12:
        known = f"calculator: true eps {et:.4g} > claimed {case.eps:g}"
    elif k > 0:
        seed = _seed_int(derive(base, "confirm", claim_id, idx))
        c = run(case, n_confirm, seed, conf, False)
        row["confirm"] = {"samples": n_confirm, "seed": seed, "verdict": c["verdict"], "eps_lower": c.get("eps_lower")}
        if c["verdict"] == "refuted":
            known = f"held-out confirmation: eps >= {c['eps_lower']:.4g} at n={n_confirm}, seed {seed}"
    row["known_broken"] = known
    row["validity_failure"] = known is None and row["tail_p"] < FLAG_P
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _num(v, fmt=".3g") -> str:
    if v is None:
        return "—"
    return "∞" if isinstance(v, float) and math.isinf(v) else format(v, fmt)


def _commit() -> str | None:
    """The checkout's ``git describe --always --dirty`` (None outside a git checkout)."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def render(rows: list[dict], meta: dict) -> str:
    """The Markdown report: header (settings, coverage, wall time), summary, one table row per case."""
    rows = sorted(rows, key=lambda r: (r["claim"], r["index"]))
    summ = false_refutation_summary(rows)
    out = [
        "# Zoo false-refutation run",
        "",
        f"Generated by `benchmarks/zoo_false_refutation.py {meta.get('argv', '')}`; do not edit by hand.",
        "",
        f"{summ['claims']} claims, {len(rows)} cases, {meta['seeds']} seeds each at {meta['samples']} draws/input "
        f"(confirmation audits at {meta['confirm']} draws/input); family confidence {meta['confidence']} per claim "
        f"(α_case = α / cases of the claim, as `run_entry`); wall {_num(meta.get('wall'), '.0f')} s on {meta['jobs']} "
        f"worker processes on a 2-core machine (sum of case seconds {sum(r['seconds'] for r in rows):.0f} s).",
        "",
        "Code: "
        + "; ".join(
            f"{c or 'commit not recorded'} ({n} cases)"
            for c, n in sorted(Counter(r.get("commit") for r in rows).items(), key=lambda kv: str(kv[0]))
        )
        + ".",
        "",
        f"Selected claims: `{' '.join(meta['patterns'])}`; cases finished: {len(rows)} of {meta.get('total', '?')} "
        "(per library: "
        + ", ".join(
            f"{lib} {sum(r['claim'].split('.')[1] == lib for r in rows)}/{n}"
            for lib, n in sorted(meta.get("per_library", {}).items())
        )
        + ").",
        "",
        f"Refutations of cases not known broken: {summ['refuted']} in {summ['audits']} audits (expected at most "
        f"{summ['expected_at_most']:.2f} if every one of them is correct); known broken: {summ['known_broken']} "
        f"cases; **validity failures (binomial tail < {FLAG_P:g}): {len(summ['validity_failures'])}**"
        + (": " + ", ".join(summ["validity_failures"]) if summ["validity_failures"] else "")
        + ".",
        "",
        "| claim | case | claimed | true | refuted | α_case | P(Bin ≥ refuted) | other verdicts | max eps_lower | known broken | flag | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        other = ", ".join(f"{k} {v}" for k, v in sorted(r["counts"].items()) if k != "refuted")
        out.append(
            "| "
            + " | ".join(
                [
                    f"`{r['claim']}`",
                    r["case"].replace("|", "/"),
                    _num(r["eps_claimed"]),
                    _num(r.get("eps_true")),
                    f"{r['refuted']}/{r['seeds']}",
                    _num(r["alpha_case"], ".2g"),
                    _num(r["tail_p"], ".2g"),
                    other,
                    _num(r["max_eps_lower"]),
                    (r["known_broken"] or "").replace("|", "/"),
                    "**VALIDITY FAILURE**" if r["validity_failure"] else "",
                    _num(r["seconds"], ".0f"),
                ]
            )
            + " |"
        )
    return "\n".join(out) + "\n"


def main() -> None:
    from privcheck.base.scheduler import get_backend
    from privcheck.catalogue import zoo
    from privcheck.catalogue.peers import missing

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--samples", type=int, default=2000, help="draws per input of each audit")
    ap.add_argument("--confirm-samples", type=int, default=20000)
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--claims", nargs="*", default=["zoo.*"], help="fnmatch patterns of claim ids")
    ap.add_argument("--out", default="benchmarks/results/zoo_false_refutation.md")
    ap.add_argument("--jsonl", default=None, help="rows as they finish (default: OUT with .jsonl)")
    ap.add_argument("--resume", action="store_true", help="skip the cases already in the JSONL file")
    ap.add_argument("--render-only", action="store_true", help="write the Markdown from the JSONL and stop")
    ap.add_argument("--wall", type=float, default=None, help="with --render-only: the measured wall seconds to print")
    a = ap.parse_args()
    import sys

    out = Path(a.out)
    jsonl = Path(a.jsonl or out.with_suffix(".jsonl"))
    entries = [e for e in zoo.ENTRIES if any(fnmatch.fnmatch(e.claim_id, p) for p in a.claims)]
    items = []
    for e in entries:
        if missing(*e.modules) is not None:
            print(f"{e.claim_id}: {e.dist} not installed, skipped")
            continue
        items += [
            (e.claim_id, i, a.seeds, a.samples, a.confirm_samples, a.seed, a.confidence) for i in range(len(e.cases()))
        ]
    by_lib: dict[str, list] = {}
    for it in items:  # round-robin over libraries: a run stopped early still covers every library
        by_lib.setdefault(it[0].split(".")[1], []).append(it)
    items = [it for group in itertools.zip_longest(*by_lib.values()) for it in group if it is not None]
    meta = {
        "per_library": {lib: len(g) for lib, g in by_lib.items()},
        "wall": a.wall,
        "seeds": a.seeds,
        "samples": a.samples,
        "confirm": a.confirm_samples,
        "confidence": a.confidence,
        "jobs": a.jobs,
        "patterns": a.claims,
        "total": len(items),
        "argv": " ".join(sys.argv[1:]),
    }
    done = (
        [json.loads(x) for x in jsonl.read_text().splitlines() if x.strip()]
        if jsonl.exists() and (a.resume or a.render_only)
        else []
    )
    if not a.render_only:
        have = {(r["claim"], r["index"]) for r in done}
        todo = [it for it in items if (it[0], it[1]) not in have]
        if not a.resume:
            jsonl.write_text("")
        t0 = time.perf_counter()

        commit = _commit()

        def record(row: dict) -> None:
            row["commit"] = commit  # which code ran the case: a resumed file may mix runs
            with jsonl.open("a") as f:
                f.write(json.dumps(row) + "\n")
            done.append(row)
            flag = " VALIDITY FAILURE" if row["validity_failure"] else ""
            print(
                f"[{len(done)}/{len(items)} {time.perf_counter() - t0:.0f}s] {row['claim']} {row['case']}: "
                f"refuted {row['refuted']}/{row['seeds']} p={row['tail_p']:.2g} {row['known_broken'] or ''}{flag}",
                flush=True,
            )

        with get_backend(a.jobs, processes=True) as backend:
            backend.map(run_case, todo, progress=record)
        meta["wall"] = time.perf_counter() - t0
    out.write_text(render(done, meta))
    print(f"wrote {out} ({len(done)} cases)")


if __name__ == "__main__":
    main()
