"""Bar charts as PNG bytes (matplotlib, Agg backend: no display needed, safe in threads and CI).

`bar_chart` draws one metric per label (condition, agent, ...) with optional confidence intervals as
error bars; grouped bars, distributions and forest plots of differences (`headline_plots` draws a
summary's `Plot`s with them).

Every chart is readable whatever its numbers: the title wraps to the figure's width (never clipped),
every bar carries its value, and a bar of height 0 is drawn as a line above the axis with its "0", so an
all-zero chart shows its zeros rather than an empty frame.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

COLOUR = "#4C72B0"
_CHARS_PER_INCH = 10.5
"""Title characters that fit one inch of figure at the default 12 pt title font and 100 dpi."""


def value_label(value: float) -> str:
    return f"{value:.3g}"


def bar_chart(labels: Sequence[str], values: Sequence[float | None], *, title: str = "",
              ylabel: str = "", ci: Sequence[tuple[float, float] | None] | None = None) -> bytes:
    """A bar per label; `ci[i] = (lo, hi)` draws an asymmetric error bar. None values draw no bar."""
    fig = Figure(figsize=(max(4.0, 0.7 * len(labels) + 2), 3.6), dpi=100)
    ax = fig.add_subplot()
    heights = [math.nan if v is None else float(v) for v in values]
    positions = list(range(len(labels)))
    ax.bar(positions, heights, color=COLOUR, edgecolor=COLOUR, linewidth=1.5)
    tops = list(heights)
    if ci is not None:
        pairs = [(0.0, 0.0) if b is None or math.isnan(h) else (max(0.0, h - b[0]), max(0.0, b[1] - h))
                 for h, b in zip(heights, ci, strict=True)]
        lower, upper = [p[0] for p in pairs], [p[1] for p in pairs]
        ax.errorbar(positions, [0.0 if math.isnan(h) else h for h in heights], yerr=[lower, upper],
                    fmt="none", ecolor="black", capsize=4)
        tops = [h + u for h, u in zip(heights, upper, strict=True)]
    top = _set_ylim(ax, heights, ci)
    _label_bars(ax, positions, heights, tops, top)
    ax.set_xticks(positions, [str(label) for label in labels], rotation=30 if len(labels) > 4 else 0,
                  ha="right" if len(labels) > 4 else "center")
    return _png(fig, ax, title, ylabel)


def _label_bars(ax: Any, positions: Sequence[float], heights: Sequence[float], tops: Sequence[float],
                span: float, fontsize: str = "small") -> None:
    """Each bar's value just above the bar (or above its interval)."""
    for x, h, t in zip(positions, heights, tops, strict=True):
        if not math.isnan(h):
            ax.text(x, (h if math.isnan(t) else max(h, t)) + span * 0.015, value_label(h), ha="center",
                    va="bottom", fontsize=fontsize)


def _png(fig: Figure, ax: Any, title: str, ylabel: str) -> bytes:
    """Title (wrapped to the figure's width), y label and grid of every chart, then the PNG bytes."""
    _title(fig, title)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _title(fig: Figure, title: str) -> None:
    """The title centred over the whole figure and wrapped to its width (a y label or long tick labels leave
    the axes narrower than the figure: a title over the axes would run off the figure's edge)."""
    if title:
        fig.suptitle(textwrap.fill(title, width=max(20, int(fig.get_figwidth() * _CHARS_PER_INCH))))


def _set_ylim(ax: Any, heights: Sequence[float], ci: Sequence[tuple[float, float] | None] | None,
              headroom: float = 1.12) -> float:
    """Rates (everything within [0, 1]) get the 0..1 axis, other non-negative values start at 0; a little
    room below 0 keeps a zero bar visible above the axis and room above keeps the value labels inside.
    Returns the axis span."""
    points = [h for h in heights if not math.isnan(h)]
    points += [x for b in (ci or []) if b is not None for x in b]
    if not points or min(points) < 0:
        low, high = ax.get_ylim()
        return float(high - low)
    top = max(points)
    high = headroom if top <= 1 else top * headroom
    ax.set_ylim(-0.02 * high, high)
    return high


def grouped_bar_chart(labels: Sequence[str], series: Mapping[str, Sequence[float | None]], *, title: str = "",
                      ylabel: str = "") -> bytes:
    """Bars for several metrics side by side per label (e.g. Proc and Final F2P per persona)."""
    fig = Figure(figsize=(max(4.5, 0.9 * len(labels) * max(1, len(series)) / 2 + 2), 3.8), dpi=100)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(series))
    all_heights: list[float] = []
    bars: list[tuple[list[float], list[float]]] = []
    for i, (name, values) in enumerate(series.items()):
        heights = [math.nan if v is None else float(v) for v in values]
        all_heights += heights
        xs = [p + (i - (len(series) - 1) / 2) * width for p in range(len(labels))]
        colour = ax.bar(xs, heights, width, label=name).patches[0].get_facecolor()
        zeros = [x for x, h in zip(xs, heights, strict=True) if h == 0]
        ax.hlines([0.0] * len(zeros), [x - width * 0.42 for x in zeros], [x + width * 0.42 for x in zeros],
                  colors=[colour], linewidth=2.5)
        bars.append((xs, heights))
    rates = all(h <= 1 for h in all_heights if not math.isnan(h))
    span = _set_ylim(ax, all_heights, None, headroom=1.35 if rates else 1.3)  # room for the legend
    if rates:
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    for xs, heights in bars:
        _label_bars(ax, xs, heights, heights, span, fontsize="x-small")
    ax.set_xticks(list(range(len(labels))), [str(x) for x in labels], rotation=20 if len(labels) > 3 else 0,
                  ha="right" if len(labels) > 3 else "center")
    ax.legend(fontsize="small", loc="upper right")
    return _png(fig, ax, title, ylabel)


def distribution_chart(groups: Mapping[str, Sequence[float]], *, title: str = "", ylabel: str = "") -> bytes:
    """One column of points per group with its mean as a bar outline (small samples stay visible)."""
    fig = Figure(figsize=(max(4.5, 1.1 * len(groups) + 2), 3.8), dpi=100)
    ax = fig.add_subplot()
    everything: list[float] = []
    for i, values in enumerate(groups.values()):
        vals = [float(v) for v in values]
        everything += vals
        jitter = [i + ((k % 5) - 2) * 0.05 for k in range(len(vals))]
        ax.scatter(jitter, vals, color=COLOUR, alpha=0.8, zorder=3, clip_on=False)
        if vals:
            mean = sum(vals) / len(vals)
            ax.hlines(mean, i - 0.3, i + 0.3, color="black", zorder=4)
            ax.text(i + 0.32, mean, value_label(mean), va="center", fontsize="small")
    if everything and min(everything) >= 0:
        top = max(everything) or 1.0
        ax.set_ylim(-0.04 * top, top * 1.1)
    ax.set_xlim(-0.6, len(groups) - 0.2)
    ax.set_xticks(list(range(len(groups))), list(groups), rotation=20 if len(groups) > 3 else 0,
                  ha="right" if len(groups) > 3 else "center")
    return _png(fig, ax, title, ylabel)


def forest_chart(labels: Sequence[str], values: Sequence[float | None], *, title: str = "", xlabel: str = "",
                 ci: Sequence[tuple[float, float] | None] | None = None) -> bytes:
    """A forest plot: one line per label (top to bottom in order), its estimate as a point with its interval
    as a horizontal bar and its value written beside it, and a dashed line at 0 (no difference). A label
    without an estimate is listed with "no estimate"."""
    fig = Figure(figsize=(7.0, max(2.4, 0.42 * len(labels) + 1.4)), dpi=100)
    ax = fig.add_subplot()
    ys = list(range(len(labels)))[::-1]
    bounds = list(ci) if ci is not None else [None] * len(labels)
    span = [0.0] + [float(v) for v in values if v is not None] + [x for b in bounds if b is not None for x in b]
    lo, hi = min(span), max(span)
    pad = (hi - lo) * 0.08 or 0.1
    ax.set_xlim(lo - pad, hi + pad * 4)  # room on the right for the value labels
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    for y, value, bound in zip(ys, values, bounds, strict=True):
        if value is None:
            ax.text(0.0, y, " no estimate", va="center", fontsize="small", color="grey")
            continue
        if bound is not None:
            ax.hlines(y, bound[0], bound[1], color="black", linewidth=1.5)
        ax.plot([float(value)], [y], "s", color=COLOUR, markersize=7, zorder=3)
        right = bound[1] if bound is not None else float(value)
        text = value_label(float(value)) + ("" if bound is None else
                                            f" [{value_label(bound[0])}, {value_label(bound[1])}]")
        ax.text(right + pad * 0.3, y, text, va="center", fontsize="x-small")
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_yticks(ys, [str(label) for label in labels], fontsize="small")
    ax.set_xlabel(xlabel)
    _title(fig, title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
