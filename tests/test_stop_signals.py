"""Nothing left running: SIGTERM / SIGHUP / SIGINT end every process group privcheck started, with 128 + signal.

The real console script runs in a session of its own on user code that busy-loops or sleeps (and starts
a grandchild ``sleep`` of its own); once the user code runs (it touches a marker file) the signal goes to
the main process alone, as ``timeout``, a CI cancel or ``kill`` send it. The exit code must be the
conventional one and no process of the session may be left (zombies awaiting their reaper are dead and
not counted). Also: the parent killed by SIGKILL takes its groups along, ``--max-memory`` bounds user code,
and a claims file's thread or ``atexit`` handler cannot hold ``verify``. Waits are bounded and generous
(a loaded 2-core machine); nothing asserts a tight time.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups")

USER_CODE = """
import os, subprocess, time

def _started():
    subprocess.Popen(["sleep", "1000"])  # the user's own grandchild: it must end with the run
    open(os.environ["PRIVCHECK_TEST_MARK"], "w").close()

def busy(x, n, rng):
    _started()
    while True:
        pass

def sleepy(x, n, rng):
    _started()
    time.sleep(1000)

def alloc(x, n, rng):
    import numpy as np
    keep = []
    while True:
        keep.append(np.ones(10**7))
"""

CLAIMS = """
from privcheck import Claim, check
from privcheck.claims import CATALOGUE
import mod

CATALOGUE.add_claim(Claim("t.busy", "test", "test", "formula", "loops forever", ("numeric",)))

@check("t.busy", "numeric")
def _busy(ctx):
    mod.busy(0, 1, None)
"""

HOLDING = """
import atexit, threading, time
from proofs.formula import formula_claim

threading.Thread(target=lambda: time.sleep(1000)).start()  # not a daemon
atexit.register(lambda: time.sleep(1000))
formula_claim("t.var", derived="p - p^2", printed="p*(1 - p)", assumptions={"p": "(0,1)"}, expect="holds")
"""


def _privcheck() -> list[str]:
    exe = shutil.which("privcheck", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "privcheck.cli"]


def _load() -> float:
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def _alive(sid: int) -> list[str]:
    """Processes of session ``sid`` that are not zombies (``pid state command``)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,sid=,stat=,args="], capture_output=True, text=True).stdout
    rows = [ln.split(None, 3) for ln in out.splitlines()]
    return [" ".join([r[0], r[2], r[3] if len(r) > 3 else ""]) for r in rows if len(r) >= 3 and r[1] == str(sid)]


def _alive_not_zombie(sid: int) -> list[str]:
    return [row for row in _alive(sid) if not row.split()[1].startswith("Z")]


def _wait_gone(sid: int, seconds: float = 15.0) -> list[str]:
    deadline = time.monotonic() + seconds * _load()
    while True:
        left = _alive_not_zombie(sid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "mod.py").write_text(USER_CODE)
    (tmp_path / "busy_claims.py").write_text(CLAIMS)
    (tmp_path / "holding_claims.py").write_text(HOLDING)
    return tmp_path


def _start(workdir, args: list[str]) -> subprocess.Popen:
    env = dict(os.environ, PRIVCHECK_TEST_MARK=str(workdir / "started"), PYTHONPATH=str(workdir))
    return subprocess.Popen(
        [*_privcheck(), *args],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_started(proc: subprocess.Popen, workdir, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds * _load()
    while not (workdir / "started").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the user code never started"
        time.sleep(0.1)
    time.sleep(0.3)  # its grandchild is started too


AUDIT = ["audit", "--input", "0", "--input", "1", "--eps", "1"]


@pytest.mark.parametrize(
    "args, sig",
    [
        (["audit", "mod:busy", *AUDIT[1:]], signal.SIGTERM),
        (["audit", "mod:sleepy", *AUDIT[1:]], signal.SIGTERM),
        (["audit", "mod:sleepy", *AUDIT[1:]], signal.SIGHUP),
        (["audit", "mod:busy", *AUDIT[1:]], signal.SIGINT),
        (["verify", "--file", "busy_claims.py"], signal.SIGTERM),
    ],
    ids=["audit-busy-TERM", "audit-sleep-TERM", "audit-sleep-HUP", "audit-busy-INT", "verify-TERM"],
)
def test_a_stop_signal_ends_every_group_with_the_conventional_code(workdir, args, sig):
    proc = _start(workdir, args)
    try:
        _wait_started(proc, workdir)
        before = _alive_not_zombie(proc.pid)
        assert len(before) >= 3, before  # privcheck, the user-code child (+ its reaper), the grandchild sleep
        os.kill(proc.pid, sig)  # the main process alone, as `timeout` or a CI runner sends it
        _, err = proc.communicate(timeout=30 * _load())
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = err.decode()
    assert proc.returncode == 128 + sig, text
    assert "Traceback" not in text, text
    expected = "privcheck: interrupted" if sig == signal.SIGINT else f"privcheck: terminated by {sig.name}"
    assert text.strip().splitlines()[-1] == expected, text
    left = _wait_gone(proc.pid)
    assert not left, f"processes left behind: {left}"


def test_children_die_with_a_killed_parent(workdir):
    """SIGKILL of privcheck itself (no handler runs): the parent-death signal and the reaper end its groups."""
    proc = _start(workdir, ["audit", "mod:busy", *AUDIT[1:]])
    try:
        _wait_started(proc, workdir)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    left = _wait_gone(proc.pid)
    assert not left, f"processes left behind: {left}"


def test_max_memory_bounds_user_code(workdir):
    """A sampler that keeps allocating: verdict error "ran past --max-memory", exit 1, never the machine's RAM."""
    proc = _start(workdir, ["audit", "mod:alloc", *AUDIT[1:], "--max-memory", "400M"])
    try:
        out, err = proc.communicate(timeout=120 * _load())
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = out.decode()
    assert proc.returncode == 1, (text, err.decode())
    reason = [ln for ln in text.splitlines() if ln.startswith("reason")]
    assert len(reason) == 1 and "mod:alloc ran past --max-memory (400 MiB)" in reason[0], text
    assert "verdict        error" in text, text


def test_max_memory_from_the_environment_bounds_claims_file_samplers(workdir):
    (workdir / "alloc.toml").write_text(
        '[[privacy]]\nid = "t.alloc"\nsampler = "mod:alloc"\ninputs = [0, 1]\neps = 1.0\n'
    )
    env = dict(os.environ, PRIVCHECK_MAX_MEMORY="400M", PYTHONPATH=str(workdir))
    res = subprocess.run(
        [*_privcheck(), "verify", "--file", "alloc.toml"], cwd=workdir, env=env, capture_output=True, timeout=180
    )
    err = res.stderr.decode()
    assert res.returncode == 1, err
    assert "mod:alloc ran past --max-memory (400 MiB)" in err and "Traceback" not in err, err


def test_a_claims_file_thread_or_atexit_handler_cannot_hold_verify(workdir):
    t0 = time.monotonic()
    res = subprocess.run(
        [*_privcheck(), "verify", "--file", "holding_claims.py"],
        cwd=workdir,
        capture_output=True,
        timeout=120 * _load(),
        start_new_session=True,
    )
    assert res.returncode == 0, res.stderr.decode()
    assert "1 holds" in res.stdout.decode()
    # the supervisor's grace (5 s) is not what ended it: the child exits as soon as it has reported
    assert time.monotonic() - t0 < 30 * _load()


INNER_TEST = """
import os, subprocess, time

def test_sleeps():
    p = subprocess.Popen(["sleep", "1000"], start_new_session=True)
    open(os.environ["INNER_PID_FILE"], "w").write(str(p.pid))
    time.sleep(1000)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_an_interrupted_test_run_leaves_no_session_behind(tmp_path, sig):
    """pytest (with this conftest) stopped while a test's process runs in a session of its own: it ends too."""
    (tmp_path / "test_inner.py").write_text(INNER_TEST)
    pid_file = tmp_path / "pid"
    here = os.path.dirname(__file__)
    env = dict(os.environ, INNER_PID_FILE=str(pid_file), PYTHONPATH=here)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest", "test_inner.py"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60 * _load()
        while not (pid_file.exists() and pid_file.read_text()):
            assert proc.poll() is None and time.monotonic() < deadline, "the inner test never started"
            time.sleep(0.1)
        sleeper = int(pid_file.read_text())
        os.kill(proc.pid, sig)
        proc.wait(timeout=30 * _load())
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 15 * _load()
    while _alive_not_zombie(sleeper) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive_not_zombie(sleeper), "the test's own session outlived pytest"
