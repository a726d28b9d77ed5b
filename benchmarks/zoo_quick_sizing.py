"""The smallest fixed size at which each float-representation and Bloom-filter finding of the zoo still shows
(issue 32 §3: ``--quick`` zoo runs are sized so those findings show). Not run in CI.

Usage::

    python benchmarks/zoo_quick_sizing.py [--sizes 500,1000,2000,5000,10000,20000,50000] [--seed 0]
        [--out benchmarks/results/zoo_quick_sizing.json]
    python benchmarks/zoo_quick_sizing.py --render      # the table from the kept JSON only

The findings are read from the zoo scorecard page (``docs/site/scorecard.md``, generated from the full run by
``benchmarks/zoo_scorecard.py``): every refuted case whose event lives in the float-representation view
(exponent, low mantissa byte, trailing zeros) or in the Bloom filter's bit × category conjunctions. Their claims
are run whole (every case, the Bonferroni share and the per-case seeds of a real run) with
``privcheck verify CLAIM --seed S --samples N`` for each ``N`` of the ladder — ``--samples 10000`` is the audit
``--quick`` makes (:data:`privcheck.catalogue.zoo.engine.QUICK_SAMPLES`). A finding "shows" at ``N`` when its
case is refuted there. The table gives, per finding, the certified ε at each size (— when not refuted) and the
smallest size from which it is refuted at every larger size of the ladder; one seed, so a size is the one at
which this seed's audit refutes, not a power guarantee. The rows are kept in ``--out``, from which the
Markdown (``render``) is generated into the ``zoo-quick-sizing`` part of ``docs/site/zoo.md`` by
``python docs/check_pages.py --update``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCORECARD = ROOT / "docs" / "site" / "scorecard.md"
OUT = ROOT / "benchmarks" / "results" / "zoo_quick_sizing.json"
SIZES = (500, 1000, 2000, 5000, 10_000, 20_000, 50_000)
_LINE = re.compile(r"^- `(zoo\.[\w.]+)` (.*?) \((?:[^()]|\([^()]*\))*\): claimed .*\[(.*)\]\. Reproduce:")


def kind_of(view: str) -> str | None:
    """The finding family of an auto-view label: float representation, Bloom filter, or None."""
    if "float representation" in view:
        return "float representation"
    if "bit × category" in view:
        return "Bloom filter bits"
    return None


def findings(page: Path = SCORECARD) -> list[dict]:
    """The (claim, case, family) of every float-representation / Bloom-filter finding on the scorecard page."""
    out = []
    for line in page.read_text(encoding="utf-8").splitlines():
        m = _LINE.match(line)
        if m and (kind := kind_of(m.group(3))):
            out.append({"claim": m.group(1), "case": m.group(2).strip(), "kind": kind})
    return out


def measure(items: list[dict], sizes, seed: int, out: Path | None = None) -> dict:
    """Run the findings' claims at every size (ascending); per finding the verdict and certified ε at each size.
    ``out``: the JSON rewritten after every size."""
    from privcheck.runner import verify

    claims = sorted({f["claim"] for f in items})
    runs = []
    rows = {(f["claim"], f["case"]): dict(f, by_size={}) for f in items}
    for n in sizes:
        t0 = time.perf_counter()
        records = verify(claims, seed=seed, samples=n, jobs=1)
        wall = time.perf_counter() - t0
        versions: dict[str, str] = {}
        for r in records:
            versions.update({k: v for k, v in (r.details.get("versions") or {}).items() if v})
            for c in r.details.get("cases") or []:
                row = rows.get((r.id, str(c.get("case"))))
                if row is not None:
                    row["by_size"][str(n)] = {"verdict": c.get("verdict"), "eps_lower": c.get("eps_lower")}
        runs.append({"samples": n, "wall_seconds": round(wall, 1), "versions": versions})
        print(f"--samples {n}: {len(records)} claims in {wall:.0f} s", flush=True)
        if out is not None:  # kept after every size: a ladder stopped early keeps what it measured
            done = [m for m in sizes if m <= n]
            data = {"seed": seed, "sizes": done, "runs": runs, "rows": list(rows.values())}
            out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return {"seed": seed, "sizes": list(sizes), "runs": runs, "rows": list(rows.values())}


def smallest(row: dict, sizes) -> int | None:
    """The smallest size from which the finding is refuted at every larger size of the ladder (None: never)."""
    best = None
    for n in reversed(sizes):
        if (row["by_size"].get(str(n)) or {}).get("verdict") != "refuted":
            break
        best = n
    return best


def _size(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def render(data: dict) -> str:
    """The sizing table and its summary line as Markdown."""
    from privcheck.catalogue.zoo.engine import QUICK_SAMPLES

    sizes = data["sizes"]
    runs = {r["samples"]: r for r in data["runs"]}
    versions = ", ".join(
        f"{k} {v}" for k, v in sorted({k: v for r in data["runs"] for k, v in r["versions"].items()}.items())
    )
    head = "| claim | case | finding | " + " | ".join(_size(n) for n in sizes) + " | smallest |"
    out = [
        "Generated by `benchmarks/zoo_quick_sizing.py` from `benchmarks/results/zoo_quick_sizing.json`; do not edit "
        "by hand.",
        "",
        f"Each claim run whole with `privcheck verify CLAIM --seed {data['seed']} --samples N` (draws per input; "
        f"`--quick` is `--samples {QUICK_SAMPLES}`); a cell is the certified ε lower bound when the finding's case "
        f"is refuted at that size, — when it is not. Versions: {versions}. Wall seconds of all "
        f"{len({r['claim'] for r in data['rows']})} claims per size (one worker, shared machine): "
        + ", ".join(f"{_size(n)} {runs[n]['wall_seconds']:.0f} s" for n in sizes if n in runs)
        + ".",
        "",
        head,
        "|" + "---|" * (len(sizes) + 4),
    ]
    found_quick = 0
    for row in data["rows"]:
        cells = []
        for n in sizes:
            c = row["by_size"].get(str(n)) or {}
            cells.append(f"{c['eps_lower']:.3g}" if c.get("verdict") == "refuted" and c.get("eps_lower") else "—")
        s = smallest(row, sizes)
        found_quick += s is not None and s <= QUICK_SAMPLES
        out.append(
            f"| `{row['claim']}` | {row['case']} | {row['kind']} | "
            + " | ".join(cells)
            + f" | {_size(s) if s else 'not found'} |"
        )
    n_rows = len(data["rows"])
    missing = [r for r in data["rows"] if smallest(r, sizes) is None]
    by_kind = {}
    for r in data["rows"]:
        k = by_kind.setdefault(r["kind"], [0, 0, 0])
        s = smallest(r, sizes)
        k[0] += 1
        k[1] += s is not None and s <= QUICK_SAMPLES
        k[2] = max(k[2], s or 0)
    out += [
        "",
        f"{found_quick} of {n_rows} findings show at the `--quick` size ({QUICK_SAMPLES} draws per input) "
        f"(refuted there and at every larger size measured); {len(missing)} are not refuted at any size measured "
        f"(up to {max(sizes)}; the full run found them with more draws). By family: "
        + "; ".join(
            f"{k}: {v[1]} of {v[0]}" + (f", all from {v[2]}" if v[1] == v[0] else "") for k, v in by_kind.items()
        )
        + ".",
    ]
    if data.get("note"):
        out += ["", f"Note: {data['note']}."]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--render", action="store_true", help="print the table from --out without running")
    a = ap.parse_args()
    if not a.render:
        data = measure(findings(), sorted(int(s) for s in a.sizes.split(",")), a.seed, Path(a.out))
        Path(a.out).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(render(json.loads(Path(a.out).read_text(encoding="utf-8"))))


if __name__ == "__main__":
    main()
