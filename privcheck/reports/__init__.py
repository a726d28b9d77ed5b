"""Reports of verification runs: terminal table, JSON, Markdown, JUnit, HTML (with PNG figures).

- :func:`print_table` — terminal table grouped by paper with a summary line per paper;
- :func:`write_json` — the verdict records (DESIGN.md field names);
- :func:`write_markdown` / :func:`write_html` — reports with figures beside them;
- :func:`write_junit` — one test case per claim and method for CI systems;
- :func:`write_figures` — the figures alone (:mod:`privcheck.reports.plots`).
"""
from privcheck.reports.text import print_table, records_to_json, write_json  # noqa: F401
from privcheck.reports.junit import records_to_junit, write_junit  # noqa: F401
from privcheck.reports.markdown import records_to_markdown, write_markdown  # noqa: F401
from privcheck.reports.html import records_to_html, write_html  # noqa: F401
from privcheck.reports.plots import Figure, FigureSet, write_figures  # noqa: F401
from privcheck.reports.curves import EpsCurve, default_curves, eps_curve  # noqa: F401
