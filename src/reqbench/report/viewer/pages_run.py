"""Viewer pages about whole runs: the runs list, a run's page (provenance, summary tables, headline
plots) and its row table (sortable, filterable, paged on the server)."""

from __future__ import annotations

from typing import Any

from reqbench.core.views import fmt
from reqbench.report.html import html_table, png_img, provenance_html
from reqbench.report.provenance import provenance, run_title
from reqbench.report.viewer.index import PAGE_SIZE
from reqbench.report.viewer.protocol_views import run_view_html
from reqbench.report.viewer.render import esc, page, q, status_span, table, url
from reqbench.report.viewer.run_context import RunContext
from reqbench.report.viewer.site import Site

ROW_COLUMNS = [("row_key", "row"), ("condition", "condition"), ("status", "status"), ("outcome", "outcome"),
               ("protocol_outcome", "protocol outcome"), ("score", "score"), ("reason", "reason"),
               ("attempts", "attempts"), ("cost_usd", "cost $"),
               ("tokens", "tokens"), ("seconds", "agent s")]


def nav(viewer: Site, run: RunContext | None = None) -> str:
    links = ['<a href="/">study</a>', '<a href="/runs">all runs</a>'] if viewer.study is not None \
        else ['<a href="/">all runs</a>']
    if run is not None:
        links += [f'<a href="{run.base}/">run</a>', f'<a href="{run.base}/rows">rows</a>']
    if len(viewer.runs) > 1:
        links.append('<a href="/compare">compare two runs</a>')
    return " ".join(links)


def not_found(viewer: Site, what: str, run: RunContext | None = None) -> str:
    """The 404 page: what is missing, and the way back (every run here)."""
    runs = "".join(f'<li><a href="{r.base}/">{esc(r.name)}</a></li>' for r in viewer.runs.values())
    body = (f"<h1>not found</h1><p>{esc(what)}.</p><p>Runs under {esc(viewer.label)}:</p>"
            f"<ul class='runs'>{runs}</ul>")
    return page("not found", body, nav(viewer, run))


def run_page(viewer: Site, run: RunContext) -> str:
    meta = run.store.meta
    counts = run.store.counts()
    count_cells = [[esc(k), f'<a href="{url(run.base + "/rows", status=k)}">{v}</a>'
                    if k in ("scored", "pending", "invalid", "unstarted") else esc(v)]
                   for k, v in counts.items()]
    parts = [f"<h1>{esc(run_title(meta))}</h1>", provenance_html(provenance(meta, short_paths=True)),
             table(["", "rows"], count_cells, "rows by status (selected attempt)"),
             "<h2>Headline metrics</h2>"]
    parts += [png_img(t, png) for t, png in run.plots()] or ['<p class="meta">no plots for this run</p>']
    parts.append("<h2>Summary</h2>")
    parts += [html_table(t) for t in run.tables()]
    parts.append(run_view_html(run.protocol, run.store.outcomes(), run.base))  # the protocol's run view
    return page(run_title(meta), "\n".join(parts), nav(viewer, run))


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except ValueError:
        return default


def rows_page(viewer: Site, run: RunContext, query: dict[str, str]) -> str:
    index = run.index()
    status, outcome, text = query.get("status", ""), query.get("outcome", ""), query.get("q", "")
    sort, desc = query.get("sort", "order_index"), query.get("dir") == "desc"
    size = min(max(_int(query.get("size"), PAGE_SIZE), 1), 1000)
    page_no = max(_int(query.get("page"), 1), 1)
    result = index.page(status=status, outcome=outcome, text=text, sort=sort, descending=desc,
                        offset=(page_no - 1) * size, limit=size)
    keep: dict[str, Any] = {"status": status, "outcome": outcome, "q": text}
    heads = []
    for column, label in ROW_COLUMNS:
        flip = "asc" if sort == column and desc else "desc" if sort == column else "asc"
        arrow = (" ▼" if desc else " ▲") if sort == column else ""
        heads.append(f'<a href="{url(run.base + "/rows", **keep, sort=column, dir=flip)}">'
                     f"{esc(label)}{arrow}</a>")
    body_rows = []
    for r in result.rows:
        link = f'<a href="{url(run.base + "/row", key=r["row_key"])}">{esc(r["row_key"])}</a>'
        body_rows.append([link, esc(r["condition"]), status_span(r["status"]),
                          f'<span class="outcome">{esc(fmt(r["outcome"]))}</span>',
                          esc(fmt(r["protocol_outcome"])),
                          esc(fmt(r["score"])),
                          esc(r["reason"] or ""), esc(r["attempts"]), esc(fmt(r["cost_usd"])),
                          esc(fmt(r["tokens"])), esc(fmt(r["seconds"]))])
    pages = max(1, -(-result.total // size))
    pager = [f"rows {result.offset + 1 if result.total else 0}–{min(result.total, result.offset + size)} "
             f"of {result.total} · page {page_no} of {pages}"]
    state = {**keep, "sort": sort, "dir": "desc" if desc else "", "size": size}
    if page_no > 1:
        pager.append(f'<a rel="prev" href="{url(run.base + "/rows", **state, page=page_no - 1)}">previous</a>')
    if page_no < pages:
        pager.append(f'<a rel="next" href="{url(run.base + "/rows", **state, page=page_no + 1)}">next</a>')
    options = "".join(f'<option{" selected" if s == status else ""}>{esc(s)}</option>'
                      for s in ("", "scored", "pending", "invalid", "unstarted"))
    outcomes = "".join(f'<option{" selected" if o == outcome else ""}>{esc(o)}</option>'
                       for o in ["", *index.distinct("outcome")])
    form = (f'<form class="filter" method="get" action="{run.base}/rows">'
            f'status <select name="status">{options}</select> outcome <select name="outcome">{outcomes}'
            f'</select> text <input name="q" value="{esc(text)}" placeholder="row, reason">'
            f'<input type="hidden" name="sort" value="{esc(sort)}"><button>filter</button></form>')
    body = (f"<h1>rows of {esc(run.name)}</h1>{form}<p class='pager'>{' · '.join(pager)}</p>"
            + table(heads, body_rows, cls="rows") + f"<p class='pager'>{' · '.join(pager)}</p>")
    return page(f"rows of {run.name}", body, nav(viewer, run))


__all__ = ["nav", "not_found", "q", "rows_page", "run_page"]
