"""Five-number summaries of a suite's sizes: count, mean, min, Q1, median, Q3, max.

What the dataset-statistics tables of every protocol share (`reqbench stats`): the papers report history
lengths, changed lines or test counts as quartiles (ReqMemBench Table 8, PACE-Bench Figure 3). Quartiles
are the linear-interpolation ones (``statistics.quantiles(method="inclusive")``, numpy's default), so a
reported Q1 such as 74.25 over 44 projects is reproduced exactly.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from reqbench.core.summary import Cell

SPREAD_COLUMNS = ("count", "mean", "min", "Q1", "median", "Q3", "max")


def _number(value: float) -> int | float:
    """An integral value as an int (a median of 7.0 is printed 7), anything else rounded to 4 places."""
    return int(value) if float(value).is_integer() else round(value, 4)


def spread(values: Sequence[int | float], columns: Sequence[str] = SPREAD_COLUMNS) -> dict[str, Cell]:
    """`columns` of `values` (a subset of `SPREAD_COLUMNS`, in that order); every statistic is None when
    there are no values, and a single value is its own quartiles."""
    unknown = [c for c in columns if c not in SPREAD_COLUMNS]
    if unknown:
        raise ValueError(f"unknown spread column {unknown[0]!r}")
    data = sorted(values)
    stats: dict[str, Cell] = dict.fromkeys(SPREAD_COLUMNS)
    stats["count"] = len(data)
    if data:
        q1, median, q3 = statistics.quantiles(data, n=4, method="inclusive") if len(data) > 1 else data * 3
        stats |= {"mean": _number(statistics.fmean(data)), "min": _number(data[0]), "Q1": _number(q1),
                  "median": _number(median), "Q3": _number(q3), "max": _number(data[-1])}
    return {c: stats[c] for c in columns}


def shares(counts: dict[str, int]) -> dict[str, dict[str, Cell]]:
    """``{label: {"count": n, "share": n / total}}`` in descending count (then label) order."""
    total = sum(counts.values())
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {label: {"count": n, "share": round(n / total, 4) if total else None} for label, n in ordered}
