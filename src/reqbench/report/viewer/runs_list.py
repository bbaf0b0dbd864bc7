"""The viewer's runs list: one line per run with what tells runs apart (protocol, agent, model, headline
metric with its interval, rows scored of planned, tokens, cost, duration, created), sorted and filtered on
the server by query parameters (``?sort=cost&dir=desc&protocol=pace&q=gpt``), so the page needs no script.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reqbench.core.summary import Metric, as_number
from reqbench.core.views import fmt
from reqbench.report.tables import format_cell
from reqbench.report.viewer.render import esc, page, table, url
from reqbench.report.viewer.run_context import RunContext
from reqbench.report.viewer.site import Site

COLUMNS = [("name", "run"), ("protocol", "protocol"), ("agent", "agent"), ("model", "model"),
           ("headline", "headline metric [95% interval]"), ("scored", "rows scored / planned"),
           ("tokens", "tokens"), ("cost", "cost $"), ("seconds", "duration"), ("created", "created")]
SORTABLE = frozenset(c for c, _ in COLUMNS)


@dataclass(frozen=True)
class RunLine:
    """One run's line of the list (values to sort by; `headline_text` as shown)."""

    run: RunContext
    name: str
    protocol: str
    agent: str
    model: str
    headline: float | None
    headline_text: str
    scored: int
    planned: int
    tokens: int | None
    cost: float | None
    seconds: float | None
    created: str

    def key(self, column: str) -> Any:
        return self.scored / self.planned if column == "scored" and self.planned else getattr(self, column)


def _seconds(start: str | None, end: str | None) -> float | None:
    try:
        return (datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds()
    except ValueError:
        return None


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"


def created_text(created: str) -> str:
    """``2026-12-01 21:59 UTC`` from the stored ISO 8601 time (the full time is the cell's tooltip)."""
    try:
        return datetime.fromisoformat(created).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return created


def run_line(run: RunContext) -> RunLine:
    meta = run.store.meta
    options = meta.options
    agent_options = options.get("agent_options") if isinstance(options.get("agent_options"), dict) else {}
    counts = run.store.counts()
    totals = run.index().totals()
    headline = next(iter(run.headline().items()), None)
    value = None if headline is None else as_number(
        headline[1].value if isinstance(headline[1], Metric) else headline[1])
    text = "—" if headline is None else f"{headline[0]}: {format_cell(headline[1])}"
    return RunLine(run, run.name, meta.protocol, str(options.get("agent") or ""),
                   str((agent_options or {}).get("model") or ""), value, text, counts["scored"],
                   counts["planned"], totals["tokens"], totals["cost_usd"],
                   _seconds(totals["started"], totals["finished"]), meta.created)


def _sorted(lines: list[RunLine], column: str, descending: bool) -> list[RunLine]:
    present = [x for x in lines if x.key(column) not in (None, "")]
    missing = [x for x in lines if x.key(column) in (None, "")]
    return sorted(present, key=lambda x: x.key(column), reverse=descending) + missing  # unknowns last


def runs_page(viewer: Site, query: dict[str, str], nav: str, path: str = "/") -> str:
    sort = query.get("sort") or "created"
    sort = sort if sort in SORTABLE else "created"
    descending = query.get("dir", "desc" if sort == "created" else "asc") == "desc"
    protocol, text = query.get("protocol", ""), query.get("q", "").strip().lower()
    every = [run_line(r) for r in viewer.runs.values()]
    lines = [x for x in every if (not protocol or x.protocol == protocol)
             and (not text or any(text in v.lower() for v in (x.name, x.agent, x.model, x.protocol)))]
    keep = {"protocol": protocol, "q": query.get("q", "")}
    heads = []
    for column, label in COLUMNS:
        flip = "desc" if sort == column and not descending else "asc"
        arrow = (" ▼" if descending else " ▲") if sort == column else ""
        heads.append(f'<a href="{url(path, **keep, sort=column, dir=flip)}">{esc(label)}{arrow}</a>')
    rows = [[f'<a href="{x.run.base}/">{esc(x.name)}</a>', esc(x.protocol), esc(x.agent), esc(x.model or "—"),
             esc(x.headline_text), f"{x.scored} / {x.planned}", esc(fmt(x.tokens)),
             esc("—" if x.cost is None else f"{x.cost:.4f}"), esc(duration_text(x.seconds)),
             f'<span title="{esc(x.created)}">{esc(created_text(x.created))}</span>']
            for x in _sorted(lines, sort, descending)]
    protocols = "".join(f'<option{" selected" if p == protocol else ""}>{esc(p)}</option>'
                        for p in ["", *sorted({x.protocol for x in every})])
    form = (f'<form class="filter" method="get" action="{esc(path)}">protocol <select name="protocol">{protocols}'
            f'</select> text <input name="q" value="{esc(query.get("q", ""))}" placeholder="run, agent, model">'
            f'<input type="hidden" name="sort" value="{esc(sort)}"><button>filter</button></form>')
    body = (f"<h1>runs under {esc(viewer.label)}</h1>{form}"
            f"<p class='pager'>{len(lines)} of {len(every)} runs</p>" + table(heads, rows, cls="runs"))
    return page("reqbench runs", body, nav)
