"""References to user code (``pkg.module:function``) and input literals, for the CLI and claim files.

``load_reference("pkg.module:function")`` imports the module and returns the
callable; ``"path/to/file.py:function"`` loads a file. The current directory
(or the claim file's directory) is searched first, as ``python -m`` would.
Every failure is one :class:`~privcheck.base.errors.PrivcheckUsageError` line.

User code is never trusted to behave: :func:`guard_user_code` wraps a sampler
so that whatever it does while the auditor draws from it — raise, call
``sys.exit``, raise ``KeyboardInterrupt`` or ``MemoryError``, return ±inf —
becomes one :class:`UserCodeError` naming the function and what it did (the CLI
reports it as verdict ``error``, exit code 1, never as success). What cannot be
caught in-process (``os._exit``, a segfault, a hang) is caught by running the
user's code in a child process under a deadline (:func:`run_isolated`);
:func:`user_deadline` bounds code that must run in this process (importing a
claims file), and :func:`stdout_to_stderr` keeps a user's ``print`` out of
``--json -``.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterator

from privcheck.base.errors import PrivcheckUsageError, UserCodeError


def is_reference(text: str) -> bool:
    """True when ``text`` looks like ``module:attribute`` (built-in mechanism names have no colon)."""
    return isinstance(text, str) and ":" in text and not text.startswith(":")


def load_reference(ref: str, base_dir: str | None = None, *, what: str = "sampler") -> Callable:
    """The callable named by ``ref`` = ``"pkg.module:attr[.attr...]"`` or ``"file.py:attr"``.

    base_dir: directory searched first for the module or file (default: the
    current directory). Raises PrivcheckUsageError for a malformed reference,
    a module that cannot be imported (or fails while importing), a missing
    attribute, or an attribute that is not callable.
    """
    if not isinstance(ref, str) or ref.count(":") != 1:
        raise PrivcheckUsageError(f"{what} reference must be MODULE:FUNCTION (e.g. mypkg.mech:sample), got {ref!r}")
    mod_name, _, attr = ref.partition(":")
    mod_name, attr = mod_name.strip(), attr.strip()
    if not mod_name or not attr:
        raise PrivcheckUsageError(f"{what} reference must be MODULE:FUNCTION (e.g. mypkg.mech:sample), got {ref!r}")
    base = os.path.abspath(base_dir or os.getcwd())
    if mod_name.endswith(".py") or os.sep in mod_name or "/" in mod_name:
        module = _load_file(os.path.join(base, mod_name), ref)
    else:
        module = _import(mod_name, base, ref)
    obj: Any = module
    for part in attr.split("."):
        if not part.isidentifier():
            raise PrivcheckUsageError(f"{what} reference {ref!r}: {attr!r} is not an attribute name")
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PrivcheckUsageError(
                f"{what} reference {ref!r}: module {mod_name!r} has no attribute {attr!r}"
            ) from None
    if not callable(obj):
        raise PrivcheckUsageError(f"{what} reference {ref!r} is of type {type(obj).__name__}, not a callable")
    return obj


def _import(mod_name: str, base: str, ref: str):
    if not all(p.isidentifier() for p in mod_name.split(".")):
        raise PrivcheckUsageError(f"reference {ref!r}: {mod_name!r} is not a module name")
    if base not in sys.path:
        sys.path.insert(0, base)
    try:
        return importlib.import_module(mod_name)
    except ModuleNotFoundError as exc:
        if exc.name and mod_name.startswith(exc.name):
            raise PrivcheckUsageError(
                f"reference {ref!r}: cannot import module {mod_name!r} "
                f"(no module named {exc.name!r} in {base} or the installed packages)"
            ) from None
        raise PrivcheckUsageError(f"reference {ref!r}: importing {mod_name!r} failed: {_one_line(exc)}") from None
    except SyntaxError as exc:
        raise PrivcheckUsageError(f"reference {ref!r}: {exc.filename}:{exc.lineno}: SyntaxError: {exc.msg}") from None
    except SystemExit as exc:
        raise PrivcheckUsageError(f"reference {ref!r}: importing {mod_name!r} called exit({exc.code})") from None
    except KeyboardInterrupt:
        if interrupt_is_real():
            raise
        raise PrivcheckUsageError(f"reference {ref!r}: importing {mod_name!r} raised KeyboardInterrupt") from None
    except Exception as exc:  # noqa: BLE001 - user code failing at import is bad input, one line
        raise PrivcheckUsageError(f"reference {ref!r}: importing {mod_name!r} failed: {_one_line(exc)}") from None


def _load_file(path: str, ref: str):
    if not os.path.isfile(path):
        raise PrivcheckUsageError(f"reference {ref!r}: no such file {path}")
    stem = os.path.splitext(os.path.basename(path))[0]
    known = sys.modules.get(stem)
    if known is not None and os.path.abspath(getattr(known, "__file__", "") or "") == os.path.abspath(path):
        return known
    # the plain module name (importable by workers once its folder is on sys.path) unless it is taken
    name = stem if (stem.isidentifier() and known is None) else "privcheck_user_" + stem.replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PrivcheckUsageError(f"reference {ref!r}: cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # so that its functions pickle by reference for worker processes
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise PrivcheckUsageError(f"reference {ref!r}: {path}:{exc.lineno}: SyntaxError: {exc.msg}") from None
    except SystemExit as exc:
        raise PrivcheckUsageError(f"reference {ref!r}: loading {path} called exit({exc.code})") from None
    except KeyboardInterrupt:
        if interrupt_is_real():
            raise
        raise PrivcheckUsageError(f"reference {ref!r}: loading {path} raised KeyboardInterrupt") from None
    except Exception as exc:  # noqa: BLE001
        raise PrivcheckUsageError(f"reference {ref!r}: loading {path} failed: {_one_line(exc)}") from None
    return module


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def parse_literal(text: str) -> Any:
    """A Python literal (``0``, ``1.5``, ``'a'``, ``(1, 2)``, ``None``) via :func:`ast.literal_eval`, else the string."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def parse_pair(text: str) -> tuple:
    """``"A,B"`` → ``(A, B)`` with each side parsed by :func:`parse_literal` (``"(0, 1),(1, 1)"`` works too)."""
    val = parse_literal(text)
    if isinstance(val, tuple) and len(val) == 2:
        return val
    parts = text.split(",")
    if len(parts) == 2:
        return parse_literal(parts[0]), parse_literal(parts[1])
    raise PrivcheckUsageError(f"--pair takes two inputs A,B (e.g. --pair 0,1), got {text!r}")


def probe_sampler(
    sampler: Callable, inputs: list, ref: str, view: Callable | None = None, per_sample: bool = False
) -> int:
    """Call ``sampler(x, 4, rng)`` at every input (then the view and the output encoding); one line on failure.

    Returns the output width (values per encoded output, the same for every input), for size checks.

    An exception raised by the sampler is bad input (:class:`PrivcheckUsageError`,
    its traceback kept as ``user_traceback`` for ``--debug``); ``sys.exit``,
    ``KeyboardInterrupt``, ``MemoryError`` and ±inf outputs are the user's
    failures (:class:`UserCodeError`, verdict ``error``).
    """
    if not per_sample and not _accepts(sampler, 3):
        raise PrivcheckUsageError(
            f"{ref} cannot be called as f(x, n, rng) (it takes fewer arguments); "
            "for code returning one output per call, fn(x, rng) or fn(x), add --per-sample"
        )
    widths = {_probe_one(sampler, x, ref, view) for x in inputs}
    if len(widths) > 1:
        raise PrivcheckUsageError(
            f"{ref}: outputs have different widths for different inputs ({sorted(widths)} "
            "columns); audit them with --view privcheck.auditor.views:as_atom"
        )
    return widths.pop()


def _accepts(fn: Callable, count: int) -> bool:
    """Whether ``fn`` can be called with ``count`` positional arguments (True when its signature is unknown)."""
    import inspect

    try:
        inspect.signature(fn).bind(*range(count))
    except TypeError:
        return False
    except ValueError:  # no signature (some builtins)
        return True
    return True


@contextlib.contextmanager
def _raised_as_usage(message: str):
    """A user function that *raised* (kind ``raised``) during a probe is bad input: one line ``message: cause``,
    keeping the user's traceback for ``--debug``; exits, crashes and hangs stay :class:`UserCodeError`."""
    try:
        yield
    except UserCodeError as exc:
        if exc.kind != "raised":
            raise
        err = PrivcheckUsageError(f"{message}: {exc.cause}")
        err.user_traceback = exc.user_traceback
        raise err from None


def _probe_one(sampler: Callable, x: Any, ref: str, view: Callable | None) -> int:
    import numpy as np

    from privcheck.auditor.outputs import encode_outputs

    with _raised_as_usage(f"calling {ref} at input {x!r} failed"):
        out = guard_user_code(sampler, ref)(x, 4, np.random.default_rng(0))
    if view is not None:
        vname = getattr(view, "__qualname__", None) or getattr(view, "__name__", "the view")
        with _raised_as_usage(f"the view failed on {ref}'s outputs"):
            out = call_user(view, (out,), f"the view {vname}", f"on {ref}'s outputs")
    return encode_outputs(out, 4).shape[1]


# --------------------------------------------------------------------------- failures of user code


def interrupt_is_real() -> bool:
    """Whether a KeyboardInterrupt seen now comes from Ctrl-C (True) or was raised by user code (False).

    Worker processes ignore SIGINT, so a KeyboardInterrupt there was raised by
    code; the CLI's handler records every SIGINT it receives (``sigint_seen``).
    Elsewhere the two cannot be told apart, and it is treated as Ctrl-C.
    """
    try:
        handler = signal.getsignal(signal.SIGINT)
    except (ValueError, OSError):  # pragma: no cover - no signal support
        return True
    if handler == signal.SIG_IGN:
        return False
    seen = getattr(handler, "sigint_seen", None)
    return seen.is_set() if seen is not None else True


def _nonfinite(out: Any) -> str | None:
    """``"inf"``/``"-inf"`` when a numeric output batch holds an infinity (NaN marks "no value" and passes)."""
    import numpy as np

    arr = out
    if not isinstance(out, np.ndarray):
        if not isinstance(out, (list, tuple)) or not out or not isinstance(out[0], (float, np.floating)):
            return None
        try:
            arr = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            return None
    if arr.dtype.kind not in "fc" or arr.size == 0:
        return None
    arr = arr.real if arr.dtype.kind == "c" else arr
    with np.errstate(invalid="ignore"):
        if np.isposinf(arr).any():
            return "inf"
        if np.isneginf(arr).any():
            return "-inf"
    return None


def describe_failure(exc: BaseException, name: str, where: str) -> UserCodeError:
    """The :class:`UserCodeError` for ``exc`` raised by user code ``name`` (``where``: e.g. "at input 0 (n=4)")."""
    import traceback  # only when user code failed (start-up, issue 33)

    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    cause = _one_line(exc)
    if isinstance(exc, SystemExit):
        return UserCodeError(f"{name} called sys.exit({exc.code!r}) {where}", name, "exit", tb, cause)
    if isinstance(exc, KeyboardInterrupt):
        return UserCodeError(f"{name} raised KeyboardInterrupt {where}", name, "interrupt", tb, cause)
    if isinstance(exc, MemoryError):
        from privcheck.base.resources import past_memory_limit_text, ran_past_cap

        if ran_past_cap(exc):  # the child's address space is capped at --max-memory, and it got there
            return UserCodeError(
                f"{name} {past_memory_limit_text()} {where}; raise --max-memory (or PRIVCHECK_MAX_MEMORY) "
                "if it needs more",
                name,
                "memory",
                tb,
                cause,
            )
        return UserCodeError(f"{name} ran out of memory (MemoryError) {where}", name, "memory", tb, cause)
    return UserCodeError(f"{name} raised {cause} {where}", name, "raised", tb, cause)


def call_user(fn: Callable, args: tuple, name: str, where: str) -> Any:
    """``fn(*args)`` for user code ``name``: whatever it raises (``SystemExit``, a ``KeyboardInterrupt``
    that is not Ctrl-C, ``MemoryError``, any exception) becomes a :class:`UserCodeError` saying so ``where``.

    privcheck's own one-line errors (:class:`PrivcheckUsageError`, :class:`UserCodeError`) pass unchanged.
    """
    try:
        return fn(*args)
    except (PrivcheckUsageError, UserCodeError):
        raise
    except KeyboardInterrupt as exc:
        if interrupt_is_real():
            raise
        raise describe_failure(exc, name, where) from None
    except GeneratorExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit, MemoryError, anything: the user's failure
        raise describe_failure(exc, name, where) from None


class GuardedSampler:
    """A sampler ``f(x, n, rng)`` whose failures become :class:`UserCodeError` (see :func:`guard_user_code`)."""

    def __init__(self, fn: Callable, name: str):
        self.fn = fn
        self.user_label = name
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    @property
    def prefers_processes(self) -> bool:
        """Inherited from the wrapped sampler (per-sample code prefers worker processes)."""
        return bool(getattr(self.fn, "prefers_processes", False))

    def __repr__(self) -> str:
        return repr(self.fn)

    def __call__(self, x: Any, n: int, rng) -> Any:
        """``fn(x, n, rng)``; raise :class:`UserCodeError` naming the function if it fails or returns ±inf."""
        where = f"at input {_short(x)} (a batch of {n} draws)"
        out = call_user(self.fn, (x, n, rng), self.user_label, where)
        bad = _nonfinite(out)
        if bad is not None:
            raise UserCodeError(
                f"{self.user_label} returned {bad} {where}; outputs must be finite (NaN may mark 'no value')",
                self.user_label,
                "nonfinite",
            )
        return out


def _short(x: Any, width: int = 40) -> str:
    text = repr(x)
    return text if len(text) <= width else text[: width - 1] + "…"


def guard_user_code(sampler: Callable, name: str | None = None) -> GuardedSampler:
    """``sampler`` wrapped so that its failures are reported as :class:`UserCodeError` naming ``name``.

    name: how the function is named in messages (default: its qualified name).
    Idempotent (a guarded sampler is returned as is unless a new name is given).
    """
    from privcheck.auditor.per_sample import callable_name

    if isinstance(sampler, GuardedSampler):
        if name is None or name == sampler.user_label:
            return sampler
        sampler = sampler.fn
    return GuardedSampler(sampler, name or callable_name(getattr(sampler, "fn", sampler)))


# --------------------------------------------------------------------------- isolation and deadlines


def run_isolated(fn: Callable, args: tuple, *, timeout: float, name: str) -> Any:
    """``fn(*args)`` in a forked child process under ``timeout`` seconds; user-code failures as one line.

    The child's address space is capped at its size plus ``--max-memory``
    (:func:`privcheck.base.resources.limit_child_memory`): code that keeps allocating fails with
    "``name`` ran past --max-memory". Returns ``fn``'s result. Raises :class:`UserCodeError` when the child is
    ended by user code ``name`` (``os._exit``, a crash such as a segfault, being
    killed) or runs past the deadline; a :class:`PrivcheckUsageError` or
    :class:`UserCodeError` raised in the child is re-raised here unchanged.
    """
    from privcheck.base.resources import CheckTimeout, ChildDied, call_with_timeout

    try:
        return call_with_timeout(
            _memory_as_user_error,
            (fn, args, name),
            timeout,
            passthrough=(PrivcheckUsageError, UserCodeError),
            limit_memory=True,
        )
    except CheckTimeout:
        raise UserCodeError(
            f"{name} timed out after {timeout:g} s (raise --timeout if it needs longer)", name, "timeout"
        ) from None
    except ChildDied as exc:
        raise UserCodeError(f"{name} {exc.what}", name, "died") from None


def _memory_as_user_error(fn: Callable, args: tuple, name: str) -> Any:
    """``fn(*args)`` in the capped child: a ``MemoryError`` outside the guarded calls is ``name``'s too."""
    try:
        return fn(*args)
    except MemoryError as exc:
        raise describe_failure(exc, name, "while it ran") from None


class _Deadline(BaseException):
    """Raised in the main thread by :func:`user_deadline`'s alarm (a BaseException: user code must not catch it)."""


@contextlib.contextmanager
def user_deadline(seconds: float | None, what: str) -> Iterator[None]:
    """Run the block (user code in this process, e.g. importing a claims file) for at most ``seconds``.

    Past the deadline a :class:`PrivcheckUsageError` "``what`` timed out after
    N s" is raised (a SIGALRM interrupts Python code and sleeps); code that
    holds the interpreter in C and ignores the alarm is stopped 5 s later by
    printing that line and exiting with code 2. ``None`` (or outside the main
    thread): no deadline.
    """
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    message = f"{what} timed out after {seconds:g} s (raise --timeout if it needs longer)"

    def on_alarm(signum, frame):
        raise _Deadline()

    def hard_stop():
        try:
            sys.stderr.write(f"privcheck: error: {message}\n")
            sys.stderr.flush()
            guard = sys.modules.get("privcheck.cli.guard")
            if guard is not None:
                guard.report_exit(2)
        finally:
            os._exit(2)

    old = signal.signal(signal.SIGALRM, on_alarm)
    watchdog = threading.Timer(float(seconds) + 5.0, hard_stop)
    watchdog.daemon = True
    watchdog.start()
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    except _Deadline:
        raise PrivcheckUsageError(message) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        watchdog.cancel()
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """While the block runs, anything written to standard output (``print``, C code) goes to standard error.

    For ``--json -``: the user's code cannot corrupt the JSON document. File
    descriptor 1 is redirected too, so forked children and C extensions follow.
    """
    if not active:
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no real descriptors (e.g. captured streams): redirect the Python stream only
        saved = None
    old_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        sys.stdout = old_stdout
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)
