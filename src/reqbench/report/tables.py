"""Summary dicts -> tables (rich for the terminal, markdown, and plain rows for HTML).

**The summary convention.** `SuiteProtocol.summarize` returns a dict that renders without any
protocol-specific code when it follows these rules:

* ``{table_name: {row_label: {column: cell}}}`` is a table (rows and columns in insertion order; a
  column missing from a row is an empty cell);
* a top-level scalar ``{name: number | str | bool | None}`` goes into one key/value table "overview";
* a summary that is itself one flat table (``{row_label: {column: scalar cell}}``, e.g. journey's
  ``{persona: {metric: value}}``) renders as the table "summary";
* a cell is a number, string, bool, None, or ``{"value": x, "ci": [lo, hi]}`` (shown ``x [lo, hi]``;
  plots draw the interval as an error bar); any other value is shown as compact JSON;
* the optional key ``"plots"`` lists bar charts: ``[{"table": name, "column": col, "title": str,
  "ylabel": str}]`` draws `column` for every row of `table` (see `report.plots.summary_plots`);
* any other value (lists, dicts of another shape) is shown as JSON in the "overview" table.

Numbers: ints as is, floats with 4 significant digits, None as an em dash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.table import Table

PLOTS_KEY = "plots"
OVERVIEW = "overview"


@dataclass
class TableData:
    title: str
    columns: list[str]
    rows: list[list[str]]


def format_cell(value: Any) -> str:
    if isinstance(value, dict) and "value" in value and set(value) <= {"value", "ci", "n"}:
        text = format_cell(value["value"])
        ci = value.get("ci")
        if isinstance(ci, list | tuple) and len(ci) == 2:
            text += f" [{format_cell(ci[0])}, {format_cell(ci[1])}]"
        return text
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int | str):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def is_table(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())


def summary_tables(summary: dict[str, Any]) -> list[TableData]:
    """The tables a summary dict describes (see the module docstring), overview first."""
    overview: list[list[str]] = []
    tables: list[TableData] = []
    rows_only = {k: v for k, v in summary.items() if k != PLOTS_KEY}
    if is_table(rows_only) and not any(is_table(v) or any(isinstance(c, dict) for c in v.values())
                                       for v in rows_only.values()):
        # The summary is itself one table ({row label: {column: value}}, e.g. journey's personas).
        summary = {"summary": rows_only, **({PLOTS_KEY: summary[PLOTS_KEY]} if PLOTS_KEY in summary else {})}
    for name, value in summary.items():
        if name == PLOTS_KEY:
            continue
        if is_table(value):
            columns: list[str] = []
            for cells in value.values():
                columns += [c for c in cells if c not in columns]
            rows = [[str(label), *(format_cell(cells.get(c)) if c in cells else "" for c in columns)]
                    for label, cells in value.items()]
            tables.append(TableData(str(name), ["", *columns], rows))
        else:
            overview.append([str(name), format_cell(value)])
    if overview:
        tables.insert(0, TableData(OVERVIEW, ["", "value"], overview))
    return tables


def rich_table(table: TableData) -> Table:
    out = Table(title=table.title, title_justify="left", show_lines=False)
    for i, column in enumerate(table.columns):
        if i == 0:
            out.add_column(column, justify="left", no_wrap=True)  # row labels stay readable
        else:
            out.add_column(column, justify="right", overflow="fold")
    for row in table.rows:
        out.add_row(*row)
    return out


def markdown_table(table: TableData) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [f"**{esc(table.title)}**", "", "| " + " | ".join(esc(c) for c in table.columns) + " |",
             "|" + "|".join(["---", *["---:"] * (len(table.columns) - 1)]) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"
