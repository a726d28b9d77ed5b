"""``[[calibrator]]`` entries: a noise calibrator against the exact curve of its mechanism (:func:`privcheck.audit_calibrator`)."""

from __future__ import annotations

import os
from typing import Any

from privcheck.claims import Check, Claim, Outcome, RunContext
from privcheck.claimsfile.entry import COMMON, Entry, TableKind

KEYS: dict[str, Any] = {
    **COMMON,
    "function": str,
    "mechanism": str,
    "eps": list,
    "delta": list,
    "sensitivity": float,
}


def _calibrator(ent: Entry, paper: str) -> tuple[Claim, Check]:
    from privcheck.auditor.user_code import load_reference
    from privcheck.calibration.audit import audit_calibrator, check_request

    v = ent.values
    ref = v["function"]
    fn = ent.guard(lambda: load_reference(ref, os.path.dirname(os.path.abspath(ent.path)), what="calibrator"))
    opts = dict(
        mechanism=v.get("mechanism", "gaussian"),
        eps=v.get("eps"),
        delta=v.get("delta"),
        sensitivity=v.get("sensitivity", 1.0),
    )
    ent.guard(lambda: check_request(opts["mechanism"], opts["eps"], opts["delta"], opts["sensitivity"]))

    def run(ctx: RunContext) -> Outcome:
        return outcome(audit_calibrator(fn, name=ref, **opts))

    stmt = f"{ref} calibrates the {opts['mechanism']} mechanism to its (eps, delta) claims"
    run.user_code = ref  # type: ignore[attr-defined]
    return ent.claim(paper, "privacy", "numeric", stmt), Check(ent.id, "numeric", run, expect=ent.expect)


def outcome(res) -> Outcome:
    """The claim-model outcome of a :class:`~privcheck.calibration.result.CalibratorResult`."""
    rec = res.to_dict()
    details = {k: rec[k] for k in ("summary", "reason", "mechanism", "function", "sensitivity", "refused")}
    details["worst"] = res.worst.line() if res.worst is not None else None
    details["most_wasted"] = res.most_wasted.line() if res.most_wasted is not None else None
    details.update(rec["details"])
    if res.verdict == "error":
        details["error"] = res.reason
    worst = res.worst
    claimed = {"eps": worst.eps, "delta": worst.delta} if worst is not None else None
    measured = (
        {
            "delta_true": list(worst.delta_true) if worst.delta_true else None,
            "eps_true": list(worst.eps_true) if worst.eps_true else None,
        }
        if worst is not None
        else None
    )
    return Outcome(res.verdict, claimed=claimed, measured=measured, details=details)


KIND = TableKind("calibrator", KEYS, ("id", "function"), _calibrator)
