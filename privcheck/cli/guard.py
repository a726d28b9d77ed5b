"""The command line's safety net: exit codes, ``--debug``, Ctrl-C, warnings, and strict option types.

Exit codes of ``privcheck`` (documented in the README and ``privcheck --help``):

- 0  every claim run met its expectation;
- 1  a verdict differs from a declared expectation, or a check errored / timed out;
- 2  bad usage or a refused request (one line on standard error: what is wrong and what is allowed);
- 3  internal error: ``privcheck: internal error: … (rerun with --debug for the traceback)``;
- 130 interrupted (Ctrl-C), within 2 s also while worker processes run.

:func:`harden_options` replaces every ``float``/``int`` option of the command
tree by types that reject ``nan``/``inf``, accept integral ``1e9`` for counts and
echo what the user typed, and turns report-path options (``--json``,
``--markdown``, ``--junit``, ``--html``) into paths checked *before* the run.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
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


def harden_options(cmd: click.Command) -> None:
    """Replace float/int option types and report paths in ``cmd`` and all its subcommands (idempotent)."""
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


def _force_exit(code: int) -> None:
    """Exit now with ``code``: report an interrupt once, then stop the workers and remove scratch folders silently.

    After "privcheck: interrupted" nothing else is printed: standard error is
    pointed at the null device before the workers are killed (finalizers and
    trackers of killed workers would otherwise complain).
    """
    report_exit(code)
    if code == EXIT_INTERRUPTED and not _INTERRUPT_REPORTED.is_set():
        _INTERRUPT_REPORTED.set()
        try:
            sys.stderr.write("privcheck: interrupted\n")
        except Exception:  # noqa: BLE001
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    if code == EXIT_INTERRUPTED:
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
    """On the first Ctrl-C, raise KeyboardInterrupt as usual and guarantee exit 130 within ~1 s.

    Cleanup (worker pools, thread pools waiting for their queues) gets that long;
    forked workers inherit the handler but only raise KeyboardInterrupt.
    """
    import signal

    main_pid = os.getpid()

    def handler(signum, frame):
        SIGINT_SEEN.set()
        if os.getpid() == main_pid:
            _arm_exit_watchdog(EXIT_INTERRUPTED, 1.0)
        raise KeyboardInterrupt

    handler.sigint_seen = SIGINT_SEEN  # read by privcheck.auditor.user_code to tell Ctrl-C from user code
    try:
        signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):  # not the main thread: keep the default
        pass


class GuardedGroup(click.Group):
    """A click group whose ``main`` never lets a traceback out (see the module docstring for exit codes)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        real_process = args is None  # the console script; CliRunner and tests pass args explicitly
        argv = list(sys.argv[1:] if args is None else args)
        global DEBUG
        debug = DEBUG = "--debug" in argv
        if debug:
            argv = [a for a in argv if a != "--debug"]
        code = EXIT_OK
        if real_process and any(a == "--file" or a.startswith("--file=") for a in argv):
            _supervise()  # claim files run user code in this process: it must not be able to end the run
        if real_process:
            _install_sigint_watchdog()
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
                if not _INTERRUPT_REPORTED.is_set():
                    _INTERRUPT_REPORTED.set()
                    click.echo("privcheck: interrupted", err=True)
                code = EXIT_INTERRUPTED
                if real_process:  # the run is over: no atexit hook (e.g. Dask's cluster closer) may print now
                    _force_exit(code)
            except click.ClickException as exc:
                no_args = getattr(click.exceptions, "NoArgsIsHelpError", None)
                if no_args is not None and isinstance(exc, no_args):  # bare `privcheck`: the help text
                    exc.show()
                    code = exc.exit_code
                    if standalone_mode:
                        sys.exit(code)
                    return code
                msg = _one_line(exc.format_message())
                hint = ""
                if isinstance(exc, click.UsageError) and exc.ctx is not None:
                    hint = f" (see '{exc.ctx.command_path} --help')"
                click.echo(f"privcheck: error: {msg}{hint}", err=True)
                code = exc.exit_code
            except SystemExit as exc:
                report_exit(exc.code)
                raise
            except RecursionError as exc:  # built-in code does not recurse deeply: the input is nested too deeply
                if debug:
                    traceback.print_exc()
                click.echo(
                    "privcheck: error: the input is nested too deeply to be read (Python's recursion limit: "
                    f"{_one_line(str(exc))[:120]}); flatten the claim file or value",
                    err=True,
                )
                code = EXIT_USAGE
            except MemoryError as exc:
                if debug:
                    traceback.print_exc()
                detail = _one_line(str(exc)) or "the request does not fit in memory"
                click.echo(
                    f"privcheck: internal error: out of memory: {detail} (lower the sizes or --samples; "
                    "rerun with --debug for the traceback)",
                    err=True,
                )
                code = EXIT_INTERNAL
            except Exception as exc:  # noqa: BLE001 — the one place unexpected errors become one line
                if debug:
                    traceback.print_exc()
                detail = _one_line(str(exc))
                click.echo(
                    f"privcheck: internal error: {type(exc).__name__}"
                    f"{': ' + detail[:300] if detail else ''} (rerun with --debug for the traceback)",
                    err=True,
                )
                code = EXIT_INTERNAL
        report_exit(code)
        if standalone_mode:
            sys.exit(code)
        return code


#: in a supervised run (:func:`_supervise`), the pipe on which the final exit code is reported
_REPORT_FD: int | None = None


def report_exit(code) -> None:
    """Tell the supervising parent (if any) that the run ends normally with ``code`` (idempotent)."""
    global _REPORT_FD
    fd, _REPORT_FD = _REPORT_FD, None
    if fd is None:
        return
    if code is None:
        code = EXIT_OK
    elif not isinstance(code, int):
        code = EXIT_MISMATCH
    try:
        os.write(fd, str(int(code)).encode("ascii"))
        os.close(fd)
    except OSError:
        pass


def _supervise() -> None:
    """Run the rest of this command in a forked child; this process only waits and exits with its code.

    A claims file is imported (and its samplers probed) in the running process:
    user code calling ``os._exit(0)`` or crashing there would end the run with
    no report and — worst for a CI gate — possibly exit code 0. The child reports
    its exit code on a pipe as it ends normally; when it ends without reporting,
    the parent prints one line saying how it ended and exits 1. Ctrl-C is the
    child's to handle (it exits 130); the parent ignores it while waiting.
    """
    global _REPORT_FD
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX
        return
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _REPORT_FD = w
        return
    os.close(w)
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _, status = os.waitpid(pid, 0)
    data = b""
    while True:
        chunk = os.read(r, 32)
        if not chunk:
            break
        data += chunk
    if data.strip().isdigit():
        os._exit(int(data))
    from privcheck.base.resources import describe_exit

    code = os.waitstatus_to_exitcode(status)
    sys.stderr.write(
        f"privcheck: error: the user's code {describe_exit(code).replace('running it', 'running the claims')}"
        " before the run finished; no report was written\n"
    )
    sys.stderr.flush()
    os._exit(EXIT_MISMATCH)


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


def _user_traceback(exc: BaseException) -> None:
    """Under ``--debug``, the user's own traceback carried by ``exc`` (``user_traceback``), if any."""
    tb = getattr(exc, "user_traceback", None)
    if DEBUG and tb:
        click.echo(str(tb).rstrip("\n"), err=True)
