"""The study's self-contained HTML page (`reqbench study report DIR --html FILE`): a heading, the study's
plots (`study.plots`: each headline metric by configuration with its interval, and with ``pairs`` the forest
plot of the paired differences) embedded as PNG, then every table of the report under its own heading with
its estimator note as a small paragraph (inline code for its `...` spans). Every label is escaped
(`report.html`); no script, no external resource.
"""

from __future__ import annotations

from html import escape

from reqbench.core.protocol_study import StudyTable
from reqbench.report.headline_plots import headline_plots
from reqbench.report.html import html_table, note_html, page, png_img
from reqbench.report.tables import table_data
from reqbench.study.collect import StudyData
from reqbench.study.plots import study_plots


def study_html(data: StudyData, tables: list[StudyTable], *, pairs: bool = False) -> str:
    """The page for `tables` (the report's, in order) and the study's plots."""
    title = f"reqbench study: {data.study.path.name} ({data.protocol})"
    parts = [f"<h1>{escape(title)}</h1>"]
    plots = headline_plots(study_plots(data, pairs=pairs))
    if plots:
        parts.append("<h2>Plots</h2>")
        parts += [png_img(t, png) for t, png in plots]
    for table in tables:
        parts += [f"<h2>{escape(table.table.title)}</h2>", html_table(table_data(table.table)),
                  note_html(table.estimator)]
    return page(title, "\n".join(p for p in parts if p))
