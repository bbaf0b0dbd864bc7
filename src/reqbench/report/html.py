"""A self-contained HTML report: one file, tables as HTML, plots embedded as base64 PNG, no scripts,
no external resources (it opens offline and can be mailed or archived with the run).

Wide tables fit the page: a table with more than `MAX_COLUMNS` columns is transposed when it has few
rows, otherwise split into column groups that repeat the row label; cells wrap.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from html import escape

from reqbench.report.tables import TableData, fit_columns

MAX_COLUMNS = 9

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em;max-width:100%}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right;vertical-align:top;overflow-wrap:break-word}
th:first-child,td:first-child{text-align:left}
th{background:#f3f3f3}caption{text-align:left;font-weight:600;padding:.3em 0}
pre{background:#f6f6f6;padding:.8em;overflow:auto;white-space:pre-wrap}
a{color:#2458a6}.scored{color:#17702f}.invalid{color:#b00020}.pending{color:#a06000}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}figure{margin:0 1em 0 0;display:inline-block;vertical-align:top}
dl.prov{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;background:#f7f9fc;
 padding:.8em 1em;border:1px solid #dde3ee}dl.prov dt{font-weight:600}dl.prov dd{margin:0;overflow-wrap:anywhere}
.unsafe{color:#b00020;font-weight:600}
p.note{font-size:.9em;color:#444;margin:-1em 0 1.5em}code{background:#f3f3f3;padding:0 .2em;font-size:.95em}
.raster td{width:1.6em;height:1.2em;padding:0}.on{background:#3a9a4f}.off{background:#d9534f}.na{background:#ddd}
"""


def html_table(table: TableData) -> str:
    parts = []
    for part in fit_columns(table, MAX_COLUMNS):
        head = "".join(f"<th>{escape(c)}</th>" for c in part.columns)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                       for row in part.rows)
        parts.append(f"<table><caption>{escape(part.title)}</caption><tr>{head}</tr>{body}</table>")
    return "".join(parts)


_CODE = re.compile(r"`([^`]+)`")


def note_html(text: str, cls: str = "note") -> str:
    """A table's note as a small paragraph: the text escaped first, then each `...` span as inline code
    (the span's text is already escaped, so no label in a note can open a tag)."""
    if not text:
        return ""
    body = _CODE.sub(r"<code>\1</code>", escape(text))
    return f'<p class="{cls}">{body}</p>'


def provenance_html(facts: Sequence[tuple[str, str]]) -> str:
    items = "".join(f'<dt>{escape(k)}</dt><dd{" class=unsafe" if v.startswith("UNSAFE") else ""}>'
                    f"{escape(v)}</dd>" for k, v in facts)
    return f'<dl class="prov">{items}</dl>'


def png_img(title: str, png: bytes, cls: str = "plot") -> str:
    """A plot embedded as PNG; its title is drawn in the image (and is the alt text), so no caption repeats
    it."""
    data = base64.b64encode(png).decode("ascii")
    return f'<figure><img class="{cls}" alt="{escape(title)}" src="data:image/png;base64,{data}"></figure>'


def page(title: str, body: str, style: str = "") -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}{style}</style></head><body>{body}</body></html>\n")


def render_report(title: str, sections: Sequence[tuple[str, Sequence[TableData]]],
                  plots: Sequence[tuple[str, bytes]] = (),
                  provenance: Sequence[tuple[str, str]] = (), views: str = "") -> str:
    """The whole report page: a heading, the provenance header, the plots, each section's tables, then
    `views`: the protocol's run-wide view, already rendered (e.g. a probe raster)."""
    parts = [f"<h1>{escape(title)}</h1>"]
    if provenance:
        parts.append(provenance_html(provenance))
    if plots:
        parts.append("<h2>Headline metrics</h2>")
        parts += [png_img(t, png) for t, png in plots]
    for heading, tables in sections:
        parts.append(f"<h2>{escape(heading)}</h2>")
        parts += [html_table(t) for t in tables]
    if views:
        parts.append(views)
    return page(title, "\n".join(parts))
