"""Behaviour that must survive the totals change (state before message 55)."""
from tabulate import tabulate


def test_maxrows_line():
    assert tabulate([[1], [2], [3]], maxrows=1, tablefmt="plain") == "1\n... and 2 more rows"


def test_totals_count_empty_cells_as_zero():
    out = tabulate([["fuel", None], ["tolls", 2.5]], totals=True, tablefmt="plain")
    assert out.splitlines()[-1].split()[-1] == "2.5"


def test_empty_table_is_just_the_headers():
    assert tabulate([], headers=["a"]) == "a\n---"
