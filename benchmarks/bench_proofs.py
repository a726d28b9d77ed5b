"""Formula claims before/after the interval proofs and the shrinking counterexample search, in one run (not in CI).

Usage: ``python benchmarks/bench_proofs.py [--before REV] [--only examples|catalogue] [--markdown]``

``--before`` (default: the commit before the routes were added) loads that revision's ``proofs/formula.py``
from git as a second module and runs every claim with it too, interleaved with the current engine on the
same (possibly loaded) machine: the catalogue's symbolic checks (``proofs/*.py``) and the claims of
``examples/formula_claims.py`` and ``examples/formula_inequalities.py``. Printed per claim: the verdict and
seconds before and after, the route that decided it now, and ``*`` where the verdict changed; then the
counterexample or proof of every changed verdict, and the totals (the seconds ratio is within the run, so
it is meaningful on a loaded machine; the absolute seconds are not).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from privcheck.claims import RunContext

ROOT = Path(__file__).resolve().parents[1]
#: the last commit before proofs/interval, proofs/counterexample and proofs/routes
BASE_REV = "74552ab"
EXAMPLES = ("examples/formula_claims.py", "examples/formula_inequalities.py")


def _load_before(rev: str):
    """proofs/formula.py at ``rev`` as a module (None when git cannot show it)."""
    try:
        text = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:proofs/formula.py"], capture_output=True, check=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp(prefix="bench-proofs-")) / "formula_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("proofs_formula_before", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["proofs_formula_before"] = mod  # dataclasses look their module up while it executes
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def _engine(mod):
    """Make ``import proofs.formula`` (inside the checks and claims files) return ``mod``."""
    import proofs
    import proofs.formula as current

    saved = sys.modules["proofs.formula"]
    sys.modules["proofs.formula"] = mod
    proofs.formula = mod  # type: ignore[attr-defined]
    try:
        yield
    finally:
        sys.modules["proofs.formula"] = saved
        proofs.formula = current  # type: ignore[attr-defined]


def _checks(which: str) -> list[tuple[str, object]]:
    """(label, check) for the catalogue's symbolic checks or the example files' claims (current engine)."""
    out = []
    if which in ("all", "catalogue"):
        from privcheck.runner import load_catalogue

        reg = load_catalogue()
        out += [(cid, c) for cid in sorted(reg.checks) for c in reg.checks[cid] if c.method == "symbolic"]
    if which in ("all", "examples"):
        from privcheck.pytest_plugin import load_claims_file

        for f in EXAMPLES:
            reg = load_claims_file(ROOT / f)
            out += [(cid, c) for cid in reg.checks for c in reg.checks[cid]]
    return out


def _run(check) -> tuple[str, float, dict]:
    t0 = time.perf_counter()
    try:
        out = check.fn(RunContext())
        verdict, details = out.verdict, out.details or {}
    except Exception as exc:  # a check failing is a row of the table, not the end of the benchmark
        verdict, details = "error", {"reason": f"{type(exc).__name__}: {exc}"}
    return verdict, time.perf_counter() - t0, details


_BEFORE_CHECKS: dict = {}


def _example_check(mod, label: str):
    """The check of example claim ``label`` built by the engine ``mod`` (the files are executed once with it).

    Arguments the old ``formula_claim`` does not know (``plan``, ``tolerance``) are dropped; a claim it cannot
    parse is missing (row ``n/a``), as are the claims after it in that file.
    """
    import inspect
    import runpy

    from privcheck.claims import Registry

    if not _BEFORE_CHECKS:
        known = set(inspect.signature(mod.formula_claim).parameters)
        original = mod.formula_claim

        def formula_claim(*a, **kw):
            return original(*a, **{k: v for k, v in kw.items() if k in known})

        mod.formula_claim = formula_claim
        for f in EXAMPLES:
            reg = Registry()
            with mod.collecting(reg):
                try:
                    runpy.run_path(str(ROOT / f), run_name="bench_example")
                except Exception as exc:  # the old engine rejects a claim: the rest of the file is not loaded
                    print(f"# before: {f}: {type(exc).__name__}: {_short(str(exc), 120)}", file=sys.stderr)
            _BEFORE_CHECKS.update({cid: checks[0] for cid, checks in reg.checks.items()})
        mod.formula_claim = original
    return _BEFORE_CHECKS.get(label)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=BASE_REV, help="git revision of the engine to compare with")
    ap.add_argument("--only", choices=("all", "examples", "catalogue"), default="all")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = ap.parse_args()
    before = _load_before(args.before)
    rows = []
    catalogue_ids = set()
    if args.only in ("all", "catalogue"):
        catalogue_ids = {cid for cid, _ in _checks("catalogue")}
    for label, chk in _checks(args.only):
        after_v, after_s, after_d = _run(chk)
        before_v, before_s = "n/a", float("nan")
        if before is not None:
            with _engine(before):
                old = chk if label in catalogue_ids else _example_check(before, label)
                if old is not None:
                    before_v, before_s, _ = _run(old)
        rows.append((label, before_v, before_s, after_v, after_s, after_d))
    _print(rows, args.markdown, args.before if before is not None else None)


def _short(text: str, n: int = 110) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _print(rows, markdown: bool, rev: str | None) -> None:
    head = ("claim", "before", "s", "after (route)", "s", "")
    fmt = "| {} | {} | {} | {} | {} | {} |" if markdown else "{:46s} {:13s} {:>6s}  {:34s} {:>6s} {}"
    print(fmt.format(*head))
    if markdown:
        print("|---|---|---:|---|---:|---|")
    changed = []
    for label, bv, bs, av, as_, d in rows:
        route = d.get("route") or ("symbolic" if av == "holds" and "parts" in d else "")
        mark = "*" if bv not in (av, "n/a") else ""
        print(fmt.format(label, bv, f"{bs:.2f}", f"{av} ({route})" if route else av, f"{as_:.2f}", mark))
        if mark:
            changed.append((label, bv, av, d))
    tb = sum(r[2] for r in rows if r[2] == r[2])
    ta = sum(r[4] for r in rows)
    print(f"\n{len(rows)} claims; before ({rev or 'not available'}): {tb:.1f} s, after: {ta:.1f} s", end="")
    print(f" (ratio {ta / tb:.2f})" if tb > 0 else "")
    print(f"{len(changed)} verdicts changed:")
    for label, bv, av, d in changed:
        print(f"  {label}: {bv} -> {av}: {_short(d.get('reason', ''), 300)}")


if __name__ == "__main__":
    main()
