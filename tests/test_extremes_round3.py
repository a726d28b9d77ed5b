"""Hostile input, round 3 (issues 18 §6 and 19 §3, §6): memory guards on every path, no crash or hang on
built-in paths, the Dask connection, the Laplace planner.

:data:`CASES` holds every command-line case with its expected exit code and what its first output line
says (standard error for refusals, standard output otherwise); the Python-API cases and the Dask cases
that need a server or a signal follow. Every network test stays on 127.0.0.1 (an unused port, a local
HTTP server, a fake scheduler) or mocks the connection.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest
from click.testing import CliRunner

import privcheck
from privcheck.base.resources import ResourceLimitError, memory_limit, set_memory_limit, total_memory
from privcheck.cli import main

LIMIT = "more than the limit"
ABOVE_RAM = f"{2 * total_memory() >> 30}G"  # twice this machine's RAM, whatever the machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _deep_toml(tmp_path) -> str:
    f = tmp_path / "deep.toml"
    n = 3000
    f.write_text('[[privacy]]\nid = "deep.x"\nmechanism = "de"\nparams = { m = ' + "[" * n + "1" + "]" * n + " }\n")
    return str(f)


def _huge_toml(tmp_path) -> str:
    f = tmp_path / "huge.toml"
    f.write_text(
        '[[privacy]]\nid = "huge.pe"\nmechanism = "fedsel-pe"\nparams = { d = 1000000000, k = 2 }\nsamples = 1000\n'
    )
    return str(f)


def _file(tmp_path, name: str, text: str) -> str:
    f = tmp_path / name
    f.write_text(text)
    return str(f)


_BIG_REPLICATES = (
    '[[estimator]]\nid = "big.est"\nestimator = "c_de"\n'
    "scenario = { n = 100, n_i = 10, pi = 0.5, eps = 1.0, m = 4 }\nreplicates = 1000000000000\n"
)
_BIG_SAMPLES = (
    '[[privacy]]\nid = "big.lap"\nmechanism = "laplace"\nparams = { eps = 1.0 }\nexact = false\nsamples = {n}\n'
)
_WIDE_USER = (
    '[[privacy]]\nid = "big.user"\nsampler = "wide_user:wide"\ninputs = [0, 1]\neps = 1.0\nsamples = 900000000\n'
)


def _wide_user_toml(tmp_path) -> str:
    _file(tmp_path, "wide_user.py", "def wide(x, n, rng):\n    return rng.normal(x, 1.0, (n, 1000))\n")
    return _file(tmp_path, "wide.toml", _WIDE_USER)


# (args — a callable of tmp_path when a file is needed —, exit code, text in the first output line)
CASES = [
    # 1. memory guards: refused up front from the size estimate, with the estimate, the limit and how to raise it
    (["audit", "quantizer", "--param", "K=1e9"], 2, "the K=1000000000 quantisation levels would need about"),
    (["audit", "privquant", "--param", "d=1e9", "--param", "eps=1"], 2, "exact PrivQuant sums for d=1000000000"),
    (["audit", "privquant", "--param", "d=1e9", "--param", "kappa=3", "--param", "p=0.9"], 2, "PrivQuant sums"),
    (["audit", "fedsel-pe", "--param", "d=1e9"], 2, LIMIT),
    (["budget", "wireless", "--K", "1e9", "--c", "30", "--p", "0.5"], 2, "budget wireless with K=1e+09"),
    (["budget", "wireless", "--K", "100", "--c", "30", "--p", "0.5", "--steps", "1e18"], 2, "--steps 1e+18"),
    (["budget", "wireless", "--K", "100", "--c", "30", "--p", "0.5", "--steps", "2e8"], 2, "--steps 2e+08"),
    (
        ["budget", "wireless", "--K", "1e4", "--c", "30", "--p", "0.5", "--max-memory", "1K"],
        2,
        "more than the limit 1 KiB",
    ),
    (["audit", "de", "--max-memory", ABOVE_RAM], 2, "more than this machine's RAM"),
    (["verify", "fedsel.ps.ratio", "--max-memory", ABOVE_RAM], 2, "more than this machine's RAM"),
    (["audit", "de", "--samples", "1e10", "--max-memory", "1G"], 2, "the limit is 1e+09 draws per input"),
    (lambda p: ["verify", "--file", _huge_toml(p), "--jobs", "1"], 2, "the exact eps of fedsel-pe with d=1000000000"),
    # claim files: oversize entries refused at load from the estimate (issue 19 §3), never an 'error' record later
    (
        lambda p: ["verify", "--file", _file(p, "r.toml", _BIG_REPLICATES)],
        2,
        "[[estimator]] #1 (id 'big.est'): simulating 1e+12 replicates",
    ),
    (
        lambda p: ["verify", "--file", _file(p, "s.toml", _BIG_SAMPLES.replace("{n}", str(10**11)))],
        2,
        "(id 'big.lap'): samples 1e+11 is beyond what can be sampled",
    ),
    (
        lambda p: ["verify", "--file", _file(p, "s.toml", _BIG_SAMPLES.replace("{n}", str(5 * 10**9)))],
        2,
        "the limit is 1e+09 draws per input on this machine",
    ),
    (
        lambda p: ["verify", "--file", _wide_user_toml(p)],
        2,
        "(id 'big.user'): auditing wide with outputs of 1000 values",
    ),
    # k-ary RR with k = 10^9: three atoms, an answer (checked against the closed form below)
    (["budget", "pld", "--event", "rr:eps=1,k=1000000000x2", "--delta", "1e-5"], 0, "PLD accountant (add_remove)"),
    # 2. crashes and hangs on built-in paths
    (["audit", "gaussian", "--eps", "710", "--delta", "1e-5", "--samples", "2000"], 0, "mechanism "),
    (["audit", "gaussian", "--eps", "1e5", "--delta", "1e-5", "--samples", "2000"], 0, "mechanism "),
    (["verify", "fedsel.ps.ratio", "--timeout", "1e300"], 2, "--timeout must be a number of seconds in (0, 2592000]"),
    (lambda p: ["verify", "--file", _deep_toml(p)], 2, "nested too deeply"),
    (["budget", "plan", "sigma", "--eps", "1e4", "--steps", "1000", "--q", "0.01"], 2, "searches eps <= 100"),
    # 4. the Laplace planner answers near the closed form (checked below), not 3.75e263
    (["budget", "plan", "laplace", "--eps", "1e-300"], 0, "laplace scale b: 5000"),
]


def _first_line(res) -> str:
    text = res.stderr if res.exit_code == 2 else res.stdout
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[0] if lines else ""


@pytest.mark.parametrize(
    "args,code,needle",
    CASES,
    ids=[" ".join(a)[:60] if isinstance(a, list) else f"file-{i}" for i, (a, _, _) in enumerate(CASES)],
)
def test_hostile_case(args, code, needle, tmp_path):
    argv = args(tmp_path) if callable(args) else args
    t0 = time.perf_counter()
    res = CliRunner().invoke(main, argv, catch_exceptions=False)
    assert "Traceback" not in res.output and "Traceback" not in res.stderr
    assert res.exit_code == code, (res.exit_code, res.output, res.stderr)
    first = _first_line(res)
    assert needle in first, first
    if code == 2:
        err = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(err) == 1 and err[0].startswith("privcheck: error: "), err
    assert time.perf_counter() - t0 < 120  # refusals come from the estimate, not after a long run


def test_refusals_say_how_to_raise_the_limit():
    res = CliRunner().invoke(main, ["audit", "quantizer", "--param", "K=1e9"])
    assert "raise --max-memory (or the environment variable PRIVCHECK_MAX_MEMORY)" in res.stderr
    assert "lower K" in res.stderr


def test_max_memory_of_one_command_does_not_leak_into_the_next():
    before = memory_limit()
    res = CliRunner().invoke(main, ["audit", "de", "--max-memory", "1K"])
    assert res.exit_code == 2 and LIMIT in res.stderr
    assert memory_limit() == before
    res = CliRunner().invoke(main, ["budget", "wireless", "--K", "1000", "--c", "30", "--p", "0.5"])
    assert res.exit_code == 0, res.stderr


# ---------------------------------------------------------------------------- answers behind the table rows


def test_rr_with_a_billion_outputs_matches_the_closed_form():
    """δ(ε) of one k-RR(ε0): Σ max(p_i − e^ε q_i, 0) = (e^ε0 − e^ε)/(e^ε0 + k − 1) for ε < ε0."""
    from accountants.pld import PLDAccountant, RandomizedResponseEvent

    k, e0, e = 10**9, 1.0, 0.5
    exact = (math.exp(e0) - math.exp(e)) / (math.exp(e0) + k - 1)
    iv = PLDAccountant().compose(RandomizedResponseEvent(e0, k), 1).delta(e)
    assert iv.lower <= exact <= iv.upper
    assert iv.upper <= exact * 1.01
    # the merged pair has three atoms and the same δ as the full pair at small k
    p, q = RandomizedResponseEvent(e0, 7).pair()
    assert len(p) == 3 and math.isclose(p.sum(), 1.0) and math.isclose(q.sum(), 1.0)
    full_p = np.array([math.exp(e0), 1.0] + [1.0] * 5) / (math.exp(e0) + 6)
    full_q = np.array([1.0, math.exp(e0)] + [1.0] * 5) / (math.exp(e0) + 6)
    assert math.isclose(np.maximum(p - math.exp(e) * q, 0).sum(), np.maximum(full_p - math.exp(e) * full_q, 0).sum())


def test_plan_laplace_at_tiny_eps_is_safe_and_tight():
    """One Laplace(b) step at ε → 0: δ(0) = 1 − e^{−Δ/(2b)}, so b ≥ Δ/(−2 log(1 − δ)) exactly."""
    res = CliRunner().invoke(main, ["budget", "plan", "laplace", "--eps", "1e-300", "--json", "-"])
    assert res.exit_code == 0, res.stderr
    b = json.loads(res.stdout)["answer"]
    b_exact = 1.0 / (-2.0 * math.log1p(-1e-5))
    assert b_exact <= b <= b_exact * (1 + 1e-3), (b, b_exact)


def test_planner_brackets_a_far_boundary():
    """The bracket search reaches a boundary 295 orders of magnitude away and returns its safe end."""
    from accountants import planners as pl

    r = pl.laplace_scale(1e-300, 1e-8)
    b_exact = 1.0 / (-2.0 * math.log1p(-1e-8))
    assert b_exact <= r.answer <= b_exact * (1 + 1e-3)
    lo, hi = r.details["b_bracket"]
    assert lo < b_exact <= hi


def test_delta_gap_never_overflows():
    from privcheck.auditor.selection import delta_gap

    assert delta_gap(0.5, 0.0, 1e5) == 0.5
    assert delta_gap(0.5, 1e-10, 800.0) == -math.inf
    assert math.isclose(delta_gap(0.3, 0.1, 1.0), 0.3 - math.e * 0.1)
    out = delta_gap(np.array([0.5, 0.5]), np.array([0.0, 1e-3]), 720.0)
    assert out[0] == 0.5 and out[1] == -math.inf


# ---------------------------------------------------------------------------- the Python API, same guards

API = [
    (lambda: privcheck.mechanism("quantizer", K=10**9), "quantisation levels"),
    (lambda: privcheck.mechanism("privquant", d=10**9, eps=1.0), "PrivQuant sums"),
    (lambda: privcheck.mechanism("fedsel-pe", d=10**9, k=2).exact_epsilon(), "exact eps of fedsel-pe"),
    (lambda: privcheck.audit(privcheck.mechanism("fedsel-pe", d=10**9, k=2), samples=1000), LIMIT),
    (lambda: privcheck.audit(privcheck.mechanism("de"), samples=10**10), "1e+09 draws"),
    (
        lambda: privcheck.check_estimator(
            lambda o: o, privcheck.Scenario("s", draw=lambda rng, n: rng.normal(size=n), target=0.0), replicates=10**12
        ),
        "replicates",
    ),
    (
        lambda: privcheck.audit(
            lambda x, n, rng: rng.integers(0, 2, size=(n, 100_000), dtype=np.int8),
            inputs=[0, 1],
            eps=1.0,
            samples=10_000,
        ),
        "outputs of 100000 values",
    ),
]


@pytest.mark.parametrize("call,needle", API, ids=range(len(API)))
def test_python_api_is_guarded_too(call, needle):
    t0 = time.perf_counter()
    with pytest.raises(ResourceLimitError) as info:
        call()
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert time.perf_counter() - t0 < 30


def test_the_limit_is_set_by_the_api_or_the_environment(monkeypatch):
    mech = privcheck.mechanism("de")
    prev = set_memory_limit("1K")
    try:
        with pytest.raises(ResourceLimitError, match="limit 1 KiB"):
            privcheck.audit(mech, samples=1000)
    finally:
        set_memory_limit(prev)
    monkeypatch.setenv("PRIVCHECK_MAX_MEMORY", "2K")
    with pytest.raises(ResourceLimitError, match="limit 2 KiB"):
        privcheck.audit(mech, samples=1000)
    monkeypatch.setenv("PRIVCHECK_MAX_MEMORY", ABOVE_RAM)
    with pytest.raises(ResourceLimitError, match="PRIVCHECK_MAX_MEMORY .* more than this machine's RAM"):
        memory_limit()


def test_timeout_of_the_api_is_capped():
    from privcheck.base.resources import call_with_timeout

    with pytest.raises(ResourceLimitError, match="timeout"):
        call_with_timeout(abs, (1,), 1e300)


# ---------------------------------------------------------------------------- Dask: connect and handshake

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="extra privcheck[dask] not installed"
)


@needs_dask
def test_unreachable_scheduler_is_one_line_quickly():
    port = _free_port()
    t0 = time.perf_counter()
    res = CliRunner().invoke(main, ["verify", "fedsel.ps.ratio", "--dask", f"tcp://127.0.0.1:{port}"])
    assert res.exit_code == 2
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith(
        f"privcheck: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"
    )
    assert time.perf_counter() - t0 < 60


def test_silent_address_is_one_line(monkeypatch):
    """A filtered address (no answer at all), mocked: never any traffic beyond loopback."""
    from privcheck.base import scheduler

    def silent(address, timeout=None):
        raise socket.timeout("timed out")

    monkeypatch.setattr(socket, "create_connection", silent)
    with pytest.raises(
        privcheck.PrivcheckUsageError,
        match="cannot reach the Dask scheduler at tcp://10.255.255.1:8786: no answer within 1 s",
    ):
        scheduler.probe_scheduler("tcp://10.255.255.1:8786", 1.0)


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.end_headers()


@pytest.fixture()
def http_port():
    srv = HTTPServer(("127.0.0.1", 0), _Quiet)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


@needs_dask
def test_http_port_is_not_a_scheduler(http_port):
    from privcheck.base.scheduler import DaskBackend

    t0 = time.perf_counter()
    with pytest.raises(privcheck.PrivcheckUsageError, match="does not answer as a Dask scheduler"):
        DaskBackend(f"tcp://127.0.0.1:{http_port}", connect_timeout=1.0)
    assert time.perf_counter() - t0 < 20


def _fake_server(first: bytes):
    """A loopback server that sends ``first`` on accept (a Dask scheduler sends its handshake length first)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        conn.sendall(first)
        time.sleep(0.5)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return srv


@pytest.mark.parametrize(
    "first,ok",
    [((300).to_bytes(8, "little"), True), (b"HTTP/1.0 400", False), (b"", False)],
    ids=["dask-like", "http-reply", "closes"],
)
def test_handshake_probe(first, ok):
    from privcheck.base.scheduler import probe_scheduler

    srv = _fake_server(first)
    addr = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    try:
        if ok:
            probe_scheduler(addr, 2.0)
        else:
            with pytest.raises(privcheck.PrivcheckUsageError, match="does not answer as a Dask scheduler"):
                probe_scheduler(addr, 2.0)
    finally:
        srv.close()


@needs_dask
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_with_a_local_cluster_leaves_nothing(tmp_path):
    """Ctrl-C to the process group: exit 130, no worker traceback, no scratch folder, no process left."""
    exe = shutil.which("privcheck", path=os.path.dirname(sys.executable))
    cmd = [exe] if exe else [sys.executable, "-m", "privcheck.cli"]
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen(
        [*cmd, "audit", "pm", "--samples", "100000000", "--dask", "local", "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    try:
        deadline = time.time() + 90
        while time.time() < deadline and not list(tmp_path.glob("privcheck-dask-*/*")):
            time.sleep(0.5)  # the cluster's workers have started
        time.sleep(3.0)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert [ln for ln in text.splitlines() if ln.strip()] == ["privcheck: interrupted"], text
    deadline = time.time() + 15  # killed workers are reaped by init: allow for a loaded machine
    while True:
        left = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True).stdout.split()
        if not left or time.time() > deadline:
            break
        time.sleep(0.5)
    assert not list(tmp_path.iterdir()), list(tmp_path.iterdir())
    assert not left, f"processes left behind: {left}"


def test_claim_file_sample_cap_follows_dask(tmp_path):
    """5e9 draws per input: refused at load for a local run, accepted at load when the run samples on Dask."""
    from privcheck.base.errors import PrivcheckUsageError
    from privcheck.claimsfile import load_user_file, unload_user_file

    path = _file(tmp_path, "s.toml", _BIG_SAMPLES.replace("{n}", str(5 * 10**9)))
    with pytest.raises(PrivcheckUsageError, match="on this machine"):
        load_user_file(path)
    try:
        assert load_user_file(path, distributed=True) == ["big.lap"]
    finally:
        unload_user_file(path)
