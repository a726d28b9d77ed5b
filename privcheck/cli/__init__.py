"""The ``privcheck`` command line: one module per command group.

:mod:`privcheck.cli.app` holds the top-level group and the ``list`` and ``papers`` commands, and
registers the others by name (imported when the command line names them): :mod:`privcheck.cli.verify`
``privcheck verify``, :mod:`privcheck.cli.audit` ``privcheck audit`` (user code in
:mod:`privcheck.cli.audit_user`, shared terminal output in :mod:`privcheck.cli.terminal`),
:mod:`privcheck.cli.budget` the accountants (``privcheck budget ...``),
:mod:`privcheck.cli.curves` the trade-off / GDP / risk reports of ``budget pld``,
:mod:`privcheck.cli.omp` ``privcheck omp``, and :mod:`privcheck.cli.guard` the guard that turns
bad input into one line and exit code 2.
"""

from __future__ import annotations

from privcheck.cli.app import main

__all__ = ["main"]
