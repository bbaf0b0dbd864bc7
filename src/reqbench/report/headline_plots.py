"""The plots a summary lists (`reqbench.core.summary.Plot`), drawn as PNG: bars with their intervals, grouped
bars, distributions, forest plots of differences. Which plots a protocol has is the protocol's business (its
`summarize`); nothing here knows a protocol. A plot whose values a heuristic judge decided says so in its drawn title.
"""

from __future__ import annotations

from collections.abc import Sequence

from reqbench.core.judges.spec import is_heuristic
from reqbench.core.summary import Plot
from reqbench.report.plots import bar_chart, distribution_chart, forest_chart, grouped_bar_chart


def drawn_title(plot: Plot) -> str:
    """The title drawn in the chart: `Plot.drawn_title` (else its title), naming a heuristic judge."""
    title = plot.drawn_title or plot.title
    if plot.judge and is_heuristic(plot.judge):
        title += f" [heuristic judge: {plot.judge}, not a semantic judgment]"
    return title


def draw(plot: Plot) -> bytes:
    title = drawn_title(plot)
    if plot.kind == "distribution":
        return distribution_chart(dict(zip(plot.labels, plot.points, strict=True)), title=title, ylabel=plot.ylabel)
    if plot.kind == "grouped":
        return grouped_bar_chart(plot.labels, plot.series, title=title, ylabel=plot.ylabel)
    values = next(iter(plot.series.values()), [])
    ci = None if plot.ci is None else [None if i is None or i[0] is None or i[1] is None else (i[0], i[1])
                                       for i in plot.ci]
    if plot.kind == "forest":
        return forest_chart(plot.labels, values, title=title, xlabel=plot.ylabel, ci=ci)
    return bar_chart(plot.labels, values, title=title, ylabel=plot.ylabel, ci=ci)


def headline_plots(plots: Sequence[Plot]) -> list[tuple[str, bytes]]:
    """``(title, png)`` of every plot (the title names the file `reqbench report --plots` writes)."""
    return [(plot.title, draw(plot)) for plot in plots]
