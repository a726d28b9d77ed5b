"""The drawing primitives every report figure shares: the :class:`Figure` record, a new constrained
matplotlib figure (Agg canvas, never ``pyplot``), saving, and the confidence label."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Figure:
    """One PNG of a report: ``filename`` (relative), title, caption and the record it belongs to."""

    filename: str
    title: str
    caption: str = ""
    record: str = ""  # the anchor of the record it illustrates (``rec-<id>-<method>``), if one


@dataclass
class FigureSet:
    """What :func:`write_figures` produced: the figures and the notes on skipped plots."""

    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _new_figure(width: float = 6.4, height: float = 4.0, ncols: int = 1):
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def _save(fig, path: str) -> None:
    fig.savefig(path, dpi=110)


def _conf(c: Any) -> str:
    from privcheck.reports.text import fmt_confidence

    return fmt_confidence(c)
