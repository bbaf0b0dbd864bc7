"""A typed `Summary` renders as tables without protocol-specific code or guessing from dict shapes."""

from __future__ import annotations

import io

from rich.console import Console

from reqbench.core.summary import Metric, Summary, SummaryTable
from reqbench.report.tables import format_cell, markdown_table, rich_table, summary_tables

SUMMARY = Summary(
    overview={"complete delivery rate": 0.3333333, "rows": 12, "labels": '["a", "b"]'},
    tables=[SummaryTable("by condition", {"C1": {"rate": Metric(0.5, (0.25, 0.75), 4), "n": 4},
                                          "C2": {"rate": None, "n": 0, "note": "no support"}})])


def test_cells_format_numbers_intervals_and_missing_values() -> None:
    assert format_cell(0.3333333) == "0.3333"
    assert format_cell(12) == "12"
    assert format_cell(None) == "—"
    assert format_cell(True) == "yes"
    assert format_cell(Metric(0.5, (0.25, 0.75))) == "0.5 [0.25, 0.75]"
    assert format_cell(Metric(0.5, (None, 0.75), n=3)) == "0.5 [—, 0.75]"
    assert format_cell(Metric(None)) == "—"
    assert format_cell(["a", "b"]) == '["a", "b"]'


def test_summary_becomes_overview_then_tables_with_union_of_columns() -> None:
    tables = summary_tables(SUMMARY)
    assert [t.title for t in tables] == ["overview", "by condition"]
    assert tables[0].rows == [["complete delivery rate", "0.3333"], ["rows", "12"],
                              ["labels", '["a", "b"]']]
    assert tables[1].columns == ["", "rate", "n", "note"]
    assert tables[1].rows == [["C1", "0.5 [0.25, 0.75]", "4", ""], ["C2", "—", "0", "no support"]]


def test_a_summary_without_facts_has_no_overview_table() -> None:
    tables = summary_tables(Summary(tables=[SummaryTable("summary", {"Non-coder": {"sessions": 2, "final_f2p": 1.0}})]))
    assert [(t.title, t.columns, t.rows) for t in tables] == [("summary", ["", "sessions", "final_f2p"],
                                                               [["Non-coder", "2", "1"]])]


def test_markdown_escapes_pipes_and_aligns_numbers() -> None:
    md = markdown_table(summary_tables(Summary(tables=[SummaryTable("t", {"a|b": {"x": 1}})]))[0])
    assert md.splitlines()[2:] == ["|  | x |", "|---|---:|", "| a\\|b | 1 |"]


def test_rich_table_renders_all_cells() -> None:
    out = io.StringIO()
    Console(file=out, width=120).print(rich_table(summary_tables(SUMMARY)[1]))
    text = out.getvalue()
    assert "0.5 [0.25, 0.75]" in text and "no support" in text
