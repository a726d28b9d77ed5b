"""Run documentation commands in forks of one pre-imported Python process (used by docs/check_pages.py).

Every ``$ privcheck ...`` / ``$ python ...`` line of a page used to start a fresh interpreter that imported
numpy, click and privcheck again before doing its work. :class:`CommandServer` starts one server
process that imports them once (:data:`PRELOAD`) and then ``os.fork()``s a child per command. The child
sets up what a fresh ``python ARGS`` would have had — working directory, environment, ``sys.argv``,
``sys.path`` (``path[0]``, then ``PYTHONPATH``, then the interpreter's own entries), standard input from
``/dev/null``, standard output and standard error to separate files, a fresh ``__main__``, reseeded
``random`` / numpy global generators — runs the script (``-c CODE``, ``-m MODULE`` or ``FILE``) as
CPython would, and exits with the status CPython would (``SystemExit`` rules, atexit handlers, flush).

Anything the fork cannot reproduce faithfully falls back to a real subprocess (``run`` returns ``None``):
a platform without ``os.fork``, ``python -m pytest`` (:data:`NOT_FORKED`: it rewrites the asserts of the
privcheck plugin, which must not be imported before it), interpreter options before the script
(``python -X ...``), and a command that ends in an uncaught exception (its traceback would show the
server's frames), so an error is always reported exactly as a user would see it.
tests/test_readme_check.py compares both routes.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile

# what the pages' commands import (the CLI; scipy, sympy, statsmodels, mpmath for verify and the accountants
# for budget): imported once in the server instead of once per command. Not the scheduler or the catalogue
# (privcheck.cli.guard and privcheck.claim_index look whether those are loaded) and nothing that starts threads.
PRELOAD = (
    "numpy",
    "click",
    "privcheck.cli",
    "privcheck.cli.app",
    "scipy.stats",
    "mpmath",
    "sympy",
    "statsmodels.stats.proportion",
    "statsmodels.stats.weightstats",
    "accountants.pld",
)
NOT_FORKED = (["-m", "pytest"],)  # pytest rewrites the asserts of plugins (privcheck's) it imports itself
_FALLBACK = 213  # exit status of a child that asks for a real subprocess


def supported() -> bool:
    """Whether commands can run through a fork server here (POSIX ``fork``)."""
    return hasattr(os, "fork") and sys.platform != "win32"


class CommandServer:
    """A pre-imported Python process forking one child per command (see the module docstring).

    ``python_path`` are the ``PYTHONPATH`` entries the server itself starts with (the repository root, so
    that the pre-imported privcheck is the checked-out one). The server ends when this object is closed or
    its owner dies (end of file on its standard input).
    """

    def __init__(self, python_path: tuple[str, ...] = ()) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([*python_path, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self._proc = subprocess.Popen(
            [sys.executable, __file__, "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._tmp = tempfile.TemporaryDirectory(prefix="check_pages_")

    def close(self) -> None:
        """Stop the server (idempotent)."""
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self._proc.kill()
                self._proc.wait()
        self._tmp.cleanup()

    def _reply(self, timeout: float | None) -> dict:
        ready, _, _ = select.select([self._proc.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("the command server ended")
        return json.loads(line)

    def run(self, args: list[str], cwd: str, env: dict[str, str], timeout: float) -> tuple[int, str, str] | None:
        """``python ARGS`` in ``cwd`` with ``env``: (exit status, stdout, stderr), or ``None`` to run it for real.

        The output is decoded as ``subprocess.run(..., text=True)`` does. Raises
        ``subprocess.TimeoutExpired`` (after killing the child) when it runs longer than ``timeout`` seconds.
        """
        if not args or args[0].startswith("-") and args[0] not in ("-c", "-m") or args[:2] in NOT_FORKED:
            return None
        out, err = os.path.join(self._tmp.name, "out"), os.path.join(self._tmp.name, "err")
        request = {"args": args, "cwd": str(cwd), "env": env, "out": out, "err": err}
        self._proc.stdin.write(json.dumps(request).encode() + b"\n")
        self._proc.stdin.flush()
        pid = self._reply(30)["pid"]
        try:
            code = self._reply(timeout)["code"]
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            self._reply(30)
            raise subprocess.TimeoutExpired(args, timeout) from None
        if code == _FALLBACK:
            return None
        return code, _decode(out), _decode(err)


def _decode(path: str) -> str:
    import locale

    with open(path, "rb") as f:
        data = f.read()
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")  # what subprocess's universal newlines do


# ------------------------------------------------------------------------------------------- server side


def _serve() -> None:  # pragma: no cover - runs in the server process
    start_path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    base_path = [p for p in sys.path[1:] if p not in start_path]  # the interpreter's own entries
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:
            pass
    requests = sys.stdin.buffer
    replies = sys.stdout.buffer
    while True:
        line = requests.readline()
        if not line:
            return
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                _child(request, base_path)
            finally:
                os._exit(_FALLBACK)
        replies.write(json.dumps({"pid": pid}).encode() + b"\n")
        replies.flush()
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        replies.write(json.dumps({"code": code}).encode() + b"\n")
        replies.flush()


def _child(request: dict, base_path: list[str]) -> None:  # pragma: no cover - runs in a forked child
    import atexit
    import importlib
    import io
    import random
    import threading
    import types

    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # the standard streams: /dev/null in, two files out, opened as a fresh interpreter opens them
    enc, out_errors = sys.__stdout__.encoding, sys.__stdout__.errors
    err_errors = sys.__stderr__.errors
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, request["out"], 0), (2, request["err"], 0)):
        new = os.open(path, flags | (os.O_WRONLY | os.O_CREAT | os.O_TRUNC if fd else 0), 0o600)
        os.dup2(new, fd)
        os.close(new)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.open(0, "rb", closefd=False), encoding=enc)
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.open(1, "wb", closefd=False), encoding=enc, errors=out_errors)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.open(2, "wb", closefd=False), encoding=enc, errors=err_errors, line_buffering=True
    )
    args = request["args"]
    if args[0] == "-c":
        path0, argv = "", ["-c", *args[2:]]
    elif args[0] == "-m":
        path0, argv = os.getcwd(), ["-m", *args[2:]]
    else:
        path0, argv = os.path.dirname(os.path.abspath(args[0])), list(args)
    extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [path0, *extra, *base_path]
    sys.argv = argv
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    try:
        if args[0] == "-c":
            exec(compile(args[1], "<string>", "exec"), main.__dict__)
        elif args[0] == "-m":
            import runpy

            runpy._run_module_as_main(args[1])  # what ``python -m`` itself calls
        else:
            script = os.path.abspath(args[0])  # __main__.__file__ is absolute since Python 3.9
            with open(script, "rb") as f:
                source = f.read()
            main.__dict__["__file__"] = script
            main.__dict__["__cached__"] = None
            exec(compile(source, script, "exec"), main.__dict__)
        code = 0
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except BaseException:
        os._exit(_FALLBACK)  # a traceback would show this server: let a real interpreter show it
    threading._shutdown()  # wait for non-daemon threads, as the interpreter does at exit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = 120
    os._exit(code)


def _exit_status(code: object) -> int:  # pragma: no cover - runs in a forked child
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:  # pragma: no cover
    _serve()
