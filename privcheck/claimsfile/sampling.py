"""``[[sampling]]`` entries: test a pipeline's batches against the sampling scheme its accountant assumes
(:func:`privcheck.check_sampling`)."""

from __future__ import annotations

import os
from typing import Any

from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.entry import COMMON, Entry, TableKind, seed_of

KEYS: dict[str, Any] = {
    **COMMON,
    "file": str,
    "batches": str,
    "n": int,
    "q": float,
    "scheme": str,
    "epochs": int,
}


def _sampling(ent: Entry, paper: str) -> tuple[Claim, Check]:
    from privcheck.sampling import SCHEMES, check_sampling

    v = ent.values
    if ("file" in v) == ("batches" in v):
        ent.fail("give exactly one of file = 'saved batches' or batches = 'pkg.module:function'")
    scheme = v.get("scheme", "poisson")
    if scheme not in SCHEMES:
        ent.fail(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    n, q, epochs = v["n"], v.get("q"), v.get("epochs", 1)
    if n < 1:
        ent.fail(f"n must be >= 1, got {n}")
    if q is not None and not 0 < q <= 1:
        ent.fail(f"q must be in (0, 1], got {q}")
    if epochs < 1:
        ent.fail(f"epochs must be >= 1, got {epochs}")
    base = os.path.dirname(os.path.abspath(ent.path))
    if "file" in v:
        from privcheck.sampling.files import load_batches

        path = v["file"] if os.path.isabs(v["file"]) else os.path.join(base, v["file"])
        ent.guard(lambda: load_batches(path))  # a missing or malformed file is refused at load
        source, get = v["file"], lambda: load_batches(path)
    else:
        from privcheck.auditor.user_code import load_reference

        fn = ent.guard(lambda: load_reference(v["batches"], base, what="batches"))
        source, get = v["batches"], fn

    def run(ctx: RunContext) -> Outcome:
        res = check_sampling(
            get(), n=n, q=q, scheme=scheme, confidence=ctx.confidence, seed=seed_of(ctx), epochs=epochs
        )
        d = res.to_dict()
        d["source"] = source
        return Outcome(
            res.verdict,
            claimed={"scheme": scheme, "q": q},
            measured={"observed": res.observed, "q_observed": d["q_observed"]},
            details=d,
        )

    stmt = f"{source} samples by {scheme}" + (f" at q = {q:g}" if q is not None else "") + f" over n = {n} records"
    return ent.claim(paper, "privacy", "exact", stmt), Check(ent.id, "exact", run, expect=ent.expect)


KIND = TableKind("sampling", KEYS, ("id", "n"), _sampling)
