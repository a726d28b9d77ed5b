"""Resource limits: the memory limit every size check reads, and per-check timeouts in child processes.

A verifier must not take the machine down: a request such as an audit of ``fedsel-pe`` with
``d = 10^9`` or a Monte Carlo run with ``10^20`` draws is refused up front with one line
instead of growing until the operating system kills it. The limit is ``--max-memory``
(default :data:`DEFAULT_MEMORY_SHARE` of the machine's RAM); the audit's own estimate is
:mod:`privcheck.auditor.sizing`.

The same limit guards every path — the CLI, claim files and the Python API:
:func:`memory_limit` is ``--max-memory`` when the command line set it
(:func:`set_memory_limit`), else the environment variable
``PRIVCHECK_MAX_MEMORY``, else the default; size checks in mechanisms,
estimators and accountants call :func:`check_memory` with their own estimate
before they allocate. A limit above the machine's RAM is refused.

Functions: :func:`total_memory`, :func:`default_max_memory`, :func:`parse_memory`,
:func:`memory_limit`, :func:`set_memory_limit`, :func:`check_memory`, :func:`check_samples`,
:func:`check_timeout`, :func:`call_with_timeout`. Exceptions: :class:`ResourceLimitError` (a
:class:`PrivcheckUsageError`: one line, CLI exit code 2).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from typing import Any

from privcheck.base.errors import PrivcheckUsageError

#: share of the machine's RAM a request may use by default
DEFAULT_MEMORY_SHARE = 0.5
#: the largest Monte Carlo size per input accepted on this machine (≈ minutes to an hour at 10^6–10^7 draws/s)
MAX_SAMPLES_LOCAL = 10**9
#: the largest Monte Carlo size per input accepted on a Dask cluster (10^10 draws in an hour on ~a dozen cores)
MAX_SAMPLES = 10**10
#: the shortest per-check deadline accepted (seconds): starting the child process that enforces it takes longer
MIN_TIMEOUT = 0.01
#: the longest per-check deadline accepted (seconds; 30 days)
MAX_TIMEOUT = 30 * 86400.0
#: environment variable holding the memory limit (same syntax as --max-memory) for every path
MEMORY_ENV = "PRIVCHECK_MAX_MEMORY"
#: how to raise the limit, ending every refusal
RAISE_HINT = f"raise --max-memory (or the environment variable {MEMORY_ENV})"
#: default per-check timeout (seconds) for checks from user claim files
DEFAULT_USER_TIMEOUT = 600.0


class ResourceLimitError(PrivcheckUsageError):
    """A request whose estimated memory or size exceeds the limit (one line; exit code 2)."""


def total_memory() -> int:
    """The machine's physical memory in bytes (``/proc/meminfo`` MemTotal, else ``os.sysconf``; 8 GiB if unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def default_max_memory() -> int:
    """The default limit: :data:`DEFAULT_MEMORY_SHARE` of :func:`total_memory`."""
    return int(total_memory() * DEFAULT_MEMORY_SHARE)


_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
    "tib": 1 << 40,
}


def parse_memory(text: Any, name: str = "--max-memory") -> int:
    """Bytes from ``"4G"``, ``"512MiB"``, ``"1e9"`` (bytes) or ``"50%"`` (of the machine's RAM).

    Domain: (0, :func:`total_memory`]; a size above the machine's RAM is refused
    (a limit the machine cannot honour protects nothing).
    """
    s = str(text).strip().lower()
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(%|[a-z]*)", s)
    if not m or (m.group(2) not in _UNITS and m.group(2) != "%"):
        raise ResourceLimitError(f"{name} must be a size such as 4G, 512M, 1e9 or 50%, got {text!r}")
    val = float(m.group(1))
    if m.group(2) == "%":
        if not 0 < val <= 100:
            raise ResourceLimitError(f"{name} as a percentage must be in (0, 100], got {text!r}")
        return int(total_memory() * val / 100)
    out = val * _UNITS[m.group(2)]
    if not (math.isfinite(out) and out >= 1):
        raise ResourceLimitError(f"{name} must be a positive size, got {text!r}")
    ram = total_memory()
    if out > ram:
        raise ResourceLimitError(
            f"{name} {text} is more than this machine's RAM ({format_bytes(ram)}); "
            f"give at most {ram >> 20}M or a percentage such as 80%"
        )
    return int(out)


_LIMIT: list[int | None] = [None]  # set by the command line's --max-memory


def set_memory_limit(limit: int | str | None) -> int | None:
    """Set the process-wide memory limit (bytes, a size text for :func:`parse_memory`, or None for the default).

    The command line calls it with ``--max-memory``; forked workers inherit it.
    Returns the previous explicit limit (None when there was none).
    """
    prev = _LIMIT[0]
    _LIMIT[0] = None if limit is None else (parse_memory(limit) if isinstance(limit, str) else int(limit))
    return prev


@contextlib.contextmanager
def memory_limit_scope():
    """Restore the explicit limit in force on entry when the block ends (one CLI command = one scope)."""
    prev = _LIMIT[0]
    try:
        yield
    finally:
        _LIMIT[0] = prev


def memory_limit() -> int:
    """The limit in force: :func:`set_memory_limit`, else ``$PRIVCHECK_MAX_MEMORY``, else :func:`default_max_memory`."""
    if _LIMIT[0] is not None:
        return _LIMIT[0]
    env = os.environ.get(MEMORY_ENV)
    if env:
        return parse_memory(env, MEMORY_ENV)
    return default_max_memory()


def check_memory(what: str, nbytes: float, lower: str) -> None:
    """Refuse (one line, :class:`ResourceLimitError`) a computation estimated at ``nbytes`` above :func:`memory_limit`.

    what: the request in the user's words (``"randomised response with k=1e9"``);
    nbytes: the estimate (may be a float or inf: no overflow); lower: what to
    lower (``"lower k"``). The message says what, the estimate, the limit and
    how to raise it. Called before the allocation, from the parameters alone.
    """
    limit = memory_limit()
    if not nbytes <= limit:
        est = format_bytes(nbytes) if math.isfinite(nbytes) else "an unbounded amount"
        raise ResourceLimitError(
            f"{what} would need about {est}, more than the limit {format_bytes(limit)}; {lower}, or {RAISE_HINT}"
        )


def check_timeout(value: Any, name: str = "--timeout") -> float:
    """A per-check deadline in seconds: a number in [:data:`MIN_TIMEOUT`, :data:`MAX_TIMEOUT`] (one-line refusal
    otherwise)."""
    from privcheck.base.validation import check_positive

    out = check_positive(name, value)
    if out < MIN_TIMEOUT:
        raise ResourceLimitError(
            f"{name} {out:g} s is too short for a check to even start; give at least {MIN_TIMEOUT:g} seconds"
        )
    if out > MAX_TIMEOUT:
        raise ResourceLimitError(
            f"{name} must be a number of seconds in (0, {MAX_TIMEOUT:.0f}] (30 days), got {value!r}"
        )
    return out


def format_bytes(n: float) -> str:
    """``n`` bytes as a short human-readable string (``1.5 GiB``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if abs(n) < 1024 or unit == "EiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} EiB"  # pragma: no cover


def dimension_of(mech: Any) -> int:
    """The length of one input/output vector of a built-in mechanism (1 for scalars), from its parameters."""
    params = getattr(mech, "params", {}) or {}
    d = params.get("d", getattr(mech, "d", 1))
    try:
        return max(1, int(d))
    except (TypeError, ValueError):
        return 1


def check_samples(samples: Any, name: str = "--samples", *, distributed: bool = True) -> int | None:
    """Refuse Monte Carlo sizes above :data:`MAX_SAMPLES` per input (``None`` passes).

    ``distributed=False`` (the run samples on this machine) lowers the limit to
    :data:`MAX_SAMPLES_LOCAL`: 10^10 draws per input are hours here, so such a
    request is refused instead of looking like a hang.
    """
    if samples is None:
        return None
    limit = MAX_SAMPLES if distributed else MAX_SAMPLES_LOCAL
    if samples > limit:
        where = "" if distributed else f" on this machine ({MAX_SAMPLES:.0e} with --dask on a cluster)"
        raise ResourceLimitError(
            f"{name} {samples:g} is beyond what can be sampled in reasonable time and memory; "
            f"the limit is {limit:.0e} draws per input{where}"
        )
    return samples


class CheckTimeout(Exception):
    """A call that did not finish within its time limit (the process running it was stopped)."""


class ChildDied(RuntimeError):
    """The child process of :func:`call_with_timeout` ended without an answer; ``what`` says how, in words."""

    def __init__(self, exitcode: int | None):
        self.exitcode = exitcode
        self.what = describe_exit(exitcode)
        super().__init__(f"the process running the check died: {self.what}")


def describe_exit(exitcode: int | None) -> str:
    """How a process ended, in words: ``os._exit(N)``/``exit(N)`` for a code, the signal's name for a crash."""
    import signal

    if exitcode is None:
        return "stopped the process running it without an exit code"
    if exitcode < 0:
        try:
            sig = signal.Signals(-exitcode).name
        except ValueError:
            sig = f"signal {-exitcode}"
        hint = {
            "SIGSEGV": "a segmentation fault",
            "SIGKILL": "killed, e.g. by the out-of-memory killer",
            "SIGABRT": "aborted",
            "SIGBUS": "a bus error",
            "SIGFPE": "a floating-point exception",
        }.get(sig, "")
        return f"crashed the process running it ({sig}{': ' + hint if hint else ''})"
    return f"ended the process running it with exit code {exitcode} (os._exit or an exit from C code)"


def call_with_timeout(fn, args: tuple, timeout: float, passthrough: tuple = (), *, limit_memory: bool = False):
    """Run ``fn(*args)`` in a forked child process and return its result, or raise :class:`CheckTimeout`.

    The child is terminated (then killed) when ``timeout`` seconds pass, so a
    check that loops forever cannot block a run. The result travels back pickled;
    an exception in the child is re-raised here as ``RuntimeError`` with its
    one-line description, or as itself when it is an instance of one of the
    ``passthrough`` types; a child that dies without answering (``os._exit``, a
    segfault) raises :class:`ChildDied`. Works the same inside the runner's
    worker processes (jobs > 1) and in the main process (jobs = 1). Ctrl-C stops the child too.

    The child leads a process group of its own (whatever it starts joins it), registered with
    :mod:`privcheck.base.children` so that SIGTERM/SIGHUP/SIGINT of the command line kill it; it dies
    with this process (parent-death signal on Linux, and a reaper on a watchdog pipe that kills the
    group when this process ends by any means). ``limit_memory``: cap the child's address space at
    its size when it starts plus :func:`memory_limit` (:func:`limit_child_memory`), so user code
    that keeps allocating fails with ``MemoryError`` instead of growing to the machine's limit.
    """
    import multiprocessing as mp

    from privcheck.base import children

    timeout = check_timeout(timeout, "timeout")
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    parent = os.getpid()
    cap = memory_limit() if limit_memory else None
    alive_r, alive_w = os.pipe()

    def target() -> None:
        children.lead_group()  # its own process group: whatever it starts (worker pools, a forkserver) ends with it
        os.close(alive_w)  # only the parent may hold the write end: its death is the reaper's end-of-file
        children.die_with_parent(parent=parent)
        children.start_reaper(alive_r)
        os.close(alive_r)
        _forget_forkserver()
        if cap is not None:
            limit_child_memory(cap)
        try:
            res = ("ok", fn(*args))
        except BaseException as exc:  # noqa: BLE001 — reported to the parent, never hidden
            res = (
                ("raise", exc)
                if passthrough and isinstance(exc, passthrough)
                else ("exc", f"{type(exc).__name__}: {exc}")
            )
        try:
            send.send(res)
        except Exception as exc:  # noqa: BLE001
            send.send(("exc", f"result could not be sent back: {type(exc).__name__}: {exc}"))

    proc = ctx.Process(target=target)
    try:
        proc.start()
    finally:
        os.close(alive_r)
    pid = int(proc.pid or 0)
    with contextlib.suppress(OSError):  # also here: no race with the child's own setpgid
        os.setpgid(pid, pid)
    children.register_group(pid)
    send.close()
    try:
        if not recv.poll(timeout):
            raise CheckTimeout(f"timed out after {timeout:g} s")
        try:
            kind, val = recv.recv()
        except EOFError:
            proc.join(1)
            raise ChildDied(proc.exitcode) from None
        proc.join(1)  # it answered: let it finish its own clean-up before its group is stopped
    finally:
        _kill_group(pid)
        children.forget_group(pid)
        children.remove_scratch_of(pid)
        os.close(alive_w)
        if proc.is_alive():
            proc.terminate()
            proc.join(1)
            if proc.is_alive():
                proc.kill()
        proc.join(1)
        recv.close()
    if kind == "raise":
        raise val
    if kind == "exc":
        raise RuntimeError(val)
    return val


#: in a child capped by :func:`limit_child_memory`: (the limit given, the address-space cap set), else None
_CHILD_CAP: list[tuple[int, int] | None] = [None]


def limit_child_memory(limit: int) -> int | None:
    """Cap this process's address space (``RLIMIT_AS``, soft and hard) at its current size plus ``limit`` bytes.

    For a child that runs user code: allocations beyond the cap fail (``MemoryError`` in Python and
    numpy) instead of growing to the machine's limit; processes it starts inherit the cap. Returns
    the cap set, or None where it cannot be set (no ``resource.RLIMIT_AS`` or no
    ``/proc/self/statm``; e.g. macOS, where the limit is not enforced).
    """
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = size + int(limit)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    _CHILD_CAP[0] = (int(limit), cap)
    return cap


def child_memory_cap() -> tuple[int, int] | None:
    """``(limit, cap)`` when this process runs under :func:`limit_child_memory`, else None."""
    return _CHILD_CAP[0]


def past_memory_limit_text() -> str:
    """How a process capped by :func:`limit_child_memory` words running out: ``ran past --max-memory (4 GiB)``."""
    cap = _CHILD_CAP[0]
    size = f" ({format_bytes(cap[0])})" if cap else ""
    return f"ran past --max-memory{size}"


_ALLOC = re.compile(r"unable to allocate ([0-9.]+)\s*([kmgtpe]?i?b)", re.IGNORECASE)


def ran_past_cap(exc: BaseException) -> bool:
    """Whether ``MemoryError`` ``exc`` in a capped child (:func:`limit_child_memory`) is the cap's doing.

    True when the address space in use is within max(64 MiB, 10 % of the limit) of the cap, or when
    the failed request (numpy's "Unable to allocate 7.28 TiB ...") is larger than the room left; a
    ``MemoryError`` raised by code far below the cap is not called "past --max-memory".
    """
    cap = _CHILD_CAP[0]
    if cap is None:
        return False
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return True
    room = cap[1] - used
    if room < max(64 << 20, cap[0] // 10):
        return True
    m = _ALLOC.search(str(exc))
    if m:
        unit = m.group(2).lower().replace("i", "")
        factor = {"b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40, "pb": 1 << 50, "eb": 1 << 60}
        return float(m.group(1)) * factor.get(unit, 1) > room
    return False


def _forget_forkserver() -> None:
    """In a forked child: start its own multiprocessing forkserver when it needs one.

    The inherited handle names the parent's server, which the child cannot
    ``waitpid`` (``ChildProcessError``) and which lies outside the child's process group.
    """
    try:
        from multiprocessing import forkserver

        server: Any = forkserver._forkserver
        if getattr(server, "_forkserver_pid", None) is not None:
            server._forkserver_pid = None
            server._forkserver_address = None
            server._forkserver_alive_fd = None
    except Exception:  # noqa: BLE001 - a different multiprocessing layout: nothing inherited to forget
        pass


def _kill_group(pgid: int | None) -> None:
    """SIGKILL the process group ``pgid`` (a child of :func:`call_with_timeout` and what it started), if any."""
    import signal

    if pgid is None or pgid <= 0 or pgid == os.getpgrp():
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
