"""HTML helpers of the viewer. Everything that comes from a run (ids, diffs, replies, logs) is hostile
and goes through `esc` (or pygments, which escapes) before it reaches a page."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer

from reqbench.core.views import fmt
from reqbench.report.html import STYLE as REPORT_STYLE

_FORMATTER = HtmlFormatter(nowrap=True)

STYLE = REPORT_STYLE + """
body{max-width:1300px}nav{margin:.3em 0 1em}nav a{margin-right:1em}
.diff{font:12px/1.35 ui-monospace,monospace;background:#fbfbfb;border:1px solid #ddd;padding:.5em;
 overflow:auto;white-space:pre}
details{margin:.3em 0;border:1px solid #e3e3e3;border-radius:4px;padding:.2em .6em}
summary{cursor:pointer;font-weight:500}.PASS,.pass,.done,.Covered{color:#17702f}
.FAIL,.fail,.agent_failure,.NotCovered{color:#b00020}
.chat{display:flex;flex-direction:column;gap:.6em;max-width:900px}
.msg{padding:.5em .8em;border-radius:8px;white-space:pre-wrap;max-width:80%}
.user{background:#eef3fb;align-self:flex-start}.assistant{background:#eef8ee;align-self:flex-end}
.meta{font-size:.85em;color:#555}.two{display:grid;grid-template-columns:1fr 1fr;gap:1em}
form.filter input,form.filter select{margin-right:.5em}
td.num{text-align:right}.badge{background:#fde9b8;border-radius:3px;padding:0 .3em;color:#6b4e00}
tr.marked td{background:#fff7e0}.request{background:#fff7e0;padding:.5em .8em;border-radius:6px;
 white-space:pre-wrap}.two>div{min-width:0}table.timeline,table.target-state{width:100%;table-layout:fixed}
table.timeline td,table.timeline th,table.target-state td,table.target-state th,table.matches td,
table.gates td,table.points td{text-align:left;font-size:.9em;word-break:break-word}
table.timeline th:first-child{width:2.5em}
.phase-a pre{max-height:32em;overflow:auto}.two.wide{grid-template-columns:2fr 1fr}
p.meta,p.requirement{margin:.2em 0}td>p{margin:0 0 .15em}
p.meta code{background:#f3f3f3;padding:0 .2em;border-radius:3px}
pre,.prose,.field,details.step,.inputs{text-align:left}
pre.code,summary code{font:12px/1.4 ui-monospace,monospace}pre.code{background:#f6f6f6;margin:.2em 0 .6em}
.prose{white-space:pre-wrap;overflow-wrap:anywhere;margin:.2em 0 .6em;max-width:75em}
.field .key{display:block;font-size:.85em;font-weight:600;color:#444}
details.step{margin:.2em 0}details.step>summary{font-weight:400}summary .num{color:#777}
summary code{background:#f3f3f3;padding:0 .3em;border-radius:3px;overflow-wrap:anywhere}
.banner{padding:.5em .8em;border-radius:6px;background:#eef3fb;border:1px solid #cbd8ee}
.banner.heuristic{background:#fff4e0;border-color:#f0c36d}
table.criteria td,table.criteria th,table.runs td,table.runs th{text-align:left;vertical-align:top}
table.criteria{width:100%}
.raster td a{display:block;width:1.6em;height:1.2em}
.bar{display:inline-block;position:relative;width:120px;height:10px;background:#eee;vertical-align:middle;
 margin-left:.5em;border-radius:2px}.bar .ci{position:absolute;top:3px;height:4px;background:#8aa9d6}
.bar .pt{position:absolute;top:0;width:2px;height:10px;background:#1d4f91}
table.heatmap td.cell{text-align:center;min-width:5em}table.leaderboard td{text-align:left}
""" + _FORMATTER.get_style_defs(".diff")


def esc(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def url(path: str, **params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return esc(path + (f"?{query}" if query else ""))


def q(text: str) -> str:
    """One URL path segment."""
    return quote(text, safe="")


def page(title: str, body: str, nav: str = "") -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
            f"<style>{STYLE}</style></head><body><nav>{nav}</nav>{body}</body></html>\n")


def table(columns: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "",
          cls: str = "") -> str:
    """A table whose cells are already HTML: callers escape the text parts (with `esc`)."""
    head = "".join(f"<th>{c}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{caption}</caption>" if caption else ""
    return f'<table class="{cls}">{cap}<tr>{head}</tr>{body}</table>'


def kv_table(pairs: Sequence[tuple[str, Any]], caption: str = "") -> str:
    return table(["", "value"], [[esc(k), esc(fmt(v))] for k, v in pairs], caption)


def pre(text: str) -> str:
    return f"<pre>{esc(text)}</pre>"


def json_block(value: Any, summary: str = "JSON") -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    return f"<details><summary>{esc(summary)}</summary>{pre(text)}</details>"


def diff_html(text: str) -> str:
    """A unified diff with syntax highlighting (pygments escapes every token)."""
    if not text.strip():
        return '<p class="meta">(empty diff: nothing was changed)</p>'
    return f'<div class="diff">{highlight(text, DiffLexer(), _FORMATTER)}</div>'


def details(summary_html: str, body: str, open_: bool = False, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f"<details{klass}{' open' if open_ else ''}><summary>{summary_html}</summary>{body}</details>"


def status_span(status: Any, label: str | None = None) -> str:
    """A status word coloured by its value: the class is the value with only ``[A-Za-z0-9_-]`` kept
    (``Not Covered`` -> ``NotCovered``); `label` replaces the text shown."""
    klass = re.sub(r"[^A-Za-z0-9_-]+", "", "" if status is None else str(status))
    return f'<span class="{klass}">{esc(status if label is None else label)}</span>'
