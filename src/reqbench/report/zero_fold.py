"""The terminal shows what is there: columns that are zero in every row are left out of a table (its title
names them), and a table that is nothing but zeros becomes one line. HTML, Markdown and JSON keep every
column: only `cli.generic_report.print_report` folds.
"""

from __future__ import annotations

import re

from reqbench.report.tables import TableData

_ZERO = re.compile(r"^[+-]?0+(\.0+)?%?$")


def is_zero(cell: str) -> bool:
    """A cell showing the number zero (``0``, ``0.0``, ``0%``)."""
    return bool(_ZERO.match(cell.strip()))


def fold_zeros(table: TableData) -> TableData | str:
    """`table` without its all-zero value columns (the first column is the row label), or one line
    ``TITLE: all 0 (COLUMNS)`` when no other column is left."""
    if not table.rows or len(table.columns) < 2:
        return table
    zero = [i for i in range(1, len(table.columns)) if all(i < len(r) and is_zero(r[i]) for r in table.rows)]
    if not zero:
        return table
    names = ", ".join(table.columns[i] or "value" for i in zero)
    if len(zero) == len(table.columns) - 1:
        return f"{table.title}: all 0 ({names})"
    keep = [i for i in range(len(table.columns)) if i not in zero]
    return TableData(f"{table.title} (all 0: {names})", [table.columns[i] for i in keep],
                     [[r[i] for i in keep if i < len(r)] for r in table.rows])
