"""``privcheck omp``: run SPriFed-OMP (002) or a §7 baseline on one synthetic instance.

Prints the recovered basis, the test MSE and the GDP ledger (invocations n1, n2 and the total μ of
Theorem 6); ``--json PATH|-`` writes them as JSON. Bad input (s > d, n < 1, μ outside [1e-100, 1e100],
a clipping bound outside (0, 1e6], an instance whose estimated memory exceeds ``--max-memory``, an
unwritable ``--json`` path, …) raises :class:`PrivcheckUsageError` before the heavy imports and the
run: one line, exit code 2.
"""

from __future__ import annotations

import math

import click

from privcheck.cli.budget import _emit, _g

ALGORITHMS = ("omp", "omp-noenh", "grad", "dp-sgd", "dp-gcd")


#: the most element operations (steps × clients × features) a baseline run may take (about a minute here)
MAX_BASELINE_WORK = 2e10
#: the most steps a baseline run may take (each has a fixed cost of tens of microseconds)
MAX_BASELINE_STEPS = 1e5


def _validate(n, d, s, mu1, mu2, clip_x, clip_y, sigma_e, seed, algorithm) -> None:
    """Refuse bad input in one line before anything heavy is imported or allocated (sizes from an estimate)."""
    from estimators.spriFed_omp.mechanisms import MU_RANGE, run_memory_bytes, validate_run
    from privcheck.base.errors import PrivcheckUsageError
    from privcheck.base.resources import check_memory
    from privcheck.base.validation import check_int

    check_int("seed", seed, minimum=0)
    n, d, s, mu1, mu2, *_ = validate_run(n, d, s, mu1, mu2, clip_x, clip_y, sigma_e=sigma_e)
    check_memory(
        f"{algorithm} on an instance of n={n} clients and d={d} features", run_memory_bytes(n, d), "lower --n or --d"
    )
    if algorithm not in ("dp-sgd", "dp-gcd"):
        return
    from accountants.spriFed import spriFed_budget

    total = spriFed_budget(s, mu1, mu2, "omp").mu_total  # the budget the baseline is matched to (Theorem 6)
    if total > MU_RANGE[1]:
        raise PrivcheckUsageError(
            f"{algorithm} is matched to the total mu = {total:g} of Theorem 6, above {MU_RANGE[1]:g}; lower --mu1/--mu2"
        )
    per_step = mu1 if algorithm == "dp-sgd" else max(mu1, mu2) * math.hypot(mu1 / max(mu1, mu2), mu2 / max(mu1, mu2))
    ratio = total / per_step
    steps = ratio * ratio  # T = floor(mu_total^2 / mu1^2) (dp-sgd), floor(mu_total^2 / (mu1^2 + mu2^2)) (dp-gcd)
    if not (steps <= MAX_BASELINE_STEPS and steps * (n + 1) * d <= MAX_BASELINE_WORK):
        raise PrivcheckUsageError(
            f"{algorithm} would take about {steps:.3g} steps (the Theorem 6 total mu = {total:g} spent "
            f"{'mu1' if algorithm == 'dp-sgd' else 'sqrt(mu1^2 + mu2^2)'} per step) over {n} clients x {d} "
            f"features, beyond {MAX_BASELINE_STEPS:.0e} steps or {MAX_BASELINE_WORK:.0e} element operations; raise --mu1, lower --mu2, or lower --n/--d"
        )


@click.command("omp")
@click.option("--n", "n", type=int, default=400, show_default=True, help="Clients (one row each), n >= 1.")
@click.option("--d", "d", type=int, default=1000, show_default=True, help="Features d >= s.")
@click.option("-s", "--sparsity", type=int, default=5, show_default=True, help="Sparsity s, 1 <= s <= d.")
@click.option("--mu1", type=float, default=5.0, show_default=True, help="GDP μ1 > 0 of the d-dimensional releases.")
@click.option("--mu2", type=float, default=1.0, show_default=True, help="GDP μ2 > 0 of PRIVATE-OLS.")
@click.option(
    "--clip-x", type=float, default=2.0, show_default=True, help="Clipping bound of X's elements (in SDs), > 0."
)
@click.option(
    "--clip-y", type=float, default=2.0, show_default=True, help="Clipping bound of y's elements (in SDs), > 0."
)
@click.option("--sigma-e", type=float, default=0.1, show_default=True, help="Additive error SD σₑ >= 0.")
@click.option("--algorithm", type=click.Choice(ALGORITHMS), default="omp", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (>= 0) of the instance and the noise.")
@click.option("--json", "json_out", type=str, default=None, help="Write the result as JSON to PATH or '-' (stdout).")
@click.option(
    "--max-memory",
    type=str,
    default=None,
    help="Refuse instances whose estimated memory exceeds this (e.g. 4G, 50%; default: half the RAM).",
)
def omp_cmd(n, d, sparsity, mu1, mu2, clip_x, clip_y, sigma_e, algorithm, seed, json_out, max_memory):
    """Run SPriFed-OMP / -GRAD / a baseline on a §7 synthetic instance (002 Alg. 3–5)."""
    from privcheck.base.resources import set_memory_limit

    set_memory_limit(max_memory)
    _validate(
        n, d, sparsity, mu1, mu2, clip_x, clip_y, sigma_e, seed, algorithm
    )  # before the heavy imports and the run
    from accountants.spriFed import spriFed_budget
    from estimators.spriFed_omp import experiments as ex
    from privcheck.base.seeding import generator

    setup = {"s": sparsity, "mu1": mu1, "mu2": mu2, "c_x": clip_x, "c_y": clip_y, "sigma_e": sigma_e}
    ds = ex.instance(n, d, setup, generator(seed, "instance"))
    name = {"omp-noenh": "omp_noenh", "dp-sgd": "sgd", "dp-gcd": "gcd"}.get(algorithm, algorithm)
    r = ex.run_method(name, ds, setup, generator(seed, "noise"))
    n1, n2 = r.ledger.counts()
    out = {
        "algorithm": algorithm,
        "n": n,
        "d": d,
        "s": sparsity,
        "mu1": mu1,
        "mu2": mu2,
        "support": [int(j) for j in r.support],
        "true_support": [int(j) for j in ds.support],
        "recovered": r.recovered(ds.support),
        "test_mse": r.mse(ds.X_test, ds.y_test),
        "n1": n1,
        "n2": n2,
        "mu_total": r.ledger.mu_total,
        "theorem6_mu_total": spriFed_budget(sparsity, mu1, mu2).mu_total,
    }
    lines = [
        f"{algorithm}: n = {n}, d = {d}, s = {sparsity}, mu1 = {_g(mu1)}, mu2 = {_g(mu2)}",
        f"  recovered {out['recovered']} of {sparsity} true basis elements; test MSE = {_g(out['test_mse'])}",
        f"  ledger: {n1} x mu1, {n2} x mu2, total mu = {_g(out['mu_total'])} "
        f"(Theorem 6 for s = {sparsity}: {_g(out['theorem6_mu_total'])})",
    ]
    _emit(out, lines, json_out)
