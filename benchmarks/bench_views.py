"""Certified fraction of ε on LH-family and sketch layouts, before and after the support views (issue 20 §2).

Usage: ``python benchmarks/bench_views.py [--samples 100000] [--before ../privcheck-before] [--zoo]``

Audits the small re-implementations of pure-ldp's FastLH, SketchResponse and CMS/HCMS/PCS layouts and
multi-freq-ldpy's SMP_LH (``tests/lh_layouts.py``; true ε = 1 each) at claimed ε = 1 with the
automatic views, each in a fresh process; with ``--before PATH`` the same audit also runs with that
checkout first on PYTHONPATH, interleaved, so both columns come from one run on the same (loaded) machine.
``--zoo`` adds the libraries' own clients (``zoo.pure_ldp.*`` samplers; skipped when not installed).
Prints eps_lower / claimed for each, the event, and the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYOUTS = {  # name -> (sampler expression, inputs)
    "FastLH-like": ("T.fastlh", [1, 2]),
    "SketchResponse-like": ("T.sketch_response", [1, 2]),
    "CMS-like": ("T.cms", [1, 2]),
    "HCMS-like": ("T.hcms", [1, 2]),
    "SMP_LH-like": ("T.smp_lh", [(0, 1), (1, 0)]),
}
ZOO = {
    "pure-ldp FastLH": ("Z._sampler('FastLHClient', epsilon=1.0, d=8, k=64)", [1, 2]),
    "pure-ldp SketchResponse": (
        "privcheck.per_sample(Z.ServerClient('SketchResponseClient', dict(epsilon=1.0, m=16, "
        "lh_k=64), functools.partial(Z.sketch_hashes, 4, 16)), seed_global=True, "
        "takes_rng=False)",
        [1, 2],
    ),
    "pure-ldp CMS": (
        "privcheck.per_sample(Z.ServerClient('CMSClient', dict(epsilon=1.0, m=16), "
        "functools.partial(Z.sketch_hashes, 4, 16)), seed_global=True, takes_rng=False)",
        [1, 2],
    ),
}
_SCRIPT = """
import functools, json, sys, time
import privcheck
import lh_layouts as T
from privcheck.catalogue.zoo import pure_ldp as Z
if __name__ == "__main__":
    s = {expr}
    t = time.perf_counter()
    r = privcheck.audit(s, inputs={inputs!r}, eps=1.0, samples={n}, seed=11)
    print(json.dumps(dict(eps_lower=r.eps_lower, event=r.event, view=r.details.get("auto_view"),
                          seconds=time.perf_counter() - t)))
"""


def run(tree: str, expr: str, inputs, n: int) -> dict:
    """One audit in a fresh process with ``tree`` first on PYTHONPATH (the samplers come from this tree)."""
    code = _SCRIPT.format(expr=expr, inputs=inputs, n=n)
    env = {**os.environ, "PYTHONPATH": tree + os.pathsep + os.path.join(_ROOT, "tests")}
    path = os.path.join(_ROOT, "benchmarks", ".bench_views_run.py")
    with open(path, "w") as f:
        f.write(code)
    try:
        p = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if p.returncode:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--before", default=None, help="an older checkout to compare with (run interleaved)")
    ap.add_argument("--zoo", action="store_true", help="also the installed libraries' own clients")
    a = ap.parse_args()
    cases = dict(LAYOUTS, **(ZOO if a.zoo else {}))
    print(f"claimed eps 1 (true eps 1), {a.samples} draws per input, seed 11; certified fraction = eps_lower / 1")
    for name, (expr, inputs) in cases.items():
        cols = []
        for label, tree in ([("today", a.before)] if a.before else []) + [("new", _ROOT)]:
            r = run(tree, expr, inputs, a.samples)
            if "error" in r:
                cols.append(f"{label}: error {r['error']}")
            else:
                cols.append(f"{label}: {max(0.0, r['eps_lower']):.3f} ({r['seconds']:.0f} s) {r['event'] or ''}"[:150])
        print(f"{name}\n    " + "\n    ".join(cols), flush=True)


if __name__ == "__main__":
    main()
