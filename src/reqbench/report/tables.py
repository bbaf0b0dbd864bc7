"""Typed summaries -> tables (rich for the terminal, markdown, and plain rows for HTML).

A suite's `summarize` returns a `Summary` (`reqbench.core.summary`): its `overview` facts become one
key/value table "overview" (shown first), each of its `Table`s one table with the rows and columns in
insertion order (a column missing from a row is an empty cell). Nothing here knows a protocol.

Cells: a `Metric` is shown ``value [lo, hi]`` (its interval when it has one); ints as is, floats with 4
significant digits, None as an em dash, bools yes/no; any other value as compact JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reqbench.core.summary import Metric, Summary, SummaryTable

if TYPE_CHECKING:
    from rich.table import Table

OVERVIEW = "overview"


@dataclass
class TableData:
    title: str
    columns: list[str]
    rows: list[list[str]]


def format_cell(value: Any) -> str:
    if isinstance(value, Metric):
        text = format_cell(value.value)
        if value.ci is not None:
            text += f" [{format_cell(value.ci[0])}, {format_cell(value.ci[1])}]"
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


def table_data(table: SummaryTable) -> TableData:
    columns = table.columns
    rows = [[label, *(format_cell(cells[c]) if c in cells else "" for c in columns)]
            for label, cells in table.rows.items()]
    return TableData(table.title, ["", *columns], rows)


def summary_tables(summary: Summary) -> list[TableData]:
    """The overview table (when there are facts), then every table of the summary."""
    tables = [table_data(t) for t in summary.tables]
    if summary.overview:
        tables.insert(0, TableData(OVERVIEW, ["", "value"],
                                   [[name, format_cell(value)] for name, value in summary.overview.items()]))
    return tables


def transpose(table: TableData) -> TableData:
    """Rows become columns: the row labels head the columns, the column names label the rows."""
    columns = [table.columns[0] or "", *(row[0] for row in table.rows)]
    rows = [[name, *(row[i] if i < len(row) else "" for row in table.rows)]
            for i, name in enumerate(table.columns) if i > 0]
    return TableData(table.title, columns, rows)


def split_columns(table: TableData, widths: list[int], budget: int) -> list[TableData]:
    """Groups of columns whose widths (label column included in each group) fit `budget`."""
    groups: list[list[int]] = []
    used = widths[0]
    for i in range(1, len(table.columns)):
        if groups and used + widths[i] <= budget:
            groups[-1].append(i)
            used += widths[i]
        else:
            groups.append([i])
            used = widths[0] + widths[i]
    n = len(groups)
    return [TableData(f"{table.title} ({k}/{n})" if n > 1 else table.title,
                      [table.columns[0], *(table.columns[i] for i in group)],
                      [[row[0], *(row[i] if i < len(row) else "" for i in group)] for row in table.rows])
            for k, group in enumerate(groups, 1)]


def fit_columns(table: TableData, max_columns: int) -> list[TableData]:
    """At most `max_columns` columns per table: transpose a wide, short table, else split it."""
    if len(table.columns) <= max_columns:
        return [table]
    if len(table.rows) + 1 <= max_columns:
        return [transpose(table)]
    return split_columns(table, [1] * len(table.columns), max_columns)


CELL_CAP = 28
"""A terminal column never asks for more than this many characters; longer cells wrap."""


def _widths(table: TableData) -> list[int]:
    """Terminal width each column needs (header words may wrap; cells up to `CELL_CAP`) plus its
    3 characters of padding and border."""
    out = []
    for i, name in enumerate(table.columns):
        cells = [row[i] for row in table.rows if i < len(row)]
        longest_word = max((len(w) for w in name.split()), default=0)
        need = max([longest_word, min(len(name), CELL_CAP), *(min(len(c), CELL_CAP) for c in cells)])
        out.append(need + 3)
    return out


def fit_width(table: TableData, width: int) -> list[TableData]:
    """The table as one or more tables no wider than `width` terminal columns: unchanged when it fits,
    transposed when that fits, else split into column groups that repeat the row label."""
    widths = _widths(table)
    if sum(widths) + 1 <= width:
        return [table]
    flipped = transpose(table)
    if len(table.rows) > 1 and sum(_widths(flipped)) + 1 <= width:
        return [flipped]
    parts = split_columns(table, widths, width - 1)
    if len(table.rows) > 1:
        flipped_parts = split_columns(flipped, _widths(flipped), width - 1)
        if len(flipped_parts) < len(parts):
            return flipped_parts
    return parts


def rich_table(table: TableData) -> Table:
    """`table` as rich's table (rich is imported here: a ``--quiet`` run's headline goes without it)."""
    from rich.table import Table

    out = Table(title=table.title, title_justify="left", show_lines=False)
    for i, column in enumerate(table.columns):
        if i == 0:
            out.add_column(column, justify="left", overflow="fold", max_width=CELL_CAP * 2)
        else:
            out.add_column(column, justify="right", overflow="fold")
    for row in table.rows:
        out.add_row(*row)
    return out


def rich_tables(table: TableData, width: int) -> list[Table]:
    """`rich_table` of every part of `fit_width(table, width)`."""
    return [rich_table(part) for part in fit_width(table, width)]


def markdown_table(table: TableData) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [f"**{esc(table.title)}**", "", "| " + " | ".join(esc(c) for c in table.columns) + " |",
             "|" + "|".join(["---", *["---:"] * (len(table.columns) - 1)]) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"
