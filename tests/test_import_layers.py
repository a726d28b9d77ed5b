"""The project's modules import downward only and in no circle (every import statement counts, lazy ones too).

Layers (tests/import_graph.py ``LAYERS``): the foundation ``privcheck.base`` imports nothing of the project above
it; ``estimators`` and ``accountants`` import the foundation and each other, never the application; everything
else of ``privcheck`` (and the symbolic checks in ``proofs``) sits on top. ``python tests/import_graph.py``
prints the circles and breaches.
"""

from __future__ import annotations

from import_graph import breaches, circles, graph


def test_no_import_circle():
    """No circle at all (the auditor's last three were taken apart in issue 28: there is no list of exceptions)."""
    found = circles(graph())
    assert not found, "import circle(s): " + "; ".join(" <-> ".join(c) for c in found)


def test_layers_import_downward_only():
    up = breaches(graph())
    assert not up, "imports running up the layers: " + "; ".join(f"{a} -> {b}" for a, b in up)


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    """The reader itself: a function-level import and a relative one are edges, a circle through them is found."""
    from import_graph import graph as read

    pkg = tmp_path / "privcheck"
    (pkg / "base").mkdir(parents=True)
    for sub in ("estimators", "accountants", "proofs"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "base" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from privcheck import b\n")
    (pkg / "b.py").write_text("from . import a\n")
    (pkg / "base" / "low.py").write_text("def g():\n    import privcheck.a\n")
    g = read(tmp_path)
    assert circles(g) == [["privcheck.a", "privcheck.b"]]
    assert breaches(g) == [("privcheck.base.low", "privcheck.a")]
