"""The command line's safety net: exit codes, ``--debug``, Ctrl-C, warnings, and strict option types.

Exit codes of ``privcheck`` (documented in the README and ``privcheck --help``):

- 0  every claim run met its expectation;
- 1  a verdict differs from a declared expectation, or a check errored / timed out;
- 2  bad usage or a refused request (one line on standard error: what is wrong and what is allowed);
- 3  internal error: ``privcheck: internal error: … (rerun with --debug for the traceback)``;
- 130 interrupted (Ctrl-C, SIGINT), within 2 s also while worker processes run;
- 143 stopped by SIGTERM (a CI cancel, ``timeout``, a Kubernetes stop), 129 by SIGHUP (a closed terminal).

On each of these signals every process group privcheck started (user code under a deadline, worker
pools, local Dask workers) is killed before it exits (:mod:`privcheck.base.children`).

:func:`harden_options` replaces every ``float``/``int`` option of the command
tree by types that reject ``nan``/``inf``, accept integral ``1e9`` for counts and
echo what the user typed, refuses a one-value option given twice, and turns report-path options (``--json``,
``--markdown``, ``--junit``, ``--html``) into paths checked *before* the run.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings

import click

from privcheck.base.errors import PrivcheckUsageError

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

#: ``--debug`` was given (set by :class:`GuardedGroup`): user code's own tracebacks are printed too
DEBUG = False
#: set by the CLI's SIGINT handler: a KeyboardInterrupt is Ctrl-C only if this is set (else user code raised it)
SIGINT_SEEN = threading.Event()

#: options whose value is a report file written after the run
REPORT_OPTIONS = {"--json": True, "--markdown": False, "--junit": False, "--html": False}


class FiniteFloat(click.ParamType):
    """A finite float; the error echoes the text typed (``'inf'``, ``''``, ``'1e999'``)."""

    name = "number"

    def convert(self, value, param, ctx):
        from privcheck.base.validation import parse_finite_float

        if isinstance(value, float):
            if value == value and abs(value) != float("inf"):
                return value
        try:
            return parse_finite_float("value", value)
        except PrivcheckUsageError:
            self.fail(f"must be a finite number, got {value!r}", param, ctx)


class Count(click.ParamType):
    """An integer; integral floats such as ``1e9`` are accepted, ``1.5``/``inf``/``''`` rejected with the text typed."""

    name = "integer"

    def convert(self, value, param, ctx):
        from privcheck.base.validation import parse_integer

        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return parse_integer("value", value)
        except PrivcheckUsageError:
            self.fail(f"must be an integer, got {value!r}", param, ctx)


class ReportPath(click.ParamType):
    """A report path validated at parse time (directory exists and is writable; ``-`` where allowed)."""

    name = "path"

    def __init__(self, option: str, allow_stdout: bool):
        self.option = option
        self.allow_stdout = allow_stdout

    def convert(self, value, param, ctx):
        from privcheck.base.validation import check_output_path

        try:
            return check_output_path(self.option, value, allow_stdout=self.allow_stdout)
        except PrivcheckUsageError as exc:
            self.fail(str(exc).split(": ", 1)[-1] if str(exc).startswith(self.option) else str(exc), param, ctx)


def _refuse_repeats(cmd: click.Command) -> None:
    """Make ``cmd`` refuse an option that takes one value given more than once (``--mu 1 --mu 2``).

    click keeps the last value silently; a repeated ``--mu`` or ``--eps`` is more likely a mistake than an
    override. Flags, counts and options declared ``multiple`` may repeat. Idempotent.
    """
    if getattr(cmd, "_refuses_repeats", False):
        return
    original = cmd.make_parser

    def make_parser(ctx: click.Context):
        parser = original(ctx)
        parse = parser.parse_args

        def parse_args(args):
            opts, largs, order = parse(args=args)
            seen: set = set()
            for param in order:
                if isinstance(param, click.Option) and not (param.multiple or param.count or param.is_flag):
                    if param.name in seen:
                        name = max(param.opts, key=len)
                        ctx.fail(f"{name} is given more than once (its last value would win silently); give it once")
                    seen.add(param.name)
            return opts, largs, order

        parser.parse_args = parse_args  # type: ignore[method-assign]
        return parser

    cmd.make_parser = make_parser  # type: ignore[method-assign]
    cmd._refuses_repeats = True  # type: ignore[attr-defined]


def harden_options(cmd: click.Command) -> None:
    """Replace float/int option types and report paths in ``cmd`` and all its subcommands, and refuse options
    that take one value given twice (idempotent)."""
    _refuse_repeats(cmd)
    for p in getattr(cmd, "params", []):
        if not isinstance(p, click.Option):
            continue
        if p.type is click.FLOAT:
            p.type = FiniteFloat()
        elif p.type is click.INT:
            p.type = Count()
        for opt in p.opts:
            if opt in REPORT_OPTIONS and isinstance(p.type, click.types.StringParamType):
                p.type = ReportPath(opt, REPORT_OPTIONS[opt])
    for sub in getattr(cmd, "commands", {}).values():
        harden_options(sub)


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return " ".join(lines) if lines else ""


_INTERRUPT_REPORTED = threading.Event()


def _remove_scratch() -> None:
    """Remove the scratch folders of local Dask clusters this process started (when the scheduler was loaded)."""
    sched = sys.modules.get("privcheck.base.scheduler")
    if sched is not None:
        try:
            sched.remove_scratch_dirs()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


def _stop_children() -> None:
    """Kill and reap this process's worker processes (pools, local Dask workers), then stop multiprocessing's
    resource tracker (it unlinks what the workers left): nothing may outlive a forced exit, not even as a zombie."""
    try:
        import multiprocessing

        children = multiprocessing.active_children()
        for child in children:
            child.kill()
        for child in children:
            child.join(0.5)
        tracker = sys.modules.get("multiprocessing.resource_tracker")
        if tracker is not None:
            t = threading.Thread(target=tracker._resource_tracker._stop, daemon=True)
            t.start()
            t.join(1.0)
    except Exception:  # noqa: BLE001 - best effort at exit
        pass


def _kill_groups() -> None:
    """SIGKILL every process group this process started (user code under a deadline and what it started)."""
    from privcheck.base import children

    children.kill_groups()


def _stopped_message(code: int) -> str:
    """``privcheck: interrupted`` (130), ``privcheck: terminated by SIGTERM`` (143), … for a run ended by a signal."""
    if code == EXIT_INTERRUPTED:
        return "privcheck: interrupted"
    from privcheck.base.children import signal_name

    return f"privcheck: terminated by {signal_name(code - 128)}"


def _force_exit(code: int) -> None:
    """Exit now with ``code``: report a stop by a signal once, then stop the workers and remove scratch folders.

    Codes above 128 are stops by a signal (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP): after their one line
    (``privcheck: interrupted``, ``privcheck: terminated by SIGTERM``) nothing else is printed:
    standard error is pointed at the null device before the workers are killed (finalizers and
    trackers of killed workers would otherwise complain).
    """
    _kill_groups()
    report_exit(code)
    stopped = code > 128
    if stopped and not _INTERRUPT_REPORTED.is_set():
        _INTERRUPT_REPORTED.set()
        try:
            sys.stderr.write(_stopped_message(code) + "\n")
        except Exception:  # noqa: BLE001
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    if stopped:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        except OSError:
            pass
    _stop_children()
    _remove_scratch()
    os._exit(code)


def _arm_exit_watchdog(code: int, seconds: float = 0.3) -> None:
    """Force the process to exit with ``code`` after ``seconds`` if shutdown hangs (joining pools/threads)."""
    t = threading.Timer(seconds, _force_exit, (code,))
    t.daemon = True
    t.start()


def _install_sigint_watchdog() -> None:
    """On the first Ctrl-C, kill the child process groups, raise KeyboardInterrupt as usual and guarantee
    exit 130 within ~1 s; later Ctrl-Cs (a terminal's and a supervisor's forward) change nothing.

    Cleanup (worker pools, thread pools waiting for their queues) gets that long;
    forked workers inherit the handler but only raise KeyboardInterrupt. SIGTERM and SIGHUP
    kill the child groups and exit with 143 / 129 at once (:func:`_install_stop_handlers`).
    """
    import signal

    main_pid = os.getpid()

    def handler(signum, frame):
        if os.getpid() == main_pid:
            if SIGINT_SEEN.is_set():  # already stopping: a second KeyboardInterrupt would only disturb the clean-up
                return
            SIGINT_SEEN.set()
            _kill_groups()
            _arm_exit_watchdog(EXIT_INTERRUPTED, 1.0)
        SIGINT_SEEN.set()
        raise KeyboardInterrupt

    handler.sigint_seen = SIGINT_SEEN  # read by privcheck.auditor.user_code to tell Ctrl-C from user code
    try:
        signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):  # not the main thread: keep the default
        pass


def _install_stop_handlers() -> None:
    """SIGTERM and SIGHUP: kill every child process group, print one line and exit with 128 + the signal."""
    from privcheck.base.children import exit_code_of, install_stop_handlers

    install_stop_handlers(lambda signum: _force_exit(exit_code_of(signum)))


class GuardedGroup(click.Group):
    """A click group whose ``main`` never lets a traceback out (see the module docstring for exit codes)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        real_process = args is None  # the console script; CliRunner and tests pass args explicitly
        argv = list(sys.argv[1:] if args is None else args)
        global DEBUG
        debug = DEBUG = "--debug" in argv
        if debug:
            argv = [a for a in argv if a != "--debug"]
        if real_process:
            if any(a == "--file" or a.startswith("--file=") for a in argv):
                _supervise()  # claim files run user code in this process: it must not be able to end the run
            _install_sigint_watchdog()
            _install_stop_handlers()
        from privcheck.base.resources import memory_limit_scope

        with warnings.catch_warnings(), memory_limit_scope():
            if not debug:  # scipy/autodp/numpy RuntimeWarnings are not the user's business
                warnings.simplefilter("ignore")
            try:
                rv = super().main(
                    argv, prog_name=prog_name or "privcheck", complete_var=complete_var, standalone_mode=False, **extra
                )
                code = rv if isinstance(rv, int) and not isinstance(rv, bool) else EXIT_OK
            except click.exceptions.Exit as exc:
                code = exc.exit_code
            except (click.Abort, KeyboardInterrupt):
                code = _interrupted(real_process)
            except click.ClickException as exc:
                no_args = getattr(click.exceptions, "NoArgsIsHelpError", None)
                if no_args is not None and isinstance(exc, no_args):  # bare `privcheck`: the help text
                    exc.show()
                    if standalone_mode:
                        sys.exit(exc.exit_code)
                    return exc.exit_code
                code = _usage_error(exc)
            except SystemExit as exc:
                report_exit(exc.code)
                _bound_supervised_exit(_exit_status(exc.code))
                raise
            except Exception as exc:  # noqa: BLE001 — the one place unexpected errors become one line
                code = _unexpected_error(exc, debug)
        report_exit(code)
        _bound_supervised_exit(code)
        if standalone_mode:
            sys.exit(code)
        return code


def _interrupted(real_process: bool) -> int:
    """Ctrl-C: say so once; in the console script end the process now (no atexit hook may print after it)."""
    if not _INTERRUPT_REPORTED.is_set():
        _INTERRUPT_REPORTED.set()
        click.echo("privcheck: interrupted", err=True)
    if real_process:  # the run is over: no atexit hook (e.g. Dask's cluster closer) may print now
        _force_exit(EXIT_INTERRUPTED)
    return EXIT_INTERRUPTED


def _usage_error(exc: click.ClickException) -> int:
    """A click usage error as one line (with where to find the help) on standard error; its exit code."""
    msg = _one_line(exc.format_message())
    hint = ""
    if isinstance(exc, click.UsageError) and exc.ctx is not None:
        hint = f" (see '{exc.ctx.command_path} --help')"
    click.echo(f"privcheck: error: {msg}{hint}", err=True)
    return exc.exit_code


def _unexpected_error(exc: Exception, debug: bool) -> int:
    """An error no command turned into a usage error, as one line: input nested too deeply (exit 2), out of
    memory or an internal error (exit 3); ``--debug`` prints the traceback first."""
    if debug:
        _print_exc()
    if isinstance(exc, RecursionError):  # built-in code does not recurse deeply: the input is nested too deeply
        click.echo(
            "privcheck: error: the input is nested too deeply to be read (Python's recursion limit: "
            f"{_one_line(str(exc))[:120]}); flatten the claim file or value",
            err=True,
        )
        return EXIT_USAGE
    if isinstance(exc, MemoryError):
        detail = _one_line(str(exc)) or "the request does not fit in memory"
        click.echo(
            f"privcheck: internal error: out of memory: {detail} (lower the sizes or --samples; "
            "rerun with --debug for the traceback)",
            err=True,
        )
        return EXIT_INTERNAL
    detail = _one_line(str(exc))
    click.echo(
        f"privcheck: internal error: {type(exc).__name__}"
        f"{': ' + detail[:300] if detail else ''} (rerun with --debug for the traceback)",
        err=True,
    )
    return EXIT_INTERNAL


#: in a supervised run (:func:`_supervise`), the pipe on which the final exit code is reported
_REPORT_FD: int | None = None
#: [True] in the supervised child of :func:`_supervise` (it ends at most :data:`SHUTDOWN_GRACE` s after reporting)
_SUPERVISED = [False]
#: seconds the supervisor waits for its child to end after the exit code arrived (then it kills it)
SUPERVISOR_GRACE = 5.0


def report_exit(code) -> None:
    """Tell the supervising parent (if any) that the run ends normally with ``code`` (idempotent)."""
    global _REPORT_FD
    fd, _REPORT_FD = _REPORT_FD, None
    if fd is None:
        return
    code = _exit_status(code)
    try:
        os.write(fd, f"{int(code)}\n".encode("ascii"))
        os.close(fd)
    except OSError:
        pass


def cap_supervised_memory() -> None:
    """In the supervised child that imports claims files (:func:`_supervise`): cap its address space at
    its size plus the memory limit in force, so a claims file or a sampler probed at load that keeps
    allocating fails with "ran past --max-memory" instead of growing to the machine's limit."""
    if _SUPERVISED[0]:
        from privcheck.base.resources import limit_child_memory, memory_limit

        limit_child_memory(memory_limit())


def _exit_status(code) -> int:
    """The process exit status ``sys.exit(code)`` gives: None → 0, an int as is, anything else → 1."""
    if code is None:
        return EXIT_OK
    return code if isinstance(code, int) and not isinstance(code, bool) else EXIT_MISMATCH


#: seconds the supervised child may spend in interpreter shutdown (threads, atexit) after reporting
SHUTDOWN_GRACE = 1.0


def _bound_supervised_exit(code: int) -> None:
    """In the supervised child, once it has reported: the normal shutdown may take :data:`SHUTDOWN_GRACE`
    seconds, then :func:`_finish_supervised` ends it (a claims file's non-daemon thread or ``atexit``
    handler cannot hold the run: daemon threads keep running while the interpreter waits for them)."""
    if not _SUPERVISED[0]:
        return
    t = threading.Timer(SHUTDOWN_GRACE, _finish_supervised, (code,))
    t.daemon = True
    t.start()


def _finish_supervised(code: int) -> None:
    """End the supervised child now: flush, stop worker processes, ``os._exit(code)``.

    The claims file ran in this process: a non-daemon thread or an ``atexit`` handler it started
    must not keep the run from ending (the report is written, the code reported).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    _kill_groups()
    _stop_children()
    _remove_scratch()
    os._exit(code)


def _supervise() -> None:
    """Run the rest of this command in a forked child; this process only waits and exits with its code.

    A claims file is imported (and its samplers probed) in the running process:
    user code calling ``os._exit(0)`` or crashing there would end the run with
    no report and — worst for a CI gate — possibly exit code 0. The child reports
    its exit code on a pipe as it ends normally; when it ends without reporting,
    the parent prints one line saying how it ended and exits 1. Once it has reported, the child
    has :data:`SHUTDOWN_GRACE` seconds to end (then ``os._exit``, :func:`_bound_supervised_exit`: the
    claims' threads and ``atexit`` handlers cannot hold it), and the parent kills it if it has not ended
    :data:`SUPERVISOR_GRACE` seconds later. SIGTERM, SIGHUP and SIGINT sent to the parent are
    forwarded to the child (which stops its process groups and exits with 128 + the signal);
    the child dies with the parent (parent-death signal SIGTERM).
    """
    global _REPORT_FD
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX
        return
    import signal

    from privcheck.base import children

    parent = os.getpid()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _REPORT_FD = w
        _SUPERVISED[0] = True
        children.die_with_parent(signal.SIGTERM, parent=parent)
        return
    os.close(w)

    stop: list = []  # [(signal, deadline)] once a stop signal was forwarded

    def forward(signum, frame):
        import time

        if not stop:
            stop.append((signum, time.monotonic() + SUPERVISOR_GRACE))
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for sig in children.STOP_SIGNALS:
        signal.signal(sig, forward)
    data, status = _wait_report(r, pid, stop)
    if data.strip().isdigit():
        if status is None:
            status = _reap(pid, SUPERVISOR_GRACE)
        os._exit(int(data))
    from privcheck.base.resources import describe_exit

    code = os.waitstatus_to_exitcode(status if status is not None else _reap(pid, 0.0))
    if code < 0 and -code in children.STOP_SIGNALS:  # killed by a stop signal before it could report
        os._exit(children.exit_code_of(-code))
    sys.stderr.write(
        f"privcheck: error: the user's code {describe_exit(code).replace('running it', 'running the claims')}"
        " before the run finished; no report was written\n"
    )
    sys.stderr.flush()
    os._exit(EXIT_MISMATCH)


def _wait_report(fd: int, pid: int, stop: list) -> tuple[bytes, int | None]:
    """Read the child's exit-code line from ``fd`` until a newline, end-of-file or the child's end.

    Returns (the bytes read, the child's wait status if it was reaped meanwhile, else None). Processes
    the child forked may hold copies of the pipe: the child's own end is watched with ``waitpid``.
    ``stop``: ``[(signal, deadline)]`` once a stop signal was forwarded; a child still running at the
    deadline is killed and its code is ``128 + signal``.
    """
    import select
    import time

    data = b""
    while True:
        if stop and time.monotonic() > stop[0][1]:  # the child did not stop in time: it is stopped
            _reap(pid, 0.0)
            code = 128 + int(stop[0][0])
            with contextlib.suppress(Exception):
                sys.stderr.write(_stopped_message(code) + "\n")
                sys.stderr.flush()
            return str(code).encode("ascii"), 0
        try:
            ready, _, _ = select.select([fd], [], [], 0.2)
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            ready = []
        if ready:
            chunk = os.read(fd, 32)
            data += chunk
            if not chunk or b"\n" in data:
                return data, None
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            while select.select([fd], [], [], 0)[0]:
                chunk = os.read(fd, 32)
                if not chunk:
                    break
                data += chunk
            return data, status


def _reap(pid: int, grace: float) -> int:
    """Wait up to ``grace`` seconds for child ``pid`` to end, then SIGKILL it; its wait status."""
    import signal
    import time

    deadline = time.monotonic() + grace
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return 0
        if done:
            return status
        if time.monotonic() >= deadline:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            return os.waitpid(pid, 0)[1]
        time.sleep(0.02)


def usage_error_exit(ctx: click.Context, exc: BaseException) -> None:
    """Print a usage error as one line and exit with code 2 (used by the group's ``invoke``)."""
    msg = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    _user_traceback(exc)
    click.echo(f"privcheck: error: {_one_line(msg) or type(exc).__name__}", err=True)
    ctx.exit(EXIT_USAGE)


def user_code_error_exit(ctx: click.Context, exc: BaseException) -> None:
    """User code failed (exit, crash, hang, ±inf) outside a check's line: one line naming it, exit code 1."""
    _user_traceback(exc)
    click.echo(f"privcheck: error: {_one_line(str(exc)) or type(exc).__name__}", err=True)
    ctx.exit(EXIT_MISMATCH)


def _print_exc() -> None:
    """The current exception's traceback on standard error (``traceback`` loads only then: start-up, issue 33)."""
    import traceback

    traceback.print_exc()


def _user_traceback(exc: BaseException) -> None:
    """Under ``--debug``, the user's own traceback carried by ``exc`` (``user_traceback``), if any."""
    tb = getattr(exc, "user_traceback", None)
    if DEBUG and tb:
        click.echo(str(tb).rstrip("\n"), err=True)
