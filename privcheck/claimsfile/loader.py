"""Loading a user claims file (``.toml`` or ``.py``): validate everything, then register its claims.

The kinds of TOML entry are the explicit table :data:`TABLES` (one module each); to add a kind,
write its module with a :class:`~privcheck.claimsfile.entry.TableKind` and add it here.
"""

from __future__ import annotations

import os
import runpy

from privcheck.base.errors import PrivcheckUsageError
from privcheck.claims import CATALOGUE, Check, Claim
from privcheck.claimsfile import accountant, calibrator, estimator, privacy, sampling, scores, trace
from privcheck.claimsfile.entry import Entry, TableKind, one_line

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

#: the kinds of entry a TOML file may hold, in the order their claims are registered
TABLES: dict[str, TableKind] = {
    k.name: k
    for k in (privacy.KIND, accountant.KIND, estimator.KIND, sampling.KIND, trace.KIND, calibrator.KIND, scores.KIND)
}

_LOADED: dict[str, list[str]] = {}


def load_user_file(path: str, *, distributed: bool = False) -> list[str]:
    """Register the claims of a user file (``.toml`` or ``.py``) and return their ids, in file order.

    Loading the same file twice returns the same ids without registering again. distributed: the
    run samples on a Dask cluster (TOML entries' sample sizes are then capped at
    :data:`~privcheck.base.resources.MAX_SAMPLES`, else at :data:`~privcheck.base.resources.MAX_SAMPLES_LOCAL`);
    oversize entries are refused at load from their size estimate.
    Raises :class:`PrivcheckUsageError` (one line naming the file, the entry
    and the problem) for a missing file, malformed TOML, unknown keys or
    names, wrong types, NaN or out-of-range values, or a file that registers
    no claim.
    """
    from privcheck.claim_index import load_claims

    load_claims()  # the built-in claims (ids a file must not redefine); their checks load on selection
    if not isinstance(path, (str, os.PathLike)):
        raise PrivcheckUsageError(f"claims file must be a path, got {path!r}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise PrivcheckUsageError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise PrivcheckUsageError(f"{path}: not a file")
    key = os.path.realpath(path)
    if key in _LOADED:
        return list(_LOADED[key])
    ext = os.path.splitext(path)[1].lower()
    if ext == ".toml":
        ids = _load_toml(path, distributed)
    elif ext == ".py":
        ids = _load_python(path)
    else:
        raise PrivcheckUsageError(f"{path}: claims files must end in .toml or .py")
    if not ids:
        raise PrivcheckUsageError(f"{path}: the file registers no claim")
    _LOADED[key] = ids
    return list(ids)


def unload_user_file(path: str) -> None:
    """Remove the claims (and checks) a loaded user file registered (tests, long-lived processes)."""
    key = os.path.realpath(os.fspath(path))
    for cid in _LOADED.pop(key, []):
        CATALOGUE.claims.pop(cid, None)
        CATALOGUE.checks.pop(cid, None)


def _load_python(path: str) -> list[str]:
    from privcheck.auditor.user_code import interrupt_is_real
    from privcheck.claim_index import builtin_modules, recording

    try:
        with recording() as records:
            runpy.run_path(path, run_name="privcheck_user_claims")
    except PrivcheckUsageError as exc:
        raise PrivcheckUsageError(f"{path}: {one_line(exc)}") from None
    except SyntaxError as exc:
        raise PrivcheckUsageError(f"{path}:{exc.lineno}: SyntaxError: {exc.msg}") from None
    except SystemExit as exc:
        raise PrivcheckUsageError(f"{path}: the file called exit({exc.code})") from None
    except KeyboardInterrupt:
        if interrupt_is_real():
            raise
        raise PrivcheckUsageError(f"{path}: the file raised KeyboardInterrupt while loading") from None
    except Exception as exc:  # a user file that fails to import is bad input, reported in one line
        raise PrivcheckUsageError(f"{path}: {type(exc).__name__}: {one_line(exc)}") from None
    # the user's claims: those the file (or its own modules) registered a claim or check for; built-in
    # modules the file imports register theirs too, told apart by the module that registered them
    builtin = builtin_modules()
    ids = list(dict.fromkeys(cid for mod, cid, reg in records if reg is CATALOGUE and mod not in builtin))
    for cid in ids:
        if not CATALOGUE.checks.get(cid):
            raise PrivcheckUsageError(f"{path}: claim {cid!r} has no check (use formula_claim or @check)")
    return ids


def _load_toml(path: str, distributed: bool = False) -> list[str]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise PrivcheckUsageError(f"{path}: malformed TOML: {one_line(exc)}") from None
    except OSError as exc:
        raise PrivcheckUsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    for key in data:
        if key not in TABLES:
            raise PrivcheckUsageError(
                f"{path}: unknown top-level key {key!r}; allowed: {', '.join(f'[[{t}]]' for t in TABLES)}"
            )
    paper = os.path.basename(path).replace(" ", "_")
    specs: list[tuple[Claim, Check]] = []
    seen: set[str] = set()
    for table, kind in TABLES.items():
        entries = data.get(table, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise PrivcheckUsageError(f"{path}: {table!r} must be an array of tables, written [[{table}]]")
        for i, raw in enumerate(entries, start=1):
            ent = Entry(path, kind, i, raw, distributed=distributed)
            ent.validate_keys()
            cid = ent.id
            if cid in seen:
                ent.fail(f"id {cid!r} is used twice in this file")
            seen.add(cid)
            if cid in CATALOGUE.claims:
                ent.fail(f"id {cid!r} is already a claim of the catalogue; choose another id")
            specs.append(kind.build(ent, paper))
    for claim, chk in specs:  # register only when the whole file is valid
        CATALOGUE.add_claim(claim)
        CATALOGUE.add_check(chk)
    return [c.id for c, _ in specs]
