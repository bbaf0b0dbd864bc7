"""Target (message 45): the "(no rows)" line is withdrawn; an empty table is just the headers again."""
from tabulate import tabulate


def test_empty_table_is_just_the_headers():
    assert tabulate([], headers=["truck", "km"]) == "truck    km\n-------  ----"


def test_no_data_is_just_the_headers():
    assert tabulate(None, headers=["a", "b"], tablefmt="pipe") == "| a   | b   |\n|-----|-----|"


def test_notice_gone_everywhere():
    assert "(no rows)" not in tabulate([], headers=["x"], tablefmt="plain")
