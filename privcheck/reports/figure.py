"""The drawing primitives every report figure shares: the :class:`Figure` record, a new constrained
matplotlib figure (Agg canvas, never ``pyplot``), saving, and the confidence label."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from privcheck.base.numtext import fmt_confidence


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
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width, height), layout="constrained", dpi=DPI)
    FigureCanvasAgg(fig)  # measurable text extents (declutter_ticks) without pyplot
    axes = fig.subplots(1, ncols)
    return fig, axes


#: the resolution of every report figure
DPI = 110
#: the least room (pixels at :data:`DPI`) between neighbouring tick labels
TICK_GAP_PX = 4.0


def _save(fig, path: str) -> None:
    declutter_ticks(fig)
    fig.savefig(path, dpi=DPI)


def tick_labels(ax, which: str) -> list:
    """The visible, non-empty tick labels of one axis of ``ax`` (``which`` = ``"x"`` or ``"y"``) whose ticks
    lie inside the view, in axis order (positions are known after a draw)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = sorted(axis.get_view_interval())
    tol = 1e-9 * ((hi - lo) or 1.0)
    axis.get_majorticklabels()  # sets the labels' texts for the current locator
    locs = axis.get_majorticklocs()
    pairs = sorted(zip(locs, axis.get_major_ticks(len(locs))), key=lambda p: p[0])
    labels = [t.label1 for loc, t in pairs if lo - tol <= loc <= hi + tol]
    return [lab for lab in labels if lab.get_visible() and lab.get_text()]


def labels_collide(labels: list, which: str, gap: float = TICK_GAP_PX) -> bool:
    """True when two neighbouring tick labels (in axis order) come closer than ``gap`` pixels.

    x labels: horizontal ones by their boxes; rotated ones (angle θ) by the distance between their parallel
    baselines, Δx·sin θ, against the text height. y labels: their boxes along y.
    """
    if len(labels) < 2:
        return False
    renderer = labels[0].figure.canvas.get_renderer()
    boxes = [lab.get_window_extent(renderer) for lab in labels]
    order = sorted(range(len(boxes)), key=lambda i: boxes[i].x0 if which == "x" else boxes[i].y0)
    for i, j in zip(order, order[1:]):
        a, b = boxes[i], boxes[j]
        if which == "y":
            if b.y0 < a.y1 + gap / 4:
                return True
            continue
        angle = math.radians(labels[i].get_rotation() % 180)
        if abs(math.sin(angle)) < 1e-3:
            if b.x0 < a.x1 + gap:
                return True
        else:
            height = labels[i].get_fontsize() * DPI / 72
            if abs(b.x1 - a.x1) * abs(math.sin(angle)) < height + gap / 2:
                return True
    return False


def declutter_ticks(fig, max_rounds: int = 6) -> None:
    """Keep tick labels apart: on an axis whose neighbouring labels collide (closer than
    :data:`TICK_GAP_PX`), fewer ticks where a locator chooses them (numeric axes: two fewer per round, at least
    two), else (fixed category labels) x labels rotated by 30° (then 60°) and y labels made smaller.
    Draws the figure (Agg) to measure the labels; repeats until nothing collides or ``max_rounds`` pass."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.ticker import FixedLocator, LogLocator, MaxNLocator

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    for ax in fig.axes:
        for which in ("x", "y"):
            axis = ax.xaxis if which == "x" else ax.yaxis
            for round_ in range(max_rounds):
                labels = tick_labels(ax, which)
                if not labels_collide(labels, which):
                    break
                if not isinstance(axis.get_major_locator(), FixedLocator):
                    n = max(2, len(labels) - 2)
                    log = axis.get_scale() == "log"
                    axis.set_major_locator(
                        LogLocator(numticks=n + 1) if log else MaxNLocator(nbins=n, steps=[1, 2, 2.5, 5, 10])
                    )
                elif which == "x":
                    for lab in axis.get_ticklabels():
                        lab.set_rotation(30 * (round_ + 1) if round_ < 2 else 90)
                        lab.set_horizontalalignment("right")
                        lab.set_rotation_mode("anchor")
                else:
                    for lab in axis.get_ticklabels():
                        lab.set_fontsize(max(5.0, lab.get_fontsize() * 0.85))
                fig.canvas.draw()


def _conf(c: Any) -> str:
    return fmt_confidence(c)
