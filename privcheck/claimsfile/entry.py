"""One entry of a TOML claims file under validation, and what every kind of entry shares.

A kind of entry (``[[privacy]]``, ``[[accountant]]`` …) is a :class:`TableKind`: its key table, its
required keys and the function that turns a validated :class:`Entry` into a claim and its check.
The kinds a file may hold are listed, in order, in :data:`privcheck.claimsfile.loader.TABLES`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import Check, Claim, RunContext

EXPECTS = ("holds", "refuted", "inconclusive")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", list: "an array", bool: "true or false"}
#: keys every entry takes
COMMON = {"id": str, "expect": str, "source": str, "statement": str}


@dataclass(frozen=True)
class TableKind:
    """A kind of TOML entry: ``[[name]]`` with ``keys`` (name → type: str, float, int, bool, list, dict, or a
    tuple of them for a key that takes either, e.g. ``(int, str)``),
    ``required`` keys, and ``build(entry, paper) -> (Claim, Check)``."""

    name: str
    keys: dict[str, Any]
    required: tuple[str, ...]
    build: Callable[[Entry, str], tuple[Claim, Check]]


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (a KeyError's without its quotes)."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(text.split()) or type(exc).__name__


def seed_of(ctx: RunContext) -> int:
    """The integer seed a check of a claims file runs with (from the run's seed sequence)."""
    return int(ctx.seed_seq.generate_state(1)[0])


@dataclass
class Entry:
    """One TOML entry under validation; :meth:`fail` raises the one-line usage error."""

    path: str
    kind: TableKind
    index: int
    raw: dict
    id: str = ""
    expect: str = "holds"
    values: dict = field(default_factory=dict)
    distributed: bool = False  # the run samples on Dask (larger sample cap)

    @property
    def table(self) -> str:
        return self.kind.name

    def where(self) -> str:
        label = f"[[{self.table}]] #{self.index}"
        rid = self.raw.get("id")
        return f"{label} (id {rid!r})" if isinstance(rid, str) else label

    def fail(self, problem: str) -> None:
        raise PrivcheckUsageError(f"{self.path}: {self.where()}: {problem}")

    def validate_keys(self) -> None:
        allowed = self.kind.keys
        for key, val in self.raw.items():
            if key not in allowed:
                self.fail(f"unknown key {key!r}; allowed: {', '.join(allowed)}")
            self.values[key] = self._typed(key, val, allowed[key])
        for key in self.kind.required:
            if key not in self.raw:
                self.fail(f"missing required key {key!r}")
        self.id = self.values["id"]
        if not _ID.match(self.id):
            self.fail(f"id must contain only letters, digits, '.', '_' and '-', got {self.id!r}")
        self.expect = self.values.get("expect", "holds")
        if self.expect not in EXPECTS:
            self.fail(f"expect must be one of {', '.join(EXPECTS)}, got {self.expect!r}")

    def _typed(self, key: str, val: Any, typ: Any) -> Any:
        if isinstance(typ, tuple):  # either of these types: the first that accepts the value
            if isinstance(val, bool) and bool not in typ or not isinstance(val, typ):
                self.fail(f"{key} must be {' or '.join(_TYPE_NAMES.get(t, t.__name__) for t in typ)}, got {val!r}")
            return self._typed(key, val, next(t for t in typ if isinstance(val, t)))
        if typ is float:
            if isinstance(val, bool) or not isinstance(val, (int, float)):
                self.fail(f"{key} must be a number, got {val!r}")
            if not math.isfinite(val):
                self.fail(f"{key} must be a finite number, got {val!r}")
            return float(val)
        if typ is int:
            if isinstance(val, bool) or not isinstance(val, int):
                self.fail(f"{key} must be an integer, got {val!r}")
            return val
        if typ is dict:
            if not isinstance(val, dict):
                self.fail(f"{key} must be a table such as {{name = value}}, got {val!r}")
            return {k: self._param(f"{key}.{k}", v) for k, v in val.items()}
        if not isinstance(val, typ):
            self.fail(f"{key} must be a {typ.__name__}, got {val!r}")
        return val

    def _param(self, name: str, val: Any) -> Any:
        """A parameter value: a finite number, a word, a bool, or a list of finite numbers."""
        if isinstance(val, float) and not math.isfinite(val):
            self.fail(f"{name} must be a finite number, got {val!r}")
        if isinstance(val, list):
            for v in val:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    self.fail(f"{name} must be a list of finite numbers, got {val!r}")
        elif isinstance(val, dict):
            self.fail(f"{name} must be a number, a word or a list of numbers, not a table")
        return val

    def claim(self, paper: str, kind: str, method: str, statement: str) -> Claim:
        where = self.values.get("source", f"{self.table} #{self.index}")
        return Claim(self.id, paper, where, kind, self.values.get("statement", statement), (method,))

    def guard(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` and turn a usage/value/type error into this entry's one-line usage error."""
        from privcheck.auditor.user_code import UserCodeError

        try:
            return fn()
        except UserCodeError as exc:  # the user's code exited, crashed or misbehaved while probed
            raise UserCodeError(
                f"{self.path}: {self.where()}: {exc}", exc.function, exc.kind, exc.user_traceback, exc.cause
            ) from None
        except (PrivcheckUsageError, ValueError, TypeError, KeyError) as exc:
            self.fail(one_line(exc))
