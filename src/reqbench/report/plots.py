"""Bar charts as PNG bytes (matplotlib, Agg backend: no display needed, safe in threads and CI).

`bar_chart` draws one metric per label (condition, agent, ...) with optional confidence intervals as
error bars; grouped bars and distributions (`headline_plots` draws a summary's `Plot`s with them).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402


def bar_chart(labels: Sequence[str], values: Sequence[float | None], *, title: str = "",
              ylabel: str = "", ci: Sequence[tuple[float, float] | None] | None = None) -> bytes:
    """A bar per label; `ci[i] = (lo, hi)` draws an asymmetric error bar. None values draw no bar."""
    fig = Figure(figsize=(max(4.0, 0.7 * len(labels) + 2), 3.4), dpi=100)
    ax = fig.add_subplot()
    heights = [math.nan if v is None else float(v) for v in values]
    positions = range(len(labels))
    ax.bar(positions, heights, color="#4C72B0")
    if ci is not None:
        pairs = [(0.0, 0.0) if b is None or math.isnan(h) else (max(0.0, h - b[0]), max(0.0, b[1] - h))
                 for h, b in zip(heights, ci, strict=True)]
        lower, upper = [p[0] for p in pairs], [p[1] for p in pairs]
        ax.errorbar(positions, [0.0 if math.isnan(h) else h for h in heights], yerr=[lower, upper],
                    fmt="none", ecolor="black", capsize=4)
    _set_ylim(ax, heights, ci)
    ax.set_xticks(list(positions), [str(label) for label in labels], rotation=30 if len(labels) > 4 else 0,
                  ha="right" if len(labels) > 4 else "center")
    return _png(fig, ax, title, ylabel)


def _png(fig: Figure, ax: Any, title: str, ylabel: str) -> bytes:
    """Title, y label and grid of every chart, then the figure as PNG bytes."""
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _set_ylim(ax: Any, heights: Sequence[float], ci: Sequence[tuple[float, float] | None] | None) -> None:
    """Rates (everything within [0, 1]) get the full 0..1 axis; other non-negative values start at 0."""
    points = [h for h in heights if not math.isnan(h)]
    points += [x for b in (ci or []) if b is not None for x in b]
    if not points or min(points) < 0:
        return
    top = max(points)
    ax.set_ylim(0, 1.05 if top <= 1 else top * 1.1)


def grouped_bar_chart(labels: Sequence[str], series: Mapping[str, Sequence[float | None]], *, title: str = "",
                      ylabel: str = "") -> bytes:
    """Bars for several metrics side by side per label (e.g. Proc and Final F2P per persona)."""
    fig = Figure(figsize=(max(4.5, 0.9 * len(labels) * max(1, len(series)) / 2 + 2), 3.6), dpi=100)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(series))
    all_heights: list[float] = []
    for i, (name, values) in enumerate(series.items()):
        heights = [math.nan if v is None else float(v) for v in values]
        all_heights += heights
        ax.bar([p + (i - (len(series) - 1) / 2) * width for p in range(len(labels))], heights, width,
               label=name)
    _set_ylim(ax, all_heights, None)
    if all(h <= 1 for h in all_heights if not math.isnan(h)):
        ax.set_ylim(0, 1.25)  # room for the legend above full bars
    ax.set_xticks(list(range(len(labels))), [str(x) for x in labels], rotation=20 if len(labels) > 3 else 0,
                  ha="right" if len(labels) > 3 else "center")
    ax.legend(fontsize="small")
    return _png(fig, ax, title, ylabel)


def distribution_chart(groups: Mapping[str, Sequence[float]], *, title: str = "", ylabel: str = "") -> bytes:
    """One column of points per group with its mean as a bar outline (small samples stay visible)."""
    fig = Figure(figsize=(max(4.5, 1.1 * len(groups) + 2), 3.6), dpi=100)
    ax = fig.add_subplot()
    for i, values in enumerate(groups.values()):
        vals = [float(v) for v in values]
        jitter = [i + ((k % 5) - 2) * 0.05 for k in range(len(vals))]
        ax.scatter(jitter, vals, color="#4C72B0", alpha=0.8, zorder=3)
        if vals:
            ax.hlines(sum(vals) / len(vals), i - 0.3, i + 0.3, color="black", zorder=4)
    ax.set_xticks(list(range(len(groups))), list(groups), rotation=20 if len(groups) > 3 else 0,
                  ha="right" if len(groups) > 3 else "center")
    return _png(fig, ax, title, ylabel)
