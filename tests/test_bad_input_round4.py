"""Bad input, round 4 (issue 29 §2): one clear line each, exit 2, before anything heavy runs.

In-process with click's CliRunner. Each row: the arguments and a piece of the one ``privcheck: error:``
line. Also the reasons behind the refusals: ``de``'s sampler is wrong above 2^63 − 1 (it would refute a
correct claim), SPriFed's clipping factor has no NaN, a report path is written to before the run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from privcheck.base.errors import PrivcheckUsageError
from privcheck.cli import main


def _run(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


USAGE = [
    # de: m above 2^53 cannot be sampled faithfully (above 2^63 - 1 the codes overflow)
    (["audit", "de", "--param", "m=1e19"], "m must be an integer in [2, 2^53"),
    (["audit", "de", "--param", f"m={2**53 + 1}"], "53-bit uniform draw"),
    # omp: refused before the imports and the run
    (["omp", "--mu1", "1e300"], "mu1 must be a GDP parameter in [1e-100, 1e+100], got 1e+300"),
    (["omp", "--mu2", "1e-300"], "mu2 must be a GDP parameter"),
    (["omp", "--clip-x", "1e300"], "c_x (clipping bound) must be in (0, 1e+06] standard deviations, got 1e+300"),
    (["omp", "--clip-y", "1e300"], "c_y (clipping bound) must be in (0, 1e+06]"),
    (["omp", "--sigma-e", "1e300"], "sigma_e must be in [0, 1e+100]"),
    (["omp", "--n", "100000", "--d", "100000"], "n=100000 clients and d=100000 features would need about"),
    (["omp", "--max-memory", "1k"], "more than the limit 1 KiB; lower --n or --d"),
    (  # the line docs/site/ci.md shows
        ["omp", "--n", "100000", "--d", "100000", "--max-memory", "4G"],
        "omp on an instance of n=100000 clients and d=100000 features would need about 449 GiB, more than the "
        "limit 4 GiB; lower --n or --d, or raise --max-memory (or the environment variable PRIVCHECK_MAX_MEMORY)",
    ),
    (["omp", "--json", "/nonexistent_privcheck_dir/x.json"], "does not exist"),
    (
        ["omp", "--algorithm", "dp-sgd", "--mu1", "1e-3", "--n", "50", "--d", "40"],
        "dp-sgd would take about 5e+06 steps",
    ),
    (["omp", "--algorithm", "dp-gcd", "--mu1", "1e100", "--mu2", "1e100"], "matched to the total mu = 3.16228e+100"),
    # one-value options given twice, duplicate settings and keys
    (["audit", "pm", "--mu", "1", "--mu", "2"], "--mu is given more than once"),
    (["omp", "-s", "3", "--sparsity", "4"], "--sparsity is given more than once"),
    (["audit", "pm", "--samples", "auto:target=0.9,target=0.8"], "target is set twice"),
    (["audit", "pm", "--samples", "auto:draws=1e6,max_draws=1e5"], "max_draws is set twice"),
    (["audit", "de", "--param", "m=3", "--param", "m=4"], "--param m is given twice"),
    (["budget", "gdp", "--mus", "1,1,,1"], "--mus has an empty value between commas"),
    # --timeout: the user's words, not an internal class name; nothing below 10 ms
    (["audit", "pm", "--timeout", "1e-320"], "--timeout 9.99989e-321 s is too short"),
    (["verify", "--timeout", "0.001", "x"], "give at least 0.01 seconds"),
    # budget wireless --p: the default delta' it would use, named as such
    (
        ["budget", "wireless", "--K", "100", "--c", "1", "--p", "1e-300"],
        "--p 1e-300 with --K 100 leaves no default delta'",
    ),
    (["budget", "wireless", "--K", "0", "--c", "1", "--p", "0.5"], "K must be an integer >= 1, got 0"),
    # huge integers are shown compactly, report paths are tried before the run
    (["budget", "compose", "--eps", "1", "--steps", "1e300"], "got 1e+300"),
    (["verify", "--json", "/proc/privcheck-x.json", "fedsel.pe.ldp"], "cannot be written"),
]


@pytest.mark.parametrize("args, text", USAGE, ids=[" ".join(a)[:60] for a, _ in USAGE])
def test_bad_input_is_one_line_and_exit_2(args, text):
    res = _run(args)
    err = res.stderr
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert "Traceback" not in res.output and "internal error" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("privcheck: error: "), err
    assert text in lines[0], lines[0]
    assert "NaN" not in lines[0] and "PiecewiseMechanism" not in lines[0]


def test_timeout_names_the_mechanism_as_typed():
    res = _run(["audit", "pm", "--param", "eps=2", "--timeout", "0.01"])
    reason = [ln for ln in res.output.splitlines() if ln.startswith("reason")]
    assert res.exit_code == 1 and len(reason) == 1
    assert "the audit of pm (eps=2) timed out after 0.01 s" in reason[0], reason
    assert "PiecewiseMechanism" not in reason[0]


def test_de_sampler_overflows_above_int64_which_is_why_it_is_refused():
    """The old failure mode, shown on the sampler itself: above 2^63 − 1 the codes of the other values overflow
    and pile on output 0, so input 1 reports 0 far more often than q — a false refutation."""
    from estimators.direct_encoding import DirectEncoding, sample_krr

    m = 10**19
    with np.errstate(all="ignore"):
        out = sample_krr(1, 20_000, m, 0.5, np.random.default_rng(0))
    assert np.mean(out == 0) > 0.01  # q = 0.5/(m − 1) ≈ 5e-20: never seen in 20 000 draws by a faithful sampler
    with pytest.raises(PrivcheckUsageError, match="2\\^53"):
        DirectEncoding(m=m)
    assert DirectEncoding(m=2**53).m == 2**53


@pytest.mark.parametrize("c", [1e-300, 1e-5, 1e-4 * (1 + 1e-9), 0.5, 2.0, 37.9, 38.1, 1e300])
def test_clipped_normal_sd_is_finite_and_matches_the_integral(c):
    """The rescaling factor of 002 §7.1: finite at both ends (it said NaN at 1e300), right in between."""
    from scipy import integrate, stats

    from estimators.spriFed_omp.data import clipped_normal_sd

    got = clipped_normal_sd(1.0, c)
    assert math.isfinite(got) and got > 0
    if 1e-3 < c < 30:
        var = integrate.quad(lambda z: z * z * stats.norm.pdf(z), -c, c)[0] + 2 * c * c * stats.norm.sf(c)
        assert got == pytest.approx(math.sqrt(var), rel=1e-10)
    else:
        assert got == pytest.approx(min(c, 1.0), rel=1e-3)


def test_ledger_total_mu_does_not_overflow():
    from estimators.spriFed_omp.mechanisms import Ledger

    led = Ledger()
    for _ in range(3):
        led.add("x", 1e200, 1)
    assert led.mu_total == pytest.approx(math.sqrt(3) * 1e200, rel=1e-12)


def test_omp_validates_before_importing_scipy():
    """A refused omp run never imports the algorithms (scipy): the refusal is instant."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom privcheck.cli import main\n"
        "try:\n    main(['omp', '--mu1', '1e300'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print('scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout + out.stderr
