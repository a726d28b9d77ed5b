"""What ``privcheck list``, ``privcheck papers`` and ``audit --help`` show, without a slow start.

Loading the catalogue imports every check module (sympy, statsmodels, scipy:
seconds). The listing itself is small, so :func:`catalogue_listing` keeps it in
a cache file keyed by a fingerprint of the installed sources (path, size and
modification time of every ``.py`` file of ``privcheck``, ``estimators`` and
``proofs``): the first ``privcheck list`` after an install or an edit builds
it, later ones read it in milliseconds. Any problem with the cache (no home
directory, read-only disk, a corrupt file) falls back to building the listing.

The cache directory is ``$PRIVCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/privcheck``,
else ``~/.cache/privcheck``.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import json
import os
from typing import Sequence

#: bump when the listing's layout changes
_FORMAT = 2
_PACKAGES = ("privcheck", "estimators", "proofs")


def cache_dir() -> str:
    """The directory of privcheck's cache files (not created here)."""
    if os.environ.get("PRIVCHECK_CACHE_DIR"):
        return os.environ["PRIVCHECK_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "privcheck")


def _fingerprint() -> str:
    h = hashlib.sha1(f"format {_FORMAT}".encode())
    for pkg in _PACKAGES:
        spec = importlib.util.find_spec(pkg)
        for root in (spec.submodule_search_locations or []) if spec else []:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__pycache__")))
                for fn in sorted(filenames):
                    if fn.endswith(".py"):
                        st = os.stat(os.path.join(dirpath, fn))
                        h.update(
                            f"{os.path.relpath(os.path.join(dirpath, fn), root)}:{st.st_size}:{st.st_mtime_ns};".encode()
                        )
    return h.hexdigest()[:16]


def build_listing() -> dict:
    """The listing from the live catalogue and mechanism registry (slow: imports every check module).

    Returns ``{"claims": [{id, source, kind, statement, methods}], "mechanisms":
    [{name, source, parameters, defaults}]}``.
    """
    import inspect

    from estimators.registry import mechanism_class, mechanism_names, mechanism_parameters
    from privcheck.runner import load_catalogue

    reg = load_catalogue()
    claims = [
        {
            "id": c.id,
            "source": c.source,
            "kind": c.kind,
            "statement": c.statement,
            "methods": [k.method + (f":{k.part}" if k.part else "") for k in reg.checks.get(c.id, [])]
            or list(c.methods),
        }
        for c in reg.claims.values()
    ]
    mechs = []
    for n in mechanism_names():
        cls = mechanism_class(n)
        params = mechanism_parameters(n)
        sig = inspect.signature(cls.__init__)
        defaults = {}
        for p in params:
            d = sig.parameters[p].default
            defaults[p] = (
                None
                if d is inspect.Parameter.empty
                else (d if isinstance(d, (int, float, str, bool)) or d is None else repr(d))
            )
        mechs.append({"name": n, "source": cls.source, "parameters": params, "defaults": defaults})
    return {"claims": claims, "mechanisms": mechs}


def catalogue_listing(use_cache: bool = True) -> dict:
    """The listing of :func:`build_listing`, from the cache when it matches the installed sources."""
    if not use_cache:
        return build_listing()
    try:
        path = os.path.join(cache_dir(), f"catalogue-{_fingerprint()}.json")
    except OSError:
        return build_listing()
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if isinstance(data, dict) and "claims" in data and "mechanisms" in data:
            return data
    except (OSError, ValueError):
        pass
    data = build_listing()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        pass
    return data


def filter_listing(data: dict, patterns: Sequence[str] | None) -> dict:
    """Claims whose id, and mechanisms whose name, match any of the shell globs ``patterns`` (all if none)."""
    if not patterns:
        return data

    def hit(name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, p) for p in patterns)

    return {
        "claims": [c for c in data["claims"] if hit(c["id"])],
        "mechanisms": [m for m in data["mechanisms"] if hit(m["name"])],
    }


def mechanism_signature(m: dict) -> str:
    """``m=2, eps=1.0, p=None`` — a mechanism's parameters with their defaults."""
    d = m.get("defaults") or {}
    return ", ".join(f"{p}={d.get(p)}" for p in m["parameters"])
