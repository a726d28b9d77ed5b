"""``privcheck check-sampling FILE --n N [--q Q] [--scheme poisson|fixed|shuffle]``: test saved batches
against the declared sampling scheme (:func:`privcheck.check_sampling`). Exit 0 when the scheme holds or the
test is inconclusive, 1 when it is refuted, 2 on bad usage."""

from __future__ import annotations

import sys

import click


@click.command("check-sampling")
@click.argument("file", type=str)
@click.option("--n", "n", type=int, required=True, help="Number of records in the dataset (indices in [0, n)).")
@click.option("--q", "q", type=float, default=None, help="Declared sampling rate (Poisson: per record and step).")
@click.option("--scheme", type=click.Choice(["poisson", "fixed", "shuffle"]), default="poisson", show_default=True)
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Family-wise, over the tests (Holm).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the Monte Carlo nulls.")
@click.option("--json", "json_out", type=str, default=None, help="Write the result as JSON to PATH or '-'.")
def check_sampling_cmd(file: str, n: int, q, scheme: str, confidence: float, seed: int, json_out) -> None:
    """Test saved batches (.json, .txt, .npy, .npz: one batch of record indices per entry) against the
    declared sampling scheme, and say what the observed scheme means for the accountant."""
    import json

    from privcheck.base.validation import check_output_path
    from privcheck.sampling import check_sampling
    from privcheck.sampling.files import load_batches

    if json_out:
        json_out = check_output_path("--json", json_out, allow_stdout=True)
    res = check_sampling(load_batches(file), n=n, q=q, scheme=scheme, confidence=confidence, seed=seed)
    if json_out == "-":
        click.echo(json.dumps(res.to_dict(), indent=2))
    else:
        click.echo(res.summary())
        if json_out:
            with open(json_out, "w", encoding="utf-8") as fh:
                json.dump(res.to_dict(), fh, indent=2)
    sys.exit(1 if res.verdict == "refuted" else 0)
