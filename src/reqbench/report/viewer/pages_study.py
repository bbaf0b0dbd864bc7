"""The viewer's study pages (``reqbench view STUDY_DIR``), drawn from a `StudyView` with no script:

* ``/`` -- the leaderboard (one row per configuration, its headline metrics as value, interval and n in
  text and as a bar over the column's scale; sorted on the server: ``?sort=COLUMN&dir=asc|desc``), the
  configuration x condition heatmap (an HTML table whose cells are coloured on one scale from the lowest
  to the highest mean), the study's plots (PNG: the measurement and each headline metric by configuration
  with its interval, the forest plot of the paired differences), the matrix of paired differences, and
  every table of ``reqbench study report``;
* ``/study/rows?a=CONF&b=CONF[&show=all]`` -- two configurations row by row on the same (task,
  condition, repeat): the rows whose measurement differs (all paired rows with ``show=all``), each linked
  to both row pages, and a link to the runs' compare page.

Configuration names, conditions and task ids come from the study's runs and are escaped like any run data.
"""

from __future__ import annotations

from reqbench.core.summary import Cell, Metric, SummaryTable, as_number
from reqbench.core.views import fmt
from reqbench.report.html import html_table, note_html, png_img
from reqbench.report.tables import format_cell, table_data
from reqbench.report.viewer.render import esc, page, table, url
from reqbench.report.viewer.site import Site
from reqbench.report.viewer.study_model import StudyRow, StudyView


def _value(cell: Cell) -> float | None:
    return as_number(cell.value if isinstance(cell, Metric) else cell)


def _bounds(cells: list[Cell]) -> tuple[float, float] | None:
    found: list[float] = []
    for cell in cells:
        if isinstance(cell, Metric):
            found += [x for x in (cell.value, *(cell.ci or ())) if isinstance(x, int | float)]
        elif (v := _value(cell)) is not None:
            found.append(v)
    return (min(found), max(found)) if found else None


def _pos(x: float, scale: tuple[float, float]) -> float:
    lo, hi = scale
    return 50.0 if hi == lo else 100.0 * (x - lo) / (hi - lo)


def bar(cell: Cell, scale: tuple[float, float] | None) -> str:
    """The cell's value (and interval) as a bar over `scale`, or '' when there is nothing to draw."""
    value = _value(cell)
    if value is None or scale is None:
        return ""
    parts = []
    if isinstance(cell, Metric) and cell.ci is not None and None not in cell.ci:
        lo, hi = (_pos(float(x), scale) for x in cell.ci)  # type: ignore[arg-type]
        parts.append(f'<span class="ci" style="left:{lo:.1f}%;width:{max(hi - lo, 0.5):.1f}%"></span>')
    parts.append(f'<span class="pt" style="left:{min(_pos(value, scale), 99.0):.1f}%"></span>')
    return f'<span class="bar" title="{esc(format_cell(cell))}">{"".join(parts)}</span>'


def _config_link(viewer: Site, view: StudyView, config: str) -> str:
    """The configuration's name linked to its run page (the run's own base path, whose name is quoted
    whole: a study's runs are named ``runs/CONFIG``), or plain text when its run is not here."""
    run = viewer.runs.get(view.runs.get(config, config))
    return f'<a href="{run.base}/">{esc(config)}</a>' if run else esc(config)


def leaderboard(viewer: Site, view: StudyView, query: dict[str, str]) -> str:
    rows = view.leaderboard.rows
    columns = list(dict.fromkeys(c for cells in rows.values() for c in cells))
    sort = query.get("sort") if query.get("sort") in columns else (columns[0] if columns else "")
    descending = query.get("dir", "desc") == "desc"
    names = list(rows)
    if sort:
        known = [n for n in names if _value(rows[n].get(sort)) is not None]
        rest = [n for n in names if n not in known]
        names = sorted(known, key=lambda n: _value(rows[n].get(sort)) or 0.0, reverse=descending) + rest
    heads = ["configuration"]
    for column in columns:
        flip = "asc" if column == sort and descending else "desc"
        arrow = (" ▼" if descending else " ▲") if column == sort else ""
        heads.append(f'<a href="{url("/", sort=column, dir=flip)}">{esc(column)}{arrow}</a>')
    scales = {c: _bounds([rows[n].get(c) for n in names]) for c in columns}
    body = [[_config_link(viewer, view, n), *(
        esc(format_cell(rows[n].get(c))) + bar(rows[n].get(c), scales[c]) for c in columns)] for n in names]
    note = view.notes.get(view.leaderboard.title, "")
    return (table(heads, body, esc(view.leaderboard.title), cls="leaderboard")
            + note_html(note, "meta"))


def _colour(value: float | None, scale: tuple[float, float] | None) -> str:
    if value is None or scale is None:
        return "background:#eee"
    hue = 120.0 * _pos(value, scale) / 100.0  # lowest red, highest green
    return f"background:hsl({hue:.0f},65%,80%)"


def heatmap(grid: SummaryTable, note: str = "") -> str:
    """`grid` as an HTML table whose value cells are coloured on one scale (lowest red, highest green)."""
    columns = list(dict.fromkeys(c for cells in grid.rows.values() for c in cells))
    scale = _bounds([cell for cells in grid.rows.values() for cell in cells.values()])
    head = "".join(f"<th>{h}</th>" for h in ["configuration \\ condition", *map(esc, columns)])
    body = []
    for name, cells in grid.rows.items():
        tds = [f"<td>{esc(name)}</td>"]
        for column in columns:
            cell = cells.get(column)
            value, n = _value(cell), cell.n if isinstance(cell, Metric) else None
            tds.append(f'<td class="cell" style="{_colour(value, scale)}" title="n = {esc(fmt(n))}">'
                       f"{esc(fmt(value))}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    html = f'<table class="heatmap"><caption>{esc(grid.title)}</caption><tr>{head}</tr>{"".join(body)}</table>'
    return html + note_html(note, "meta")


def _picker(view: StudyView, a: str, b: str) -> str:
    def select(name: str, chosen: str) -> str:
        opts = "".join(f'<option value="{esc(n)}"{" selected" if n == chosen else ""}>{esc(n)}</option>'
                       for n in view.rows)
        return f'<select name="{name}">{opts}</select>'

    return (f'<form class="filter" method="get" action="/study/rows">A {select("a", a)} B {select("b", b)} '
            '<label><input type="checkbox" name="show" value="all"> every paired row</label>'
            "<button>compare rows</button></form>")


def study_page(viewer: Site, view: StudyView, query: dict[str, str], nav: str) -> str:
    names = list(view.rows)
    parts = [f"<h1>{esc(view.title)}</h1>", "<h2>Leaderboard</h2>", leaderboard(viewer, view, query),
             "<h2>Configuration x condition</h2>", heatmap(view.heatmap, view.notes.get(view.heatmap.title, ""))]
    if view.plots:
        parts += ["<h2>Plots</h2>", *(png_img(t, png) for t, png in view.plots)]
    if view.pairs is not None:
        parts += ["<h2>Pairwise differences</h2>", html_table(table_data(view.pairs)),
                  note_html(view.notes.get(view.pairs.title, ""), "meta")]
    if len(names) >= 2:
        parts += ["<h2>Compare two configurations row by row</h2>", _picker(view, names[0], names[1])]
    parts.append("<h2>Every table of the study report</h2>")
    parts += [f"<details><summary>{esc(t.title)}</summary>{html_table(table_data(t))}"
              f'{note_html(note, "meta")}</details>' for t, note in view.tables]
    return page(view.title, "\n".join(parts), nav)


def _row_link(viewer: Site, view: StudyView, config: str, row: StudyRow | None) -> str:
    if row is None:
        return "—"
    run = viewer.runs.get(view.runs.get(config, ""))
    text = f"{fmt(row.value)} ({row.status})"
    return f'<a href="{url(run.base + "/row", key=row.row_key)}">{esc(text)}</a>' if run else esc(text)


def _change(x: StudyRow | None, y: StudyRow | None) -> str | None:
    """How B's row differs from A's (None: the same)."""
    a, b = (r.value if r is not None else None for r in (x, y))
    if a is None and b is None:
        return None
    if a is None or b is None:
        return "only A scored" if b is None else "only B scored"
    return None if a == b else ("B higher" if b > a else "A higher")


def study_rows_page(viewer: Site, view: StudyView, query: dict[str, str], nav: str) -> str:
    names = list(view.rows)
    a = query.get("a", "") if query.get("a") in view.rows else (names[0] if names else "")
    b = query.get("b", "") if query.get("b") in view.rows else (names[1] if len(names) > 1 else a)
    every = query.get("show") == "all"
    parts = [f"<h1>{esc(a)} vs {esc(b)}: {esc(view.measure)} row by row</h1>", _picker(view, a, b)]
    ra = {r.pair: r for r in view.rows.get(a, [])}
    rb = {r.pair: r for r in view.rows.get(b, [])}
    keys = sorted(set(ra) | set(rb), key=lambda k: (k[0], k[1], k[2]))
    lines, flipped = [], 0
    for key in keys:
        change = _change(ra.get(key), rb.get(key))
        flipped += change is not None
        if change is None and not every:
            continue
        lines.append([esc(f"{key[0]} | {key[1]} | {key[2]}"), _row_link(viewer, view, a, ra.get(key)),
                      _row_link(viewer, view, b, rb.get(key)), esc(change or "same")])
    run_a, run_b = view.runs.get(a, ""), view.runs.get(b, "")
    parts.append(f"<h2>rows that flipped: {flipped} of {len(keys)}</h2>"
                 f'<p class="meta">paired on (task, condition, repeat); <a href="{url("/compare", a=run_a, b=run_b)}">'
                 "compare the two runs</a></p>")
    parts.append(table(["task | condition | repeat", f"A: {esc(a)}", f"B: {esc(b)}", "change"], lines,
                       cls="flips") if lines else "<p>no row differs</p>")
    return page(f"{a} vs {b}", "\n".join(parts), nav)
