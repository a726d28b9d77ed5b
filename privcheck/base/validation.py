"""Parameter validation shared by mechanisms, accountants and the CLI.

Each helper returns the validated value (converted to ``float``/``int``) or
raises :class:`privcheck.base.errors.PrivcheckUsageError` with a one-line message
naming the parameter and its allowed range. NaN and infinities are rejected
everywhere unless explicitly allowed.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from typing import Any

from privcheck.base.errors import PrivcheckUsageError


def _as_float(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise PrivcheckUsageError(f"{name} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise PrivcheckUsageError(f"{name} must be a number, got {value!r}") from None
    if math.isnan(out):
        raise PrivcheckUsageError(f"{name} must be a number, got NaN")
    return out


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float, requiring ``0 < value`` (finite unless ``allow_inf``)."""
    out = _as_float(name, value)
    if not (out > 0) or (math.isinf(out) and not allow_inf):
        raise PrivcheckUsageError(f"{name} must be a positive finite number, got {value!r}")
    return out


def check_nonnegative(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring ``0 <= value < inf``."""
    out = _as_float(name, value)
    if not (out >= 0) or math.isinf(out):
        raise PrivcheckUsageError(f"{name} must be a finite number >= 0, got {value!r}")
    return out


def check_eps(value: Any, name: str = "eps") -> float:
    """Validate a privacy parameter ε: a finite number > 0."""
    return check_positive(name, value)


def check_delta(value: Any, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Validate δ: a number in (0, 1) (or [0, 1) with ``allow_zero``)."""
    out = _as_float(name, value)
    lo_ok = out >= 0 if allow_zero else out > 0
    if not (lo_ok and out < 1):
        rng = "[0, 1)" if allow_zero else "(0, 1)"
        raise PrivcheckUsageError(f"{name} must be in {rng}, got {value!r}")
    return out


def check_probability(name: str, value: Any, *, open_low: bool = False, open_high: bool = False) -> float:
    """Validate a probability in [0, 1]; ``open_low``/``open_high`` exclude the ends."""
    out = _as_float(name, value)
    lo_ok = out > 0 if open_low else out >= 0
    hi_ok = out < 1 if open_high else out <= 1
    if not (lo_ok and hi_ok):
        lo = "(" if open_low else "["
        hi = ")" if open_high else "]"
        raise PrivcheckUsageError(f"{name} must be a probability in {lo}0, 1{hi}, got {value!r}")
    return out


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Validate an integer (a float with an integral value is accepted) in [minimum, maximum]."""
    if isinstance(value, bool):
        raise PrivcheckUsageError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        out = int(value)  # exactly: a float would round integers above 2^53
    else:
        try:
            f = float(value)
        except (TypeError, ValueError, OverflowError):
            raise PrivcheckUsageError(f"{name} must be an integer, got {value!r}") from None
        if math.isnan(f) or math.isinf(f) or f != int(f):
            raise PrivcheckUsageError(f"{name} must be an integer, got {value!r}")
        out = int(f)
    if minimum is not None and out < minimum:
        bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise PrivcheckUsageError(f"{name} must be an integer {bound}, got {_shown(value)}")
    if maximum is not None and out > maximum:
        bound = f"<= {maximum}" if minimum is None else f"in [{minimum}, {maximum}]"
        raise PrivcheckUsageError(f"{name} must be an integer {bound}, got {_shown(value)}")
    return out


def _shown(value: Any) -> str:
    """``value`` as a message shows it: ``1e+300`` rather than the 301 digits of a huge integer."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1e18:
        return f"{float(value):.6g}"
    return repr(value)


def check_in_interval(name: str, value: Any, low: float, high: float, *, closed: str = "both") -> float:
    """Validate ``low <(=) value <(=) high``; ``closed`` is 'both', 'left', 'right' or 'neither'."""
    out = _as_float(name, value)
    left = out >= low if closed in ("both", "left") else out > low
    right = out <= high if closed in ("both", "right") else out < high
    if not (left and right):
        lb = "[" if closed in ("both", "left") else "("
        rb = "]" if closed in ("both", "right") else ")"
        raise PrivcheckUsageError(f"{name} must be in {lb}{low:g}, {high:g}{rb}, got {value!r}")
    return out


def check_bool(name: str, value: Any) -> bool:
    """Validate a flag: ``True`` or ``False`` (numpy booleans accepted)."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise PrivcheckUsageError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_confidence(value: Any) -> float:
    """Validate a confidence level in (0, 1)."""
    return check_probability("confidence", value, open_low=True, open_high=True)


def check_output_path(option: str, path: Any, *, allow_stdout: bool = False) -> str:
    """Validate a report path before a run: its directory exists and is writable, it is not a directory.

    ``option`` names the flag in the message (e.g. ``--json``); ``-`` (standard
    output) is accepted when ``allow_stdout``. Every report writer is checked the
    same way, so a missing directory is reported up front, not after a long run.
    """
    import os

    if not isinstance(path, str) or not path.strip():
        raise PrivcheckUsageError(f"{option} needs a file path{' or -' if allow_stdout else ''}, got {path!r}")
    if path == "-":
        if allow_stdout:
            return path
        raise PrivcheckUsageError(f"{option} writes a file; '-' (standard output) is only accepted by --json")
    if os.path.isdir(path):
        raise PrivcheckUsageError(f"{option}: {path!r} is a directory; give a file path")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise PrivcheckUsageError(f"{option}: directory {os.path.dirname(path) or '.'!r} of {path!r} does not exist")
    if not os.access(directory, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PrivcheckUsageError(f"{option}: {path!r} is not writable")
    existed = os.path.exists(path)
    try:  # what os.access cannot tell (a read-only or special file system such as /proc, a full quota): try it
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise PrivcheckUsageError(f"{option}: {path!r} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        with contextlib.suppress(OSError):
            os.remove(path)
    return path


def parse_finite_float(name: str, text: Any) -> float:
    """A finite float from what the user typed; the message echoes ``text`` verbatim (not "NaN"/"inf")."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        out = float(text)
    else:
        try:
            out = float(str(text).strip())
        except ValueError:
            raise PrivcheckUsageError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(out):
        raise PrivcheckUsageError(f"{name} must be a finite number, got {text!r}")
    return out


def parse_integer(name: str, text: Any) -> int:
    """An integer from what the user typed (``1e9`` and ``1_000`` accepted when integral); echoes ``text``."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    s = str(text).strip()
    try:
        return int(s.replace("_", ""))
    except ValueError:
        pass
    try:
        f = float(s)
    except ValueError:
        raise PrivcheckUsageError(f"{name} must be an integer, got {text!r}") from None
    if not math.isfinite(f) or f != int(f):
        raise PrivcheckUsageError(f"{name} must be an integer, got {text!r}")
    return int(f)
