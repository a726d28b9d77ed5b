"""Reports of verification runs: terminal table, JSON, Markdown, JUnit, HTML (with PNG figures).

- :func:`print_report` — terminal output: one line per check, findings, summary (``print_check`` per check);
- :func:`write_json` — the verdict records (DESIGN.md field names);
- :func:`write_markdown` — a Markdown report with its PNG figures beside it;
- :func:`write_html` — one self-contained HTML file (figures as data URIs, formulas as MathML);
- :func:`write_junit` — one test case per claim and method for CI systems;
- :func:`write_figures` — the figures alone (:mod:`privcheck.reports.plots`).

The names are imported from their modules on first use (PEP 562), so that ``privcheck audit``,
which prints through :mod:`privcheck.reports.text` alone, does not import the Markdown, HTML,
JUnit and figure writers at start-up.
"""

import importlib as _importlib

#: public name -> the module of this package that defines it
_EXPORTS = {
    **dict.fromkeys(
        ["print_check", "print_report", "print_table", "records_from_json", "records_to_json", "write_json"], "text"
    ),
    **dict.fromkeys(["records_to_junit", "write_junit"], "junit"),
    **dict.fromkeys(["records_to_markdown", "write_markdown"], "markdown"),
    **dict.fromkeys(["records_to_html", "write_html"], "html"),
    **dict.fromkeys(["Figure", "FigureSet", "write_figures"], "plots"),
    **dict.fromkeys(["EpsCurve", "curves_for", "default_curves", "eps_curve"], "curves"),
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Import a public name from its module on first access (then it is an ordinary attribute)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'privcheck.reports' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"privcheck.reports.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
