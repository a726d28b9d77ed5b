"""Reports of verification runs: terminal table, JSON, Markdown, JUnit, HTML (with PNG figures).

- :func:`print_report` — terminal output: one line per check, findings, summary (``print_check`` per check);
- :func:`write_json` — the verdict records (DESIGN.md field names);
- :func:`write_markdown` — a Markdown report with its PNG figures beside it;
- :func:`write_html` — one self-contained HTML file (figures as data URIs, formulas as MathML);
- :func:`write_junit` — one test case per claim and method for CI systems;
- :func:`write_figures` — the figures alone (:mod:`privcheck.reports.plots`).
"""
from privcheck.reports.text import (  # noqa: F401
    print_check,
    print_report,
    print_table,
    records_from_json,
    records_to_json,
    write_json,
)
from privcheck.reports.junit import records_to_junit, write_junit  # noqa: F401
from privcheck.reports.markdown import records_to_markdown, write_markdown  # noqa: F401
from privcheck.reports.html import records_to_html, write_html  # noqa: F401
from privcheck.reports.plots import Figure, FigureSet, write_figures  # noqa: F401
from privcheck.reports.curves import EpsCurve, curves_for, default_curves, eps_curve  # noqa: F401
