"""Compare two runs (agent A vs agent B, or a run and its regrade): headline-metric deltas and the rows
whose outcome, status or score flipped, paired by (task, condition, repeat)."""

from __future__ import annotations

from reqbench.core.summary import Cell, Metric, as_number
from reqbench.core.views import fmt
from reqbench.report.provenance import run_title
from reqbench.report.tables import format_cell
from reqbench.report.viewer.pages_run import nav
from reqbench.report.viewer.render import esc, page, table, url
from reqbench.report.viewer.run_context import RunContext
from reqbench.report.viewer.site import Site


def _value(cell: Cell) -> float | None:
    return as_number(cell.value if isinstance(cell, Metric) else cell)


def _picker(viewer: Site, a: str, b: str) -> str:
    def select(name: str, chosen: str) -> str:
        opts = "".join(f'<option value="{esc(n)}"{" selected" if n == chosen else ""}>{esc(n)}</option>'
                       for n in viewer.runs)
        return f'<select name="{name}">{opts}</select>'

    return (f'<form class="filter" method="get" action="/compare">A {select("a", a)} B {select("b", b)}'
            "<button>compare</button></form>")


def metric_deltas(a: RunContext, b: RunContext) -> str:
    ha, hb = a.headline(), b.headline()
    rows = []
    for metric in [*ha, *(m for m in hb if m not in ha)]:
        va, vb = _value(ha.get(metric)), _value(hb.get(metric))
        delta = vb - va if va is not None and vb is not None else None
        rows.append([esc(metric), esc(format_cell(ha.get(metric))), esc(format_cell(hb.get(metric))),
                     esc(f"{delta:+.4g}" if delta is not None else "—")])
    return table(["metric", "A", "B", "B − A"], rows, "headline metrics", cls="deltas") if rows else ""


def flips(a: RunContext, b: RunContext) -> tuple[list[list[str]], int, int, int]:
    ra, rb = a.index().by_key(), b.index().by_key()
    out = []
    for key in [k for k in ra if k in rb]:
        x, y = ra[key], rb[key]
        if (x["status"], x["outcome"], x["score"]) == (y["status"], y["outcome"], y["score"]):
            continue
        direction = ("better" if (y["score"] or 0) > (x["score"] or 0) else
                     "worse" if (y["score"] or 0) < (x["score"] or 0) else "changed")
        out.append([esc(" | ".join(map(str, key))),
                    f'<a href="{url(a.base + "/row", key=x["row_key"])}">{esc(fmt(x["outcome"]))} '
                    f'({esc(fmt(x["score"]))})</a>',
                    f'<a href="{url(b.base + "/row", key=y["row_key"])}">{esc(fmt(y["outcome"]))} '
                    f'({esc(fmt(y["score"]))})</a>', f'<span class="flip {direction}">{direction}</span>'])
    common = sum(1 for k in ra if k in rb)
    return out, common, len(ra) - common, len(rb) - common


def compare_page(viewer: Site, a_name: str, b_name: str) -> str:
    names = list(viewer.runs)
    a_name = a_name if a_name in viewer.runs else (names[0] if names else "")
    b_name = b_name if b_name in viewer.runs else (names[1] if len(names) > 1 else a_name)
    parts = ["<h1>compare two runs</h1>", _picker(viewer, a_name, b_name)]
    if not a_name:
        return page("compare", "".join(parts) + "<p>no runs</p>", nav(viewer))
    a, b = viewer.runs[a_name], viewer.runs[b_name]
    parts.append(f"<p><b>A</b>: {esc(run_title(a.store.meta))} ({esc(a.name)})<br>"
                 f"<b>B</b>: {esc(run_title(b.store.meta))} ({esc(b.name)})</p>")
    if a.store.meta.protocol != b.store.meta.protocol:
        parts.append("<p class='invalid'>the runs evaluate different protocols; only rows with the same "
                     "task, condition and repeat are paired</p>")
    parts.append(metric_deltas(a, b))
    rows, common, only_a, only_b = flips(a, b)
    parts.append(f"<h2>rows that flipped: {len(rows)} of {common} paired</h2>"
                 f"<p class='meta'>{only_a} row(s) only in A, {only_b} only in B</p>")
    parts.append(table(["task | condition | repeat", "A: outcome (score)", "B: outcome (score)", "change"],
                       rows, cls="flips") if rows else "<p>no row changed</p>")
    return page(f"compare {a.name} vs {b.name}", "".join(parts), nav(viewer))
