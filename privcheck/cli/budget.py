"""``privcheck budget``: accountants and planners on the command line.

Subcommands: gdp, compose, advanced, amplify, wireless, spriFed, plan. Each prints a short
report and, with ``--json PATH|-``, writes the result as JSON (``-``: standard output only).
Bad input raises :class:`PrivcheckUsageError` (one line, exit code 2).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, is_dataclass

import click

from accountants.pld_spec import PLD_SPEC_HELP as _PLD_SPEC_HELP
from accountants.pld_spec import parse_pld_event, pld_accountant  # noqa: F401 (re-exported: cli.app, tests)
from privcheck.base.errors import PrivcheckUsageError

_JSON_HELP = "Write the result as JSON to PATH or '-' (stdout)."


def _floats(name: str, text: str | None) -> list[float] | None:
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) > 1 and not parts[-1].strip():  # one trailing comma is harmless
        parts = parts[:-1]
    if any(not v.strip() for v in parts) and text.strip():
        raise PrivcheckUsageError(f"{name} has an empty value between commas, got {text!r}; give numbers such as 1,2.5")
    try:
        vals = [float(v) for v in parts if v.strip()]
    except ValueError:
        raise PrivcheckUsageError(f"{name} must be comma-separated numbers, got {text!r}") from None
    if not vals or any(math.isnan(v) or math.isinf(v) for v in vals):
        raise PrivcheckUsageError(f"{name} must be comma-separated finite numbers, got {text!r}")
    return vals


def _plain(obj):
    if is_dataclass(obj):
        obj = asdict(obj)
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, float) and (math.isnan(obj) or math.isinf(obj)):
        return str(obj)
    return obj


def _emit(result: dict, lines: list[str], json_out: str | None) -> None:
    data = _plain(result)
    if json_out == "-":
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    for line in lines:
        click.echo(line)
    if json_out:
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _g(x: float) -> str:
    return f"{x:.6g}"


@click.group("budget")
def budget() -> None:
    """Privacy budgets: GDP, composition, amplification, 004 wireless bounds, SPriFed, planners."""


@budget.command("gdp")
@click.option("--mu", type=float, default=None, help="GDP parameter μ per step (or use --sigma).")
@click.option("--mus", type=str, default=None, help="Heterogeneous μ_i, comma-separated.")
@click.option("--sigma", type=float, default=None, help="Gaussian noise σ (μ = sensitivity/σ).")
@click.option("--sensitivity", type=float, default=1.0, show_default=True)
@click.option("--steps", type=int, default=1, show_default=True, help="Number of compositions.")
@click.option("--delta", type=float, default=None, help="Report ε at this δ (default 1e-5 unless --eps).")
@click.option("--eps", type=float, default=None, help="Report δ at this ε.")
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def gdp_cmd(mu, mus, sigma, sensitivity, steps, delta, eps, json_out):
    """Compose μ-GDP (or Gaussian mechanisms) and convert to (ε, δ)."""
    from accountants import gdp

    given = [x is not None for x in (mu, mus, sigma)]
    if sum(given) != 1:
        raise PrivcheckUsageError("give exactly one of --mu, --mus or --sigma")
    per = _floats("--mus", mus) if mus else [gdp.gaussian_mu(sigma, sensitivity) if sigma is not None else mu]
    if eps is None and delta is None:
        delta = 1e-5
    if eps is not None and delta is not None:
        raise PrivcheckUsageError("give at most one of --eps or --delta")
    res = gdp.gdp_budget(per if len(per) > 1 else per[0], steps, eps=eps, delta=delta)
    lines = [
        f"GDP: mu per step {', '.join(_g(v) for v in per)} x {steps} steps -> total mu = {_g(res.mu)}",
        f"  (eps, delta) = ({_g(res.eps)}, {_g(res.delta)})  [exact conversion, Dong-Roth-Su]",
    ]
    _emit(asdict(res), lines, json_out)


@budget.command("compose")
@click.option("--eps", "eps_list", type=str, required=True, help="ε_i, comma-separated (one value with --steps).")
@click.option(
    "--delta", "delta_list", type=str, default="0", show_default=True, help="δ_i, comma-separated or one value."
)
@click.option("--steps", type=int, default=1, show_default=True, help="Repeat a single ε this many times.")
@click.option("--delta-tilde", type=float, default=1e-5, show_default=True, help="Slack δ̃ of the advanced bounds.")
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def compose_cmd(eps_list, delta_list, steps, delta_tilde, json_out):
    """Heterogeneous composition: basic and the KOV closed form (004 eq. 18/20)."""
    from accountants import composition as comp

    e = _floats("--eps", eps_list)
    d = _floats("--delta", delta_list)
    ev = e[0] if len(e) == 1 else e
    dv = d[0] if len(d) == 1 else d
    basic = comp.basic_composition(ev, dv, steps)
    kov = comp.kov_composition(ev, delta_tilde, dv, steps)
    lines = [
        f"composition of {basic.steps} mechanisms",
        f"  basic:             eps = {_g(basic.eps)}, delta = {_g(basic.delta)}",
        f"  KOV (closed form): eps = {_g(kov.eps)}, delta = {_g(kov.delta)}",
    ]
    _emit({"basic": basic, "kov": kov}, lines, json_out)


@budget.command("advanced")
@click.option("--eps", type=float, required=True, help="ε of each mechanism.")
@click.option("--delta", type=float, default=0.0, show_default=True, help="δ of each mechanism.")
@click.option("--steps", type=int, required=True, help="Number of mechanisms T.")
@click.option("--delta-tilde", type=float, default=1e-5, show_default=True)
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def advanced_cmd(eps, delta, steps, delta_tilde, json_out):
    """Homogeneous composition: basic, DRV, KOV closed form and the exact optimum (KOV Thm 3.3)."""
    from accountants import composition as comp

    r = comp.compare_compositions(eps, steps, delta_tilde, delta)
    lines = [f"{steps} x ({_g(eps)}, {_g(delta)})-DP, delta_tilde = {_g(delta_tilde)}"]
    for k, label in [
        ("basic", "basic"),
        ("drv", "DRV advanced"),
        ("kov", "KOV closed form"),
        ("optimal", "optimal (exact)"),
    ]:
        lines.append(f"  {label:<17} eps = {_g(r[k].eps)}, delta = {_g(r[k].delta)}")
    _emit(r, lines, json_out)


@budget.command("amplify")
@click.option("--q", type=float, required=True, help="Poisson sampling rate q ∈ (0, 1].")
@click.option("--eps", type=float, default=None, help="ε of the base mechanism ((ε, δ) mode).")
@click.option("--delta", type=float, default=None, help="δ of the base mechanism, or the target δ with --sigma.")
@click.option("--sigma", type=float, default=None, help="Noise multiplier of a subsampled Gaussian (with --steps).")
@click.option("--steps", type=int, default=1, show_default=True)
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def amplify_cmd(q, eps, delta, sigma, steps, json_out):
    """Amplification by Poisson sampling: (ε, δ) → (log(1+q(e^ε−1)), qδ), or a subsampled Gaussian over T steps."""
    from accountants import amplification as amp

    if (eps is None) == (sigma is None):
        raise PrivcheckUsageError("give either --eps (with --delta) or --sigma (with --steps and --delta)")
    if eps is not None:
        r = amp.poisson_amplification(eps, 0.0 if delta is None else delta, q)
        lines = [
            f"Poisson sampling q = {_g(q)} of ({_g(eps)}, {_g(r.delta_base)})-DP -> ({_g(r.eps)}, {_g(r.delta)})-DP",
            "  [Balle-Barthe-Gaboardi; tight for randomised response]",
        ]
        _emit(asdict(r), lines, json_out)
        return
    r = amp.subsampled_gaussian(sigma, q, steps, 1e-5 if delta is None else delta, pld=True)
    lines = [
        f"subsampled Gaussian: sigma = {_g(sigma)}, q = {_g(q)}, {steps} steps, delta = {_g(r.delta)}",
        (
            f"  PLD (certified): eps in [{r.eps_pld_lower:.7g}, {r.eps_pld_upper:.7g}]  [tight; quote the upper end]"
            if r.eps_pld_upper is not None
            else "  PLD (certified): not computed (see the note)"
        ),
        f"  RDP (autodp):  eps = {_g(r.eps_rdp)}  [upper bound, cross-check]",
        f"  CLT GDP view:  eps = {_g(r.eps_clt)} (mu = {_g(r.mu_clt)})  [approximation, NOT a safe bound]",
    ]
    lines += [f"  note: {n}" for n in r.pld_notes]
    _emit(asdict(r), lines, json_out)


def _default_delta_prime(K: int, p: float) -> float:
    """The default δ′ = 2e^{−2μ_K²/K} + 1e-5 with μ_K = K·p (004 Sec. IV); one line when it is not below 1.

    2e^{−2Kp²} + 1e-5 < 1 needs K·p² > ln(2/(1 − 1e-5))/2 ≈ 0.347: otherwise there is no default to use.
    """
    kp2 = float(K) * p * p  # 2μ_K²/K = 2Kp², without squaring K·p (no overflow)
    value = 2 * math.exp(-2 * kp2) + 1e-5
    if not value < 1:
        need = math.log(2 / (1 - 1e-5)) / 2
        raise PrivcheckUsageError(
            f"--p {p:g} with --K {K} leaves no default delta': 2e^(-2 K p^2) + 1e-5 = {value:.6g} is not below 1 "
            f"(it needs K p^2 > {need:.4g}, i.e. p > {math.sqrt(need / K):.4g}); give --delta-prime in (0, 1) "
            "or a larger --p"
        )
    return value


@budget.command("wireless")
@click.option("--K", "K", type=int, required=True, help="Number of users K.")
@click.option("--p", type=float, default=None, help="Uniform sampling probability (default: the numerical optimum).")
@click.option("--c", type=float, default=None, help="The constant c (or give --L and --sigma).")
@click.option("--L", "L", type=float, default=None, help="Gradient norm bound L.")
@click.option("--sigma", type=float, default=None, help="σ_min, the smallest per-user noise standard deviation.")
@click.option("--delta-l", type=float, default=1e-5, show_default=True, help="δ_ℓ of the local Gaussian mechanism.")
@click.option("--delta-prime", type=float, default=None, help="δ′ (default: 2e^{-2μ_K²/K} + 1e-5 as in Sec. IV).")
@click.option("--steps", type=int, default=None, help="Iterations T for the totals (eq. 18–20, DRV).")
@click.option("--delta-tilde", type=float, default=1e-5, show_default=True)
@click.option(
    "--max-memory",
    type=str,
    default=None,
    help="Refuse K and --steps whose estimated memory exceeds this (e.g. 4G, 50%; default: half the RAM).",
)
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def wireless_cmd(K, p, c, L, sigma, delta_l, delta_prime, steps, delta_tilde, max_memory, json_out):
    """Wireless aggregation with user sampling (004): eq. 14, Lemma 1 (p* and the true optimum), eq. 16, Lemma 2, totals."""
    from accountants import wireless as wl
    from privcheck.base.resources import check_memory, set_memory_limit

    set_memory_limit(max_memory)
    from privcheck.base.validation import check_int

    K = check_int("K", K, minimum=1)
    # K sampling probabilities (a list and its array), and for the totals a T x K matrix of them (eq. 19)
    T = 0 if steps is None else steps
    check_memory(
        f"budget wireless with K={K:g}" + (f" over --steps {steps:g}" if steps else ""),
        float(K) * 8 * 3 + float(T) * (float(K) * 8 * 2 + 64),
        "lower --K or --steps",
    )
    if c is None:
        if L is None or sigma is None:
            raise PrivcheckUsageError("give --c, or both --L and --sigma")
        c = wl.wireless_c(L, sigma, delta_l)
    elif L is not None or sigma is not None:
        raise PrivcheckUsageError("give --c or (--L, --sigma), not both")
    if p is not None:
        from privcheck.base.validation import check_probability

        p = check_probability("p", p, open_low=True)
    if delta_prime is None:
        if p is None:
            raise PrivcheckUsageError("--delta-prime is needed when --p is not given")
        delta_prime = _default_delta_prime(K, p)
    opt = wl.optimal_p(K, c, delta_prime, delta_l)
    p_used = opt.p_numeric if p is None else p
    g = wl.central_uniform(K, p_used, c, delta_prime, delta_l)
    loc = wl.local_eps([p_used] * K, 0, c, delta_prime, delta_l)
    out = {
        "c": c,
        "beta": g.beta,
        "p": p_used,
        "central": g,
        "local": loc,
        "p_paper": opt.p_paper,
        "eps_at_p_paper": opt.eps_paper,
        "p_optimal": opt.p_numeric,
        "eps_at_p_optimal": opt.eps_numeric,
        "eq16": wl.lemma1_eps(K, c, delta_prime) if 2 * g.beta < 1 else None,
    }
    lines = [
        f"wireless FedSGD: K = {K}, c = {_g(c)}, delta' = {_g(delta_prime)}, beta = {_g(g.beta)}",
        f"  central per iteration (eq. 14) at p = {_g(p_used)}: eps_c = {_g(g.eps)}, delta_c = {_g(g.delta)}",
        f"  local (Lemma 2): eps_l = {_g(loc.eps)}, delta = {_g(loc.delta)}",
        f"  Lemma 1 p* = {_g(opt.p_paper)} (eps_c {_g(opt.eps_paper)}); true minimiser p = {_g(opt.p_numeric)} (eps_c {_g(opt.eps_numeric)})",
    ]
    if steps is not None:
        e18 = wl.total_eq18([g.eps] * steps, delta_tilde)
        d20 = wl.total_delta_eq20([g.delta] * steps, delta_tilde)
        e19 = wl.total_eq19([[p_used] * K] * steps, c, delta_prime, delta_tilde)
        drv = wl.total_time_invariant(g.eps, g.delta, steps, delta_tilde)
        out["totals"] = {
            "steps": steps,
            "eq18": e18,
            "eq19": e19,
            "delta_eq20": d20,
            "drv_eps": drv[0],
            "drv_delta": drv[1],
        }
        lines += [
            f"  over T = {steps}: eq. 18 eps = {_g(e18)} (eq. 19 bound {_g(e19)}), delta (eq. 20) = {_g(d20)}",
            f"               DRV (time-invariant) eps = {_g(drv[0])}, delta = {_g(drv[1])}",
        ]
    _emit(out, lines, json_out)


@budget.command("spriFed")
@click.option("--sparsity", "-s", type=int, required=True, help="Model sparsity s (OMP steps).")
@click.option("--mu1", type=float, required=True, help="μ1 of the correlation/gradient mechanism.")
@click.option("--mu2", type=float, required=True, help="μ2 of the PRIVATE-OLS mechanism.")
@click.option("--variant", type=click.Choice(["omp", "grad"]), default="omp", show_default=True)
@click.option("--delta", type=float, default=1e-5, show_default=True)
@click.option("--clients", type=int, default=None, help="Clients n: also report the NoisySMPC split and exposure.")
@click.option("--sigma", type=float, default=None, help="Total NoisySMPC noise σ (with --clients; default 1/μ1).")
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def spriFed_cmd(sparsity, mu1, mu2, variant, delta, clients, sigma, json_out):
    """SPriFed-OMP (002) total μ-GDP and (ε, δ); NoisySMPC per-client σ and single-message exposure."""
    from accountants import spriFed as spf

    b = spf.spriFed_budget(sparsity, mu1, mu2, variant, delta)
    out = {"budget": b}
    lines = [
        f"{spf.VARIANTS[variant][0]}: s = {sparsity}, {b.n1} x mu1 = {_g(mu1)}, {b.n2} x mu2 = {_g(mu2)}",
        f"  total mu = {_g(b.mu_total)}  ->  (eps, delta) = ({_g(b.eps)}, {_g(delta)})",
    ]
    if clients is not None:
        e = spf.noisysmpc_exposure(1.0, sigma if sigma is not None else 1.0 / mu1, clients, delta)
        out["noisysmpc"] = e
        lines += [
            f"  NoisySMPC: {clients} clients, per-client sigma = {_g(e.sigma_client)} (total {_g(e.sigma_total)}, sensitivity 1)",
            f"  one message without secure aggregation: mu = {_g(e.mu_exposed)} (eps = {_g(e.eps_exposed)}) vs aggregate mu = {_g(e.mu_aggregate)}",
        ]
    _emit(out, lines, json_out)


@budget.command("plan")
@click.argument("question", type=click.Choice(["sigma", "steps", "sampling", "users", "rate", "laplace"]))
@click.option("--eps", type=float, default=None, help="Target ε (sigma, steps, users).")
@click.option("--delta", type=float, default=1e-5, show_default=True)
@click.option("--steps", type=int, default=None, help="Rounds T (sigma).")
@click.option("--sigma", type=float, default=None, help="Noise σ (steps).")
@click.option("--sensitivity", type=float, default=1.0, show_default=True)
@click.option("--q", type=float, default=None, help="Poisson sampling rate (sigma, steps; certified PLD accountant).")
@click.option("--K", "K", type=int, default=None, help="Users K (sampling).")
@click.option("--c", type=float, default=None, help="004's constant c (sampling, users).")
@click.option("--delta-prime", type=float, default=1e-4, show_default=True)
@click.option("--delta-l", type=float, default=1e-5, show_default=True)
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def plan_cmd(question, eps, delta, steps, sigma, sensitivity, q, K, c, delta_prime, delta_l, json_out):
    """Inverse questions: noise σ, largest T, largest sampling rate (rate), Laplace scale (laplace),
    004's best sampling p (sampling) and smallest K (users)."""
    from accountants import planners as pl

    def need(**kw):
        for k, v in kw.items():
            if v is None:
                raise PrivcheckUsageError(f"plan {question} needs --{k.replace('_', '-')}")

    if question == "sigma":
        need(eps=eps, steps=steps)
        r = pl.noise_for_budget(eps, delta, steps, sensitivity, q)
    elif question == "steps":
        need(eps=eps, sigma=sigma)
        r = pl.max_steps(eps, delta, sigma, sensitivity, q)
    elif question == "rate":
        need(eps=eps, sigma=sigma, steps=steps)
        r = pl.max_sampling_rate(eps, delta, sigma, steps, sensitivity)
    elif question == "laplace":
        need(eps=eps)
        r = pl.laplace_scale(eps, delta, steps or 1, sensitivity)
    elif question == "sampling":
        need(K=K, c=c)
        r = pl.best_sampling(K, c, delta_prime, delta_l)
    else:
        need(eps=eps, c=c)
        r = pl.min_users(eps, c, delta_prime, delta_l)
    lines = [
        f"{r.question}: {_g(r.answer)}",
        f"  achieved (eps, delta) = ({_g(r.achieved_eps)}, {_g(r.achieved_delta)})  [{r.method}]",
    ]
    lines += [f"  {k}: {_g(v) if isinstance(v, float) else v}" for k, v in r.details.items()]
    if "eps_clt_not_a_bound" in r.details:
        lines.append("  (eps_clt_not_a_bound: central-limit view, NOT a safe bound; eps_rdp_crosscheck: autodp RDP)")
    _emit(asdict(r), lines, json_out)


# ---------------------------------------------------------------------------- pld
def _check_curve_flags(tradeoff, alphas, gdp_mode, alpha_min, risk, fprs) -> None:
    """--alpha only with --tradeoff, --alpha-min only with --gdp, --fpr only with --risk; values
    checked before any accounting (one-line errors)."""
    from accountants.pld.tradeoff import check_alpha, check_alpha_min

    for flag, used, mode, name in (
        ("--alpha", alphas, tradeoff, "--tradeoff"),
        ("--alpha-min", alpha_min is not None, gdp_mode, "--gdp"),
        ("--fpr", fprs, risk, "--risk"),
    ):
        if used and not mode:
            raise PrivcheckUsageError(f"{flag} is only used with {name}")
    check_alpha(list(alphas), "--alpha")
    check_alpha(list(fprs), "--fpr")
    if alpha_min is not None:
        check_alpha_min(alpha_min, "--alpha-min")


@budget.command("pld")
@click.option("--event", "events", multiple=True, required=True, help=_PLD_SPEC_HELP + ". Repeat for a composition.")
@click.option("--delta", type=float, default=None, help="Report ε at this δ.")
@click.option("--eps", type=float, default=None, help="Report δ at this ε.")
@click.option("--relation", type=click.Choice(["add_remove", "replace_one"]), default="add_remove", show_default=True)
@click.option("--grid-step", type=float, default=None, help="Loss discretisation step (default: automatic).")
@click.option("--tradeoff", is_flag=True, help="Report the certified trade-off curve β(α) (f-DP) at --alpha.")
@click.option(
    "--alpha", "alphas", type=float, multiple=True, help="Type I error α in [0, 1] for --tradeoff (repeatable)."
)
@click.option("--gdp", "gdp_mode", is_flag=True, help="Report the μ-GDP description: μ and its worst-case regret.")
@click.option(
    "--alpha-min", type=float, default=None, help="Range cut for --gdp, in (0, 0.5) (default 1e-10, as gdpnum)."
)
@click.option("--risk", is_flag=True, help="Report the best attack's TPR bound at --fpr and the advantage.")
@click.option("--fpr", "fprs", type=float, multiple=True, help="False-positive rate in [0, 1] for --risk (repeatable).")
@click.option("--json", "json_out", type=str, default=None, help=_JSON_HELP)
def pld_cmd(events, delta, eps, relation, grid_step, tradeoff, alphas, gdp_mode, alpha_min, risk, fprs, json_out):
    """Tight certified accounting (privacy-loss distributions): ε(δ) and/or δ(ε) as [lower, upper],
    the trade-off curve (--tradeoff), μ-GDP (--gdp), attack risk (--risk); any of them together,
    answered from one build of the composition."""
    import time

    queries = [q for q, on in (("epsilon", delta is not None), ("delta", eps is not None)) if on]
    queries += [q for q, on in (("tradeoff", tradeoff), ("gdp", gdp_mode), ("risk", risk)) if on]
    if not queries:
        raise PrivcheckUsageError("give at least one of --delta, --eps, --tradeoff, --gdp or --risk")
    _check_curve_flags(tradeoff, alphas, gdp_mode, alpha_min, risk, fprs)
    t0 = time.perf_counter()
    acc, described = pld_accountant(events, relation, grid_step=grid_step)
    title = f"PLD accountant ({relation}): " + " + ".join(
        f"{d['kind']}({', '.join(f'{k}={_g(v)}' for k, v in d['params'].items())})x{d['count']}" for d in described
    )
    res, lines = pld_queries(
        acc,
        delta=delta,
        eps=eps,
        tradeoff=tradeoff,
        alphas=alphas,
        gdp=gdp_mode,
        alpha_min=alpha_min,
        risk=risk,
        fprs=fprs,
    )
    out = {"relation": relation, "events": described}
    if len(queries) == 1:  # (one query: its keys at the top level, as before)
        out.update(res[queries[0]])
    else:
        out.update(res)
        lines.append(f"  ({len(queries)} queries from one build of the composition)")
    out["seconds"] = time.perf_counter() - t0
    _emit(out, [title] + lines, json_out)


def pld_queries(
    acc, *, delta=None, eps=None, tradeoff=False, alphas=(), gdp=False, alpha_min=None, risk=False, fprs=()
) -> tuple[dict, list[str]]:
    """Answers of one composed PLDAccountant to any set of queries (its build is shared): ε(δ) at
    ``delta``, δ(ε) at ``eps``, and the curve reports of privcheck.cli.curves. Returns
    ({query: JSON-ready dict}, report lines); query keys: epsilon, delta, tradeoff, gdp, risk."""
    from privcheck.cli.curves import curve_report, interval_text

    res: dict = {}
    lines: list[str] = []
    for name, x in (("epsilon", delta), ("delta", eps)):
        if x is None:
            continue
        iv = acc.epsilon(x) if name == "epsilon" else acc.delta(x)
        if name == "epsilon":
            r = {"delta": x, "eps_lower": iv.lower, "eps_upper": iv.upper}
            head = f"eps({_g(x)}) in {interval_text(iv.lower, iv.upper)}"
        else:
            r = {"eps": x, "delta_lower": iv.lower, "delta_upper": iv.upper}
            head = f"delta({_g(x)}) in {interval_text(iv.lower, iv.upper)}"
        r.update({"method": iv.method, "notes": list(iv.notes)})
        res[name] = r
        lines.append(
            f"  {head}  [{iv.method}; certified: the exact value lies in the interval, the upper end is the bound to quote]"
        )
        lines += [f"  note: {n}" for n in iv.notes]
    for name, on in (("tradeoff", tradeoff), ("gdp", gdp), ("risk", risk)):
        if on:
            r, ls = curve_report(
                acc,
                tradeoff=name == "tradeoff",
                alphas=alphas,
                gdp=name == "gdp",
                alpha_min=alpha_min,
                risk=name == "risk",
                fprs=fprs,
            )
            res[name] = r
            lines += ls
    return res, lines
