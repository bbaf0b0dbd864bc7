"""A summary that is itself one flat table renders as a table, not as JSON blobs in the overview."""

from reqbench.report.tables import summary_tables


def test_flat_summary_renders_as_one_table():
    tables = summary_tables({"Non-coder": {"sessions": 2, "final_f2p": 1.0},
                             "Software Architect": {"sessions": 2, "final_f2p": 0.5}})
    assert [(t.title, t.columns) for t in tables] == [("summary", ["", "sessions", "final_f2p"])]
    assert tables[0].rows == [["Non-coder", "2", "1"], ["Software Architect", "2", "0.5"]]


def test_nested_summary_keeps_its_tables_and_overview():
    tables = summary_tables({"delivery": {"C1": {"n": 5}}, "note": "x"})
    assert [t.title for t in tables] == ["overview", "delivery"]
