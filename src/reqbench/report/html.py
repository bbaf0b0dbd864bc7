"""A self-contained HTML report: one file, tables as HTML, plots embedded as base64 PNG, no scripts,
no external resources (it opens offline and can be mailed or archived with the run)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape

from reqbench.report.tables import TableData

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}
th{background:#f3f3f3}caption{text-align:left;font-weight:600;padding:.3em 0}
pre{background:#f6f6f6;padding:.8em;overflow:auto;white-space:pre-wrap}
a{color:#2458a6}.scored{color:#17702f}.invalid{color:#b00020}.pending{color:#a06000}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}
"""


def html_table(table: TableData) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    return f"<table><caption>{escape(table.title)}</caption><tr>{head}</tr>{body}</table>"


def png_img(title: str, png: bytes) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<figure><img alt="{escape(title)}" src="data:image/png;base64,{data}"></figure>'


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>{body}</body></html>\n")


def render_report(title: str, sections: Sequence[tuple[str, Sequence[TableData]]],
                  plots: Sequence[tuple[str, bytes]] = ()) -> str:
    """The whole report page: a heading, then each section's tables, then the plots."""
    parts = [f"<h1>{escape(title)}</h1>"]
    for heading, tables in sections:
        parts.append(f"<h2>{escape(heading)}</h2>")
        parts += [html_table(t) for t in tables]
    if plots:
        parts.append("<h2>Plots</h2>")
        parts += [png_img(t, png) for t, png in plots]
    return page(title, "\n".join(parts))
