"""Where the main job's time goes: per-check seconds of a ``privcheck verify --json`` run (not run in CI).

Usage::

    privcheck verify --jobs 2 -q --json after.json            # any whole run (its records carry seconds)
    python benchmarks/verify_costs.py after.json                # top checks, claim families, parallel use
    python benchmarks/verify_costs.py after.json --before before.json --wall 448.6 --top 15

Prints (1) the ``--top`` slowest checks with their share of the summed check time (and, with ``--before``,
the same check's seconds in that run and the ratio), (2) the claim families (first two parts of the id)
by summed seconds, (3) with ``--wall`` (the run's wall seconds), the parallel use: summed check seconds ÷
wall (2.0 is perfect on ``--jobs 2``; well below it means an idle worker at the end, which longest-first
ordering would fix), and (4) whether the verdicts of the two runs are the same check by check.

Seconds measured while the machine is shared are inflated unevenly: compare runs of the same load, or
read the shares and ratios rather than the seconds.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path


def records(path: str) -> list[dict]:
    """The verdict records of a ``verify --json`` file (a list, or a dict with ``records``)."""
    data = json.loads(Path(path).read_text())
    return data.get("records", data) if isinstance(data, dict) else data


def key(r: dict) -> tuple:
    """A check's identity in a run: (claim id, method, part)."""
    return (r["id"], r["method"], r.get("part") or "")


def families(recs: list[dict]) -> list[tuple[str, float]]:
    """Summed seconds per claim family (first two dot-separated parts of the id), largest first."""
    sums: collections.Counter = collections.Counter()
    for r in recs:
        sums[".".join(r["id"].split(".")[:2])] += r["seconds"]
    return sums.most_common()


def verdict_changes(after: list[dict], before: list[dict]) -> list[str]:
    """One line per check whose verdict differs between the runs, or that only one run has."""
    a = {key(r): r["verdict"] for r in after}
    b = {key(r): r["verdict"] for r in before}
    return [
        f"{' '.join(k).strip()}: {b.get(k, 'absent')} -> {a.get(k, 'absent')}"
        for k in sorted(a.keys() | b.keys())
        if a.get(k) != b.get(k)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("after", help="a verify --json file")
    ap.add_argument("--before", help="another verify --json file to compare with")
    ap.add_argument("--wall", type=float, help="the after run's wall seconds (for the parallel use)")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    after = records(args.after)
    before = {key(r): r for r in records(args.before)} if args.before else {}
    total = sum(r["seconds"] for r in after)
    print(f"{len(after)} checks, {total:.1f} s summed check time")
    head = "seconds  share" + ("   before  ratio" if before else "") + "  check (verdict)"
    print(head)
    for r in sorted(after, key=lambda r: -r["seconds"])[: args.top]:
        line = f"{r['seconds']:7.1f}  {r['seconds'] / total:5.1%}"
        if before:
            b = before.get(key(r))
            line += f"  {b['seconds']:7.1f}  {r['seconds'] / b['seconds']:5.2f}" if b else "        -      -"
        print(f"{line}  {' '.join(key(r)).strip()} ({r['verdict']})")
    print("\nclaim families by summed seconds:")
    for fam, s in families(after)[: args.top]:
        print(f"{s:7.1f}  {s / total:5.1%}  {fam}")
    if args.wall:
        print(f"\nparallel use: {total / args.wall:.2f} (summed check seconds / wall)")
    if before:
        changed = verdict_changes(after, list(before.values()))
        print("\nverdicts: " + ("identical check by check" if not changed else f"{len(changed)} changed"))
        for line in changed:
            print("  " + line)


if __name__ == "__main__":
    main()
