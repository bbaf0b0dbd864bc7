"""`Summary`: the typed result of a suite's `summarize`, its JSON round trip, and how a protocol's JSON
document becomes one when the protocol names its tables."""

from __future__ import annotations

import json

import pytest

from reqbench.core.summary import Metric, Plot, Summary, SummaryTable, bar_from_table, cell_of

DOC = {
    "rows": 12,
    "intervals": "cluster bootstrap",
    "by condition": {"C1": {"rate": {"value": 0.5, "ci": [0.25, 0.75], "n": 4}, "n": 4},
                     "C2": {"rate": {"value": None, "ci": [None, None]}, "n": 0, "notes": ["a"]}},
    "empty": {},
    "plots": [{"table": "by condition", "column": "rate"}],
}


def test_build_makes_the_named_keys_tables_and_every_other_key_a_fact() -> None:
    summary = Summary.build(DOC, tables=["by condition", "empty"], skip=["plots"])
    assert summary.overview == {"rows": 12, "intervals": "cluster bootstrap", "empty": "{}"}
    (table,) = summary.tables
    assert table.title == "by condition" and table.columns == ["rate", "n", "notes"]
    assert table.rows["C1"] == {"rate": Metric(0.5, (0.25, 0.75), 4), "n": 4}
    assert table.rows["C2"] == {"rate": Metric(None, (None, None)), "n": 0, "notes": '["a"]'}
    assert summary.data is DOC


def test_a_named_table_that_is_not_rows_of_cells_is_refused() -> None:
    with pytest.raises(TypeError, match="table 'rows'"):
        Summary.build({"rows": {"a": 1}}, tables=["rows"])


def test_cells_are_metrics_only_for_metric_objects() -> None:
    assert cell_of({"value": 1, "ci": [0, 2]}) == Metric(1, (0, 2))
    assert cell_of({"value": 1, "other": 2}) == '{"other": 2, "value": 1}'
    assert cell_of({"value": 1, "ci": [0, 1, 2]}) == Metric(1)  # an interval is a pair
    assert cell_of(True) is True and cell_of(None) is None


def test_typed_json_round_trips_through_text() -> None:
    table = SummaryTable("t", {"a": {"m": Metric(0.25, (0.0, 0.5), 8), "k": 3, "s": "x"}, "b": {"m": None}})
    plot = bar_from_table(table, "m", title="m by row")
    summary = Summary(overview={"n": 2}, tables=[table], headline={"a m": 0.25}, plots=[plot] if plot else [])
    again = Summary.from_json(json.loads(json.dumps(summary.to_json())))
    assert again.overview == summary.overview and again.headline == summary.headline
    assert again.tables == [table]
    assert again.plots == [Plot("bar", "m by row", ["a", "b"], {"m": [0.25, None]}, [(0.0, 0.5), None],
                                ylabel="m")]


def test_bar_from_table_draws_rows_that_have_the_column_and_no_bar_without_any() -> None:
    table = SummaryTable("t", {"a": {"m": 1}, "b": {"other": 2}, "c": {"m": True}})
    plot = bar_from_table(table, "m")
    assert plot is not None and (plot.title, list(plot.labels), plot.series, plot.ci) == (
        "t: m", ["a", "c"], {"m": [1.0, None]}, None)
    assert bar_from_table(table, "missing") is None
