"""``privcheck audit-scores IN OUT``: certified ε / μ lower bounds from canary score files.

IN and OUT hold the scores of the canaries included in / left out of training (larger = more
likely included): ``.npy`` (a 1-d numeric array), or ``.csv`` / ``.txt`` (one number per line;
blank lines ignored). Exit codes: 0 no claim or not refuted, 1 refuted, 2 bad input (one line).
"""

from __future__ import annotations

import json
import math
import sys

import click

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["audit_scores_cmd"]


def _chosen(ch: dict) -> str:
    if "threshold" in ch:
        return (
            f"{ch['direction']}, threshold {ch['threshold']:.6g}: FP {ch['false_positives']}/{ch['n_out']}, "
            f"FN {ch['false_negatives']}/{ch['n_in']}; FPR <= {ch['fpr_upper']:.4g}, FNR <= {ch['fnr_upper']:.4g}"
        )
    out = f"; guess out when {ch['guess_out_when']}" if ch.get("guess_out_when") else ""
    return (
        f"{ch['direction']}: guess in when {ch['guess_in_when']}{out}; {ch['correct']} of {ch['guesses']} guesses right"
    )


def _junit(res, path: str) -> None:
    from privcheck.claims import VerdictRecord
    from privcheck.reports.junit import write_junit

    rec = VerdictRecord(
        id="audit-scores",
        source=res.to_dict()["source"],
        kind="privacy",
        method="numeric",
        verdict=res.verdict or "inconclusive",
        claimed=res.claim,
        measured={"eps_lower": res.eps_lower, "mu_lower": res.mu_lower},
        details={"power": res.power, "rule": res.rule, "reason": res.reason},
        seed=0,
        samples=res.n_in + res.n_out,
        seconds=res.seconds,
        expect="holds" if res.claim else None,
    )
    write_junit([rec], path, fail_on=("refuted",))


def _g(x) -> str:
    return "n/a" if x is None else (str(x) if isinstance(x, float) and math.isinf(x) else f"{x:.6g}")


def summary_lines(res) -> list[str]:
    """The text report of a ScoreAudit."""
    d = res.to_dict()
    lines = [
        f"audit-scores: {res.method} — {d['source']}",
        f"  scores: {res.n_in} in, {res.n_out} out; confidence {res.confidence:g}",
        f"  eps_lower = {_g(res.eps_lower)} at delta {res.delta:g}  (certified; no assumption on the mechanism)",
    ]
    if res.mu_lower is not None:
        lines.append(f"  mu_lower = {_g(res.mu_lower)}  (certified, for a mu-GDP claim)")
    if res.eps_if_gdp is not None:
        lines.append(
            f"  eps_if_gdp = {_g(res.eps_if_gdp)}  (the eps at delta of mu_lower-GDP: a bound only if the curve is Gaussian)"
        )
    rule = res.rule
    alpha = rule.get("alpha_per_bound", rule.get("alpha_per_test"))
    lines.append(
        f"  rule: {rule['description']}; {rule['tests']} tests, alpha {alpha:.3g} each; "
        f"directions {', '.join(rule['directions'])}"
    )
    for key in ("eps", "mu", "curve"):
        if res.chosen.get(key):
            lines.append(f"  rule giving {key if key != 'curve' else 'the curve test'}: {_chosen(res.chosen[key])}")
    lines.append(f"  power: {res.power}")
    if res.verdict:
        c = res.claim or {}
        claim = {
            "eps": lambda: f"eps {c.get('eps'):g} at delta {c.get('delta'):g}",
            "mu": lambda: f"mu {c.get('mu'):g}",
            "accountant": lambda: str(c.get("label")),
        }[c["kind"]]()
        lines.append(f"  verdict: {res.verdict} (claim: {claim}){'; ' + res.reason if res.reason else ''}")
        if c.get("test"):
            lines.append(f"  test: {c['test']}")
    for note in res.notes:
        lines.append(f"  note: {note}")
    return lines


@click.command("audit-scores")
@click.argument("scores_in", metavar="IN")
@click.argument("scores_out", metavar="OUT")
@click.option(
    "--method",
    type=click.Choice(["auto", "cp", "gdp", "one-run", "one-run-fdp"]),
    default="auto",
    show_default=True,
    help="cp/gdp: each score from its own run (Nasr et al. 2021/2023); one-run/one-run-fdp: one run, "
    "canaries included with probability 1/2 (Steinke et al. 2023; Mahloujifar et al. 2025); auto = one-run-fdp.",
)
@click.option("--eps", type=float, default=None, help="Claimed eps (with --delta): refuted when eps_lower exceeds it.")
@click.option("--delta", type=float, default=0.0, show_default=True, help="The delta of eps_lower (and of --eps).")
@click.option("--mu", type=float, default=None, help="Claimed mu of a mu-GDP claim (instead of --eps).")
@click.option(
    "--accountant",
    "accountant_specs",
    multiple=True,
    metavar="EVENT",
    help="Claim: the trade-off curve of these PLD events, KIND:NAME=VALUE,...[xCOUNT] (as 'budget pld --event').",
)
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of every bound.")
@click.option(
    "--thresholds",
    default="bonferroni",
    show_default=True,
    help="bonferroni (every rule, corrected), split[:F] (choose on a fraction F, bound on the rest) or a number.",
)
@click.option(
    "--sides",
    type=click.Choice(["both", "forward"]),
    default="both",
    show_default=True,
    help="both: also 'in when the score is low', bounded separately.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split.")
@click.option("--json", "json_out", type=str, default=None, help="Write the record as JSON to PATH or '-'.")
@click.option("--junit", "junit_out", type=str, default=None, help="Write a JUnit XML report to PATH.")
def audit_scores_cmd(
    scores_in,
    scores_out,
    method,
    eps,
    delta,
    mu,
    accountant_specs,
    confidence,
    thresholds,
    sides,
    seed,
    json_out,
    junit_out,
):
    """Certified eps (and mu) lower bounds from canary scores IN (included) and OUT (left out).

    Files: .npy (1-d numeric array), .csv or .txt (one score per line). Exits 1 when the claim is
    refuted, 2 on bad input, else 0."""
    from privcheck.canaries.audit import audit_scores

    if sum(x is not None and x != () for x in (eps, mu, accountant_specs or None)) > 1:
        raise PrivcheckUsageError("give one claim: --eps, --mu or --accountant")
    from privcheck.canaries.files import read_scores

    s_in, s_out = read_scores(scores_in), read_scores(scores_out)
    acc = None
    if accountant_specs:
        from privcheck.cli.budget import pld_accountant

        acc = pld_accountant(accountant_specs, option="--accountant")[0]
    try:
        th = float(thresholds)
    except ValueError:
        th = thresholds
    res = audit_scores(
        s_in,
        s_out,
        method=method,
        eps=eps,
        delta=delta,
        mu=mu,
        accountant=acc,
        confidence=confidence,
        thresholds=th,
        sides=sides,
        seed=seed,
    )
    code = 1 if res.verdict == "refuted" else 0
    if junit_out:
        _junit(res, junit_out)
    if json_out == "-":
        click.echo(json.dumps(res.to_dict(), indent=2))
        sys.exit(code)
    if json_out:
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(res.to_dict(), indent=2) + "\n")
    for line in summary_lines(res):
        click.echo(line)
    sys.exit(code)
