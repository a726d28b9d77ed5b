"""The import graph of the project's own modules, read from the source (every import statement, lazy ones too).

Used by ``tests/test_import_layers.py``; run it directly to print the circles and the layer breaches::

    python tests/import_graph.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("privcheck", "estimators", "accountants", "proofs")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """``{dotted module name: file}`` for every module of the project's packages (``__init__`` is the package)."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module an import of ``name`` loads last (its longest prefix that is a module)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        cand = ".".join(parts[:k])
        if cand in modules:
            return cand
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that ``module``'s import statements name (anywhere in the file)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                hit = _resolve(a.name, modules)
                if hit:
                    out.add(hit)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                src = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            for a in node.names:
                full = f"{src}.{a.name}"
                hit = full if full in modules else _resolve(src, modules)
                if hit:
                    out.add(hit)
    out.discard(module)
    return out


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """``{module: modules it imports}`` over the project."""
    modules = module_files(root)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


#: which layer a module belongs to (the first matching prefix); a layer may import its own and lower layers only
LAYERS = (
    ("privcheck.base", 0),
    ("estimators", 1),
    ("accountants", 1),
    ("proofs", 2),  # the symbolic checks register claims: they sit beside the catalogue
    ("privcheck", 2),
)


def layer_of(module: str) -> int:
    for prefix, level in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return level
    raise KeyError(module)


def breaches(g: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports that run up the layers: the foundation importing anything above it, estimators/accountants/proofs
    importing the application (``privcheck`` outside ``privcheck.base``)."""
    out = []
    for m, targets in sorted(g.items()):
        for t in sorted(targets):
            if layer_of(t) > layer_of(m):
                out.append((m, t))
    return out


if __name__ == "__main__":  # pragma: no cover - a developer's view
    g = graph()
    for c in circles(g):
        print(f"circle of {len(c)}: " + ", ".join(c))
        for m in c:
            print(f"    {m} -> " + ", ".join(sorted(t for t in g[m] if t in c)))
    for m, t in breaches(g):
        print(f"layer breach: {m} -> {t}")
