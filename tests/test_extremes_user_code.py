"""Hostile user code on the command line (issue 19 §1–2 and §6, issue 18 §6): a table of cases.

Each row runs ``privcheck`` as a real process (exit codes, signals, ``os._exit``
and segfaults need one) and states the expected exit code and the line that
must say what happened: for verdict ``error`` (exit 1) the summary's ``reason``
line names the user function and what it did; for a refusal (exit 2) standard
error is exactly one line. Never exit 0, never 3, never a traceback, never a hang.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

USER = textwrap.dedent("""
    import os, sys, time
    import numpy as np

    def lap(x, n, rng):
        return x + rng.laplace(0.0, 1.0, n)

    def exits(x, n, rng):
        if n > 100:
            sys.exit(0)
        return lap(x, n, rng)

    def os_exit(x, n, rng):
        if n > 100:
            os._exit(0)
        return lap(x, n, rng)

    def interrupt(x, n, rng):
        if n > 100:
            raise KeyboardInterrupt
        return lap(x, n, rng)

    def segfault(x, n, rng):
        if n > 100:
            import ctypes, faulthandler
            faulthandler.disable()
            ctypes.string_at(0)
        return lap(x, n, rng)

    def memory(x, n, rng):
        if n > 100:
            raise MemoryError
        return lap(x, n, rng)

    def big_chunks(x, n, rng):
        if n > 100:
            raise ValueError("chunk too large")
        return lap(x, n, rng)

    def infinite(x, n, rng):
        out = lap(x, n, rng)
        out[0] = np.inf
        return out

    def sleeps(x, n, rng):
        if n > 100:
            time.sleep(3600)
        return lap(x, n, rng)

    def spins(x, n, rng):
        while n > 100:
            pass
        return lap(x, n, rng)

    def fixed_seed(x, n, rng):
        return x + np.random.default_rng(42).laplace(0.0, 1.0, n)

    def chatty(x, n, rng):
        print("hello from the user's code")
        keep = rng.random(n) < np.e / (1 + np.e)  # randomised response on {0, 1}: exactly 1-DP
        return np.where(keep, x, 1 - x)

    def one_output(x, rng):
        return x + rng.laplace()

    def exits_one(x, rng):
        if rng.random() < 0.001:
            os._exit(3)
        return x + rng.laplace()

    def crash_one(x, rng):
        return {}[x]
""")

SLOW_IMPORT = "import time\ntime.sleep(3600)\ndef f(x, n, rng):\n    return rng.random(n)\n"
LOOP_IMPORT = "while True:\n    pass\n"

AUDIT = ["audit", "--input", "0", "--input", "1", "--eps", "1", "--samples", "2000", "--jobs", "1"]


def _audit(fn, *extra):
    return [*AUDIT[:1], f"usermech:{fn}", *AUDIT[1:], *extra]


#: (id, arguments, exit code, text of the reason line (exit 1) or of the one stderr line (exit 2))
CASES = [
    ("sys.exit", _audit("exits"), 1, "usermech:exits called sys.exit(0) at input 0"),
    ("os._exit", _audit("os_exit"), 1, "usermech:os_exit ended the process running it with exit code 0"),
    ("KeyboardInterrupt", _audit("interrupt"), 1, "usermech:interrupt raised KeyboardInterrupt"),
    ("segfault", _audit("segfault"), 1, "usermech:segfault crashed the process running it (SIGSEGV"),
    ("MemoryError", _audit("memory"), 1, "usermech:memory ran out of memory (MemoryError)"),
    ("raises on large chunks", _audit("big_chunks"), 1, "usermech:big_chunks raised ValueError: chunk too large"),
    ("returns inf", _audit("infinite"), 1, "usermech:infinite returned inf at input 0"),
    ("sleeps", _audit("sleeps", "--timeout", "2"), 1, "usermech:sleeps timed out after 2 s"),
    ("spins", _audit("spins", "--timeout", "2"), 1, "usermech:spins timed out after 2 s"),
    ("sleeps at import", [*AUDIT[:1], "slowmod:f", *AUDIT[1:], "--timeout", "2"], 1, "slowmod:f timed out after 2 s"),
    (
        "os._exit in a worker process",
        [
            "audit",
            "usermech:exits_one",
            "--per-sample",
            "--input",
            "0",
            "--input",
            "1",
            "--eps",
            "1",
            "--samples",
            "20000",
            "--jobs",
            "2",
        ],
        1,
        "usermech:exits_one ended the process running it with exit code 3",
    ),
    ("fixed internal seed", _audit("fixed_seed"), 2, "usermech:fixed_seed ignores the generator it is given"),
    ("vectorised call of one-output code", _audit("one_output"), 2, "add --per-sample"),
    ("timeout out of range", _audit("lap", "--timeout", "1e300"), 2, "--timeout must be a number of seconds"),
    (
        "verify: file sleeps at import",
        ["verify", "--file", "slow_claims.py", "--timeout", "2"],
        2,
        "loading slow_claims.py timed out after 2 s",
    ),
    (
        "verify: file loops at import",
        ["verify", "--file", "loop_claims.py", "--timeout", "2"],
        2,
        "loading loop_claims.py timed out after 2 s",
    ),
    (
        "verify: TOML sampler module sleeps at import",
        ["verify", "--file", "slow.toml", "--timeout", "2"],
        2,
        "loading slow.toml timed out after 2 s",
    ),
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile_user_code")
    (d / "usermech.py").write_text(USER)
    (d / "slowmod.py").write_text(SLOW_IMPORT)
    (d / "slow_claims.py").write_text(SLOW_IMPORT)
    (d / "loop_claims.py").write_text(LOOP_IMPORT)
    (d / "slow.toml").write_text('[[privacy]]\nid = "u.slow"\nsampler = "slowmod:f"\ninputs = [0, 1]\neps = 1.0\n')
    (d / "exits.toml").write_text(
        '[[privacy]]\nid = "u.exits"\nsampler = "usermech:exits"\ninputs = [0, 1]\n'
        'eps = 0.5\nexpect = "refuted"\nsamples = 2000\n'
    )
    (d / "chatty.toml").write_text(
        '[[privacy]]\nid = "u.chatty"\nsampler = "usermech:chatty"\ninputs = [0, 1]\neps = 2.0\nsamples = 2000\n'
    )
    return d


#: rows that need a real ``privcheck`` process (its Ctrl-C handler tells Ctrl-C from user code)
REAL_PROCESS = {"KeyboardInterrupt"}


class _Result:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _privcheck(workdir, args, timeout=120, real_process=True):
    """Run the CLI: as a process, or in this process with click's runner (user code still runs in a child)."""
    if not real_process:
        from click.testing import CliRunner

        from privcheck.cli import main

        cwd = os.getcwd()
        os.chdir(workdir)
        try:
            res = CliRunner().invoke(main, list(args), catch_exceptions=False)
        finally:
            os.chdir(cwd)
        return _Result(res.exit_code, res.stdout, res.stderr)
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-c", "from privcheck.cli import main; main()", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("case, args, code, text", CASES, ids=[c[0] for c in CASES])
def test_hostile_user_code(workdir, case, args, code, text):
    r = _privcheck(workdir, args, real_process=case in REAL_PROCESS)
    assert "Traceback" not in r.stdout + r.stderr, r.stderr[-2000:]
    assert r.returncode == code, (r.returncode, r.stdout[-1000:], r.stderr[-1000:])
    if code == 1:
        reason = [ln for ln in r.stdout.splitlines() if ln.startswith("reason")]
        assert len(reason) == 1 and text in reason[0], r.stdout
        assert r.stdout.splitlines()[-1].startswith("verdict        error")
    elif code == 2:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("privcheck: error: ") and text in lines[0], r.stderr


def test_verify_file_exit_is_an_error_and_junit_is_written(workdir):
    """sys.exit(0) inside a sampler of a claim expected to be refuted: error on the check's line, exit 1, JUnit."""
    junit = workdir / "exits.xml"
    r = _privcheck(workdir, ["verify", "--file", "exits.toml", "--junit", str(junit)], real_process=False)
    assert r.returncode == 1, r.stderr
    assert "usermech:exits called sys.exit(0)" in r.stdout + r.stderr
    xml = junit.read_text()
    assert '<error message="usermech:exits called sys.exit(0)' in xml


@pytest.mark.parametrize(
    "args",
    [
        _audit("chatty", "--json", "-"),
        ["verify", "--file", "chatty.toml", "--json", "-"],
    ],
    ids=["audit", "verify"],
)
def test_user_print_does_not_corrupt_json(workdir, args):
    r = _privcheck(workdir, args)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)  # the user's print went to standard error
    assert "hello from the user's code" in r.stderr
    assert (data["verdict"] if isinstance(data, dict) else data[0]["verdict"]) == "holds"


def test_debug_shows_the_users_traceback_without_a_misleading_hint(workdir):
    r = _privcheck(
        workdir,
        ["audit", "usermech:crash_one", "--per-sample", "--input", "0", "--input", "1", "--eps", "1", "--debug"],
        real_process=False,
    )
    assert r.returncode == 2
    assert 'usermech.py", line' in r.stderr and "in crash_one" in r.stderr and "KeyError" in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("privcheck: error: calling usermech:crash_one at input 0 failed: KeyError")
    assert "per-sample" not in last


@pytest.mark.parametrize(
    "name, text",
    [
        ("exit_claims.py", "import os\nos._exit(0)\n"),
        ("probe_exit.toml", '[[privacy]]\nid = "u.probe_exit"\nsampler = "exitmod:f"\ninputs = [0, 1]\neps = 1.0\n'),
    ],
)
def test_os_exit_while_loading_a_claims_file_never_passes(workdir, name, text):
    """os._exit(0) at import of a claims file or in a sampler probed while it loads: exit 1 and one line, not 0."""
    (workdir / "exitmod.py").write_text("import os\ndef f(x, n, rng):\n    os._exit(0)\n")
    (workdir / name).write_text(text)
    r = _privcheck(workdir, ["verify", "--file", name])
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert lines == [
        "privcheck: error: the user's code ended the process running the claims with exit code 0 "
        "(os._exit or an exit from C code) before the run finished; no report was written"
    ]
