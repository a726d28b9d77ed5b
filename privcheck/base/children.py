"""Process lifetime: the child process groups privcheck starts end with it, however it ends.

privcheck runs user code (and checks under a deadline) in forked children that lead process groups
of their own (:func:`privcheck.base.resources.call_with_timeout`); such a child may start worker
pools, a forkserver, a local Dask cluster or the user's own subprocesses, all in its group. Three
layers make sure nothing of a group outlives the process that started it:

1. **Registry and stop signals.** Every group is registered here (:func:`register_group`) while it
   runs. On SIGTERM, SIGHUP or SIGINT the command line calls :func:`kill_groups` (SIGKILL to every
   registered group) before it exits with ``128 + signal number`` (143, 129, 130):
   :func:`install_stop_handlers`.
2. **Parent-death signal.** A child asks the kernel to signal it when its parent dies
   (``prctl(PR_SET_PDEATHSIG)`` on Linux: :func:`die_with_parent`), so a parent killed by SIGKILL or
   the out-of-memory killer still takes its child along.
3. **Watchdog pipe.** The group also holds a tiny reaper process (:func:`start_reaper`) blocked on
   reading a pipe whose only write end the parent holds: when the parent dies, by any means, the
   read returns end-of-file and the reaper kills the whole group (the child's own children
   included, which the parent-death signal alone would leave behind). This layer needs no Linux.

Functions: :func:`register_group`, :func:`forget_group`, :func:`kill_groups`, :func:`die_with_parent`,
:func:`start_reaper`, :func:`lead_group`, :func:`install_stop_handlers`, :func:`exit_code_of`,
:func:`signal_name`, :func:`scratch_prefix`, :func:`remove_scratch_of`.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Callable

#: the signals that stop a run (a CI cancel, ``timeout``, a Kubernetes stop, a closed terminal, Ctrl-C)
STOP_SIGNALS = tuple(getattr(signal, s) for s in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, s))
#: ``prctl`` option number of PR_SET_PDEATHSIG (linux/prctl.h)
PR_SET_PDEATHSIG = 1

_GROUPS: set[int] = set()
_OWNER: list[int] = [os.getpid()]  # the process whose registry _GROUPS is (a forked child starts empty)


def _registry() -> set[int]:
    if _OWNER[0] != os.getpid():  # inherited through fork: the parent's groups are not this process's
        _GROUPS.clear()
        _OWNER[0] = os.getpid()
    return _GROUPS


def register_group(pgid: int) -> None:
    """Record that this process started the process group ``pgid`` (killed by :func:`kill_groups`)."""
    if pgid and pgid > 0 and pgid != os.getpgrp():
        _registry().add(int(pgid))


def forget_group(pgid: int) -> None:
    """Forget ``pgid`` (its members have been killed or have ended)."""
    _registry().discard(int(pgid))


def kill_groups(sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` (default SIGKILL) to every process group this process registered, remove their
    scratch folders (:func:`scratch_prefix`) and forget them. Errors are ignored (best effort at exit)."""
    for pgid in list(_registry()):
        try:
            os.killpg(pgid, sig)
        except OSError:  # gone already, or not ours any more
            pass
        remove_scratch_of(pgid)
        _GROUPS.discard(pgid)


#: scratch folders (a local Dask cluster's) are named after the process group that made them
SCRATCH_PREFIX = "privcheck-dask-"


def scratch_prefix() -> str:
    """The name prefix of a scratch folder made by this process: ``privcheck-dask-g<process group>-``.

    A group killed from outside cannot remove its own folders; the process that started it removes
    them by this name (:func:`remove_scratch_of`).
    """
    return f"{SCRATCH_PREFIX}g{os.getpgrp()}-"


def remove_scratch_of(pgid: int) -> None:
    """Remove the scratch folders that members of process group ``pgid`` made in the temporary folder."""
    import glob
    import shutil
    import tempfile

    try:
        found = glob.glob(os.path.join(tempfile.gettempdir(), f"{SCRATCH_PREFIX}g{int(pgid)}-*"))
    except Exception:  # noqa: BLE001 - best effort
        return
    for path in found:
        shutil.rmtree(path, ignore_errors=True)


def lead_group() -> None:
    """In a freshly forked child: become the leader of a new process group (what it starts joins it)."""
    try:
        os.setpgid(0, 0)
    except OSError:  # pragma: no cover - not permitted (e.g. a session leader): the child alone is stopped
        pass


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies (Linux ``PR_SET_PDEATHSIG``).

    Returns False where that is not available (then only the watchdog pipe of :func:`start_reaper`
    guards the child). ``parent``: the parent's pid as seen before the call; if the parent died
    already (the race between fork and this call), this process exits at once with code 1.
    """
    ok = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            ok = libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            ok = False
    if parent is not None and os.getppid() != parent:
        os._exit(1)
    return ok


def start_reaper(alive_r: int, pgid: int | None = None) -> int | None:
    """Fork a reaper into this process's group that kills the group when ``alive_r`` reaches end-of-file.

    ``alive_r`` is the read end of a pipe whose write end only the parent (the process that must be
    outlived by nobody) holds: the caller must have closed every other copy of the write end first.
    Returns the reaper's pid (None if it could not be forked). The reaper ignores Ctrl-C, takes
    SIGTERM/SIGHUP with their default action and never runs Python clean-up (``os._exit``).
    """
    pgid = os.getpgrp() if pgid is None else pgid
    try:
        pid = os.fork()
    except OSError:  # pragma: no cover - out of processes: the other layers remain
        return None
    if pid:
        return pid
    try:  # the reaper: nothing but a blocking read, then the group's end
        _close_all_but(alive_r)  # holding the child's pipes or the caller's stdout would delay their end-of-file
        for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)):
            if s is not None:
                signal.signal(s, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            try:
                if not os.read(alive_r, 64):
                    break
            except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for clarity
                continue
            except OSError:
                break
        os.killpg(pgid, signal.SIGKILL)
    finally:
        os._exit(0)


def _close_all_but(keep: int) -> None:
    try:
        top = os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):  # pragma: no cover
        top = 1024
    top = min(int(top) if top and top > 0 else 1024, 1 << 16)
    os.closerange(0, keep)
    os.closerange(keep + 1, top)


def exit_code_of(signum: int) -> int:
    """The conventional exit code of a run stopped by signal ``signum``: ``128 + signum`` (SIGTERM: 143)."""
    return 128 + int(signum)


def signal_name(signum: int) -> str:
    """``"SIGTERM"`` for 15 (the number as text if the signal has no name here)."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def install_stop_handlers(on_stop: Callable[[int], None], signals: tuple = ()) -> list[int]:
    """Handle ``signals`` (default SIGTERM and SIGHUP) in the main thread of this process.

    The handler kills every registered group (:func:`kill_groups`) and then calls
    ``on_stop(signum)`` in the process that installed it (the command line: a message, clean-up and
    ``os._exit(128 + signum)``); a forked child that inherited the handler (a worker process) only
    kills its own groups and exits with ``128 + signum`` at once. Returns the signals installed
    (none outside the main thread).
    """
    owner = os.getpid()
    wanted = signals or tuple(s for s in STOP_SIGNALS if s != signal.SIGINT)

    def handler(signum, frame):
        kill_groups()
        if os.getpid() != owner:
            os._exit(exit_code_of(signum))
        on_stop(signum)

    done = []
    for s in wanted:
        try:
            signal.signal(s, handler)
            done.append(s)
        except (ValueError, OSError):  # not the main thread, or not a signal here
            pass
    return done
