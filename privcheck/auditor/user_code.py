"""References to user code (``pkg.module:function``) and input literals, for the CLI and claim files.

``load_reference("pkg.module:function")`` imports the module and returns the
callable; ``"path/to/file.py:function"`` loads a file. The current directory
(or the claim file's directory) is searched first, as ``python -m`` would.
Every failure is one :class:`~privcheck.errors.PrivcheckUsageError` line.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
from typing import Any, Callable

from privcheck.errors import PrivcheckUsageError


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
                f"{what} reference {ref!r}: module {mod_name!r} has no attribute {attr!r}") from None
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
            raise PrivcheckUsageError(f"reference {ref!r}: cannot import module {mod_name!r} "
                                      f"(no module named {exc.name!r} in {base} or the installed packages)") from None
        raise PrivcheckUsageError(f"reference {ref!r}: importing {mod_name!r} failed: {_one_line(exc)}") from None
    except SyntaxError as exc:
        raise PrivcheckUsageError(f"reference {ref!r}: {exc.filename}:{exc.lineno}: SyntaxError: {exc.msg}") from None
    except SystemExit as exc:
        raise PrivcheckUsageError(f"reference {ref!r}: importing {mod_name!r} called exit({exc.code})") from None
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


def probe_sampler(sampler: Callable, inputs: list, ref: str, view: Callable | None = None,
                  per_sample: bool = False) -> None:
    """Call ``sampler(x, 4, rng)`` at every input (then the view and the output encoding); one line on failure."""
    widths = {_probe_one(sampler, x, ref, view, per_sample) for x in inputs}
    if len(widths) > 1:
        raise PrivcheckUsageError(f"{ref}: outputs have different widths for different inputs ({sorted(widths)} "
                                  "columns); audit them with --view privcheck.auditor.views:as_atom")


def _probe_one(sampler: Callable, x: Any, ref: str, view: Callable | None, per_sample: bool) -> int:
    import numpy as np

    from privcheck.auditor.outputs import encode_outputs

    try:
        out = sampler(x, 4, np.random.default_rng(0))
    except PrivcheckUsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - user code failing on a probe is bad input, one line
        hint = "" if per_sample else " (one output per call? add --per-sample)"
        raise PrivcheckUsageError(f"calling {ref} at input {x!r} failed: {_one_line(exc)}{hint}") from None
    if view is not None:
        try:
            out = view(out)
        except PrivcheckUsageError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise PrivcheckUsageError(f"the view failed on {ref}'s outputs: {_one_line(exc)}") from None
    return encode_outputs(out, 4).shape[1]
