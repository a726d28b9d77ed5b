import os
import signal
import subprocess
import sys
import threading

# let tests import the small oracle modules beside them
sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402

# ---------------------------------------------------------------- no process outlives the test that started it
#
# Tests start the command line in subprocesses, some in sessions of their own (start_new_session=True: a
# signal test, a 10^8-draw Dask audit). Every such process is recorded here; its process group is killed
# when the test ends (autouse fixture), when pytest ends, and when pytest itself is stopped by SIGTERM or
# SIGHUP (a CI cancel). Each started process also gets the parent-death signal SIGTERM (Linux), so that
# even a pytest killed by SIGKILL takes the command line along, which then stops its own groups (only for
# processes started from the main thread: the kernel sends that signal when the forking thread ends).

_STARTED: dict[int, int] = {}  # pid -> process group to kill (its own group when it leads one)
_PDEATHSIG = None
if sys.platform.startswith("linux"):
    try:
        import ctypes

        _prctl = ctypes.CDLL(None, use_errno=True).prctl
        _PDEATHSIG = lambda: _prctl(1, int(signal.SIGTERM), 0, 0, 0)  # noqa: E731 - PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover
        _PDEATHSIG = None


class _TrackedPopen(subprocess.Popen):
    """``subprocess.Popen`` whose processes end with the test (see above)."""

    def __init__(self, *args, **kwargs):
        main = threading.current_thread() is threading.main_thread()  # the signal follows the forking thread
        if _PDEATHSIG is not None and main and kwargs.get("preexec_fn") is None:
            kwargs["preexec_fn"] = _PDEATHSIG
        super().__init__(*args, **kwargs)
        own_group = kwargs.get("start_new_session") or kwargs.get("process_group") == 0
        if own_group:
            _STARTED[self.pid] = self.pid


subprocess.Popen = _TrackedPopen  # type: ignore[misc]  # subprocess.run and check_output use it too


def kill_started_groups() -> None:
    """SIGKILL every process group a test started in a session of its own (best effort), then reap."""
    for pid, pgid in list(_STARTED.items()):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        _STARTED.pop(pid, None)


@pytest.fixture(autouse=True)
def _no_process_left_behind():
    """Kill the process groups the test started (it may have failed or been interrupted half-way)."""
    yield
    kill_started_groups()


def _stopped(signum, frame):  # pytest stopped by a signal: end what the tests started, then die of the signal
    kill_started_groups()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def pytest_configure(config):
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) in (signal.SIG_DFL, None):
            try:
                signal.signal(sig, _stopped)
            except ValueError:  # pragma: no cover - not the main thread
                pass


def pytest_unconfigure(config):
    kill_started_groups()


@pytest.fixture(scope="module")
def dask_client():
    """One LocalCluster of 2 single-threaded worker processes per test module (starting one costs seconds);
    skipped when dask.distributed is not installed."""
    import logging

    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
