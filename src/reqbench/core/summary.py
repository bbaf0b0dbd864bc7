"""`Summary`: what a suite's `summarize` returns, typed, so a report renders any protocol without knowing it.

A summary holds

* `overview` — named facts (one key/value table, shown first);
* `tables` — `SummaryTable`s of cells, rows and columns in insertion order; a cell is a `Metric` (an estimate with
  its interval and support), a plain number, text, bool or None;
* `headline` — the few numbers that compare runs (demo summary, gradings, viewer compare page);
* `plots` — `Plot`s (bar, grouped bars, distribution, forest) with the values they draw;
* `data` — the protocol's own JSON document, printed unchanged under its name by ``reqbench report --json``
  (the documented, stable shape of each protocol's numbers).

`to_json` / `from_json` give the typed serialisation (``"summary"`` in ``reqbench report --json``).
`build` makes one from a protocol's JSON document when the protocol names which of its keys are tables.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Scalar = str | int | float | bool | None
Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class Metric:
    """An estimate: its value, its interval (``ci``, when one was computed) and its support ``n``."""

    value: float | None
    ci: Interval | None = None
    n: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value}
        if self.ci is not None:
            out["ci"] = list(self.ci)
        if self.n is not None:
            out["n"] = self.n
        return out


Cell = Metric | Scalar


def metric_of(value: Mapping[str, Any]) -> Metric:
    """A `Metric` from its JSON form ``{"value": x, "ci": [lo, hi], "n": k}`` (``ci`` and ``n`` optional;
    a ``ci`` that is not a pair is dropped)."""
    ci = value.get("ci")
    interval: Interval | None = None
    if isinstance(ci, list | tuple) and len(ci) == 2:
        interval = (_opt_float(ci[0]), _opt_float(ci[1]))
    n = value.get("n")
    return Metric(_opt_float(value.get("value")), interval, n if isinstance(n, int) else None)


def as_number(value: Any) -> float | None:
    """`value` as a float when it is a number (not a bool), else None: what a chart can draw."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _opt_float(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def is_metric_json(value: Any) -> bool:
    return isinstance(value, dict) and "value" in value and set(value) <= {"value", "ci", "n"}


def cell_of(value: Any) -> Cell:
    """A cell from a JSON value: a metric object becomes a `Metric`, a scalar stays, anything else becomes
    its compact JSON text."""
    if is_metric_json(value):
        return metric_of(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def cell_to_json(cell: Cell) -> Any:
    return cell.to_json() if isinstance(cell, Metric) else cell


def cell_from_json(value: Any) -> Cell:
    return metric_of(value) if isinstance(value, dict) else cell_of(value)


@dataclass(frozen=True)
class SummaryTable:
    """A titled table: ``rows[label][column]``; a column missing from a row is an empty cell."""

    title: str
    rows: Mapping[str, Mapping[str, Cell]]

    @property
    def columns(self) -> list[str]:
        out: list[str] = []
        for cells in self.rows.values():
            out += [c for c in cells if c not in out]
        return out

    @classmethod
    def of(cls, title: str, rows: Mapping[str, Any]) -> SummaryTable:
        """From ``{row label: {column: JSON cell}}`` (`cell_of` on every cell)."""
        if not isinstance(rows, Mapping) or not all(isinstance(v, Mapping) for v in rows.values()):
            raise TypeError(f"table {title!r}: expected {{row: {{column: cell}}}}")
        return cls(title, {str(label): {str(c): cell_of(v) for c, v in cells.items()}
                           for label, cells in rows.items()})

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "columns": self.columns,
                "rows": {label: {c: cell_to_json(v) for c, v in cells.items()} for label, cells in self.rows.items()}}


PlotKind = Literal["bar", "grouped", "distribution", "forest"]


@dataclass(frozen=True)
class Plot:
    """One chart. ``bar``: `series` holds one list of values (one per label) and `ci` optional intervals;
    ``grouped``: several named series side by side; ``distribution``: `points` holds every value per label;
    ``forest``: like ``bar`` (one series, optional `ci`), drawn as a point and its interval per label around a
    line at 0 (paired differences)."""

    kind: PlotKind
    title: str
    labels: Sequence[str]
    series: Mapping[str, Sequence[float | None]] = field(default_factory=dict)
    ci: Sequence[Interval | None] | None = None
    points: Sequence[Sequence[float]] = field(default_factory=list)
    ylabel: str = ""
    drawn_title: str = ""
    """The title drawn in the chart, when it says more than `title` (the caption and file name)."""
    judge: str = ""
    """The judge whose labels the values come from ('' when no judge decides them); a report names a
    heuristic judge in the drawn title (`reqbench.core.judges.spec.is_heuristic`)."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "ylabel": self.ylabel, "labels": list(self.labels),
                "series": {k: list(v) for k, v in self.series.items()},
                "ci": None if self.ci is None else [None if i is None else list(i) for i in self.ci],
                "points": [list(p) for p in self.points], "drawn_title": self.drawn_title,
                "judge": self.judge}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plot:
        ci = data.get("ci")
        return cls(data["kind"], data["title"], list(data["labels"]),
                   {k: list(v) for k, v in (data.get("series") or {}).items()},
                   None if ci is None else [None if i is None else (i[0], i[1]) for i in ci],
                   [list(p) for p in data.get("points") or []], data.get("ylabel", ""),
                   data.get("drawn_title", ""), data.get("judge") or "")


def bar_from_table(table: SummaryTable, column: str, *, title: str = "", ylabel: str = "") -> Plot | None:
    """A bar chart of `column` over the rows of `table` that have it (intervals from `Metric` cells);
    None when no row has it."""
    labels: list[str] = []
    values: list[float | None] = []
    intervals: list[Interval | None] = []
    for label, cells in table.rows.items():
        if column in cells:
            cell = cells[column]
            value = cell.value if isinstance(cell, Metric) else cell
            labels.append(label)
            values.append(float(value) if isinstance(value, int | float) and not isinstance(value, bool)
                          else None)
            intervals.append(cell.ci if isinstance(cell, Metric) and _complete(cell.ci) else None)
    if not labels:
        return None
    has_ci = any(i is not None for i in intervals)
    return Plot("bar", title or f"{table.title}: {column}", labels, {column: values},
                intervals if has_ci else None, ylabel=ylabel or column)


def _complete(ci: Interval | None) -> bool:
    return ci is not None and ci[0] is not None and ci[1] is not None


@dataclass(frozen=True)
class Summary:
    overview: Mapping[str, Cell] = field(default_factory=dict)
    tables: Sequence[SummaryTable] = field(default_factory=list)
    headline: Mapping[str, Cell] = field(default_factory=dict)
    plots: Sequence[Plot] = field(default_factory=list)
    data: Mapping[str, Any] = field(default_factory=dict)

    def table(self, title: str) -> SummaryTable | None:
        return next((t for t in self.tables if t.title == title), None)

    def to_json(self) -> dict[str, Any]:
        return {"overview": {k: cell_to_json(v) for k, v in self.overview.items()},
                "tables": [t.to_json() for t in self.tables],
                "headline": {k: cell_to_json(v) for k, v in self.headline.items()},
                "plots": [p.to_json() for p in self.plots]}

    @classmethod
    def from_json(cls, typed: Mapping[str, Any], data: Mapping[str, Any] | None = None) -> Summary:
        return cls({k: cell_from_json(v) for k, v in typed.get("overview", {}).items()},
                   [SummaryTable(t["title"], {label: {c: cell_from_json(v) for c, v in cells.items()}
                                              for label, cells in t["rows"].items()}) for t in typed.get("tables", [])],
                   {k: cell_from_json(v) for k, v in typed.get("headline", {}).items()},
                   [Plot.from_json(p) for p in typed.get("plots", [])], dict(data or {}))

    @classmethod
    def build(cls, data: Mapping[str, Any], *, tables: Iterable[str], headline: Mapping[str, Cell] | None = None,
              plots: Iterable[Plot] = (), skip: Iterable[str] = ()) -> Summary:
        """From a protocol's JSON document: the keys named in `tables` become tables (in document order),
        every other key except `skip` an overview fact (`cell_of`); a named table without rows is an
        overview fact too (its empty JSON)."""
        names = {k for k in tables if data.get(k)}
        skipped = set(skip)
        return cls({k: cell_of(v) for k, v in data.items() if k not in names and k not in skipped},
                   [SummaryTable.of(k, v) for k, v in data.items() if k in names],
                   dict(headline or {}), list(plots), data)


def unavailable(reason: str) -> Summary:
    """The summary shown when a run's summary cannot be built (moved suite, old run): one overview fact."""
    return Summary(overview={"summary unavailable": reason}, data={"summary unavailable": reason})
